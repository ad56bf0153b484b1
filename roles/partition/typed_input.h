// A typed graph as the partitioners see it: one flat graph whose input node
// ids are type-major (all nodes of type 0, then type 1, ...) and whose input
// edge list is the concatenation of the edge types in type id order, plus this
// TypeLayout saying where each type starts and holding the per-type node
// arrays. Both partitioners then work as for a homogeneous graph: renumbering
// by part keeps the input order within a part, so every (part, node type) is a
// contiguous range of the global ids; the stable sort of the edges by
// destination keeps each row's in-edges in edge type order.
//
// FlattenTypedDataset moves a TypedDataset into that form (in memory).
// OpenTypedOutOfCore writes the flat edge columns into a scratch directory,
// one edge type after another, and maps them with the node arrays (out of
// core: nothing is held but a chunk).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"

namespace dg {

struct TypeLayout {
  std::vector<std::string> node_types;
  std::vector<int64_t> type_offsets;  // [T+1]: input ids of type t are [type_offsets[t], type_offsets[t+1])
  std::vector<PartitionConfig::EdgeType> edge_types;
  std::vector<int64_t> edge_offsets;  // [R+1]: input edges of type r are [edge_offsets[r], edge_offsets[r+1])
  std::vector<std::map<std::string, Array>> node_data;  // per type: N_type rows each
  std::set<std::string> mapped;  // "<type>/<name>" of node arrays that are mmaps (pages may be dropped)
  int num_file_edge_types = 0;  // OpenTypedLayout: the first edge types have files, the rest are their rev_ types
  int target_type = -1;
  int num_classes = 0;

  int num_types() const { return static_cast<int>(node_types.size()); }
  int64_t num_nodes() const { return type_offsets.back(); }
  int64_t NumNodesOfType(int t) const { return type_offsets[t + 1] - type_offsets[t]; }
  int NodeType(int64_t input_id) const;
  int EdgeType(int64_t input_eid) const;
  // 1 per input node of the target type with split 0; empty without a split.
  std::vector<uint8_t> TrainFlags() const;
};

// Empties ds's edges into *edges (type-major ids, types concatenated) and moves
// its node arrays into the layout.
TypeLayout FlattenTypedDataset(TypedDataset* ds, EdgeList* edges);

// The layout of a typed dataset directory without keeping its edges: node
// counts from meta.json, node arrays mmap'd (gzip'd ones gunzipped into
// scratch_dir first), edge types (rev_<rel> types appended with `undirected`)
// and their counts (one pass over each edge file).
Result<TypeLayout> OpenTypedLayout(const std::string& dir, bool undirected, const std::string& scratch_dir);

// Edge type r of the layout as ForEachTypedEdge takes it (names and type ids, no edges).
EdgeTypeData FileEdgeType(const TypeLayout& l, int r);

// OpenTypedLayout, then the flat src.npy / dst.npy columns written into
// scratch_dir; *src_path / *dst_path name them.
Result<TypeLayout> OpenTypedOutOfCore(const std::string& dir, bool undirected, const std::string& scratch_dir,
                                      std::string* src_path, std::string* dst_path);

}  // namespace dg
