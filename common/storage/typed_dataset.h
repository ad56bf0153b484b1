// A typed (heterogeneous) dataset: several node types and edge types
// (docs/formats.md, "Typed dataset directory").
//
//   meta.json                          {"node_types": {"movie": 4181, ...},
//                                       "edge_types": [["movie", "starring", "actor"], ...],
//                                       "target": "movie", "num_classes": 3}
//   nodes/<type>/features.npy[.gz]     float32 [N_type, F]  (optional per type)
//   nodes/<type>/labels.npy[.gz]       int64   [N_type]     (-1 = no label)
//   nodes/<type>/split.npy[.gz]        int8    [N_type]     0 train, 1 val, 2 test, -1 none
//   nodes/<type>/X.npy[.gz]            any other array with N_type rows
//   edges/<src>__<rel>__<dst>.tsv[.gz]  "src dst" per line (as edges.tsv)
//   edges/<src>__<rel>__<dst>.npy[.gz]  or int64/int32 [E, 2] (src, dst) pairs
//
// Ids are local to their type: node i of type t is (t, i). Node type id =
// position in meta.json's node_types; edge type id = position in edge_types.
// With `undirected` every edge type (s, r, d) gets a reverse type
// (d, "rev_" + r, s) holding the swapped edges, appended after all forward
// types in the same order (DGL's convention). Every error names the file (and
// line or key).
//
// ToTypeMajorGraph numbers the nodes type-major (all nodes of type 0, then of
// type 1, ...) and builds the in-edge CSR of the whole graph with the edge
// type of every edge; in each destination's row the edges are sorted by edge
// type (stable), so the in-edges of one type are a contiguous sub-range.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

struct NodeTypeData {
  std::string name;
  int64_t count = 0;
  // "features" float32 [count, F], "labels" int64 [count], "split" int8
  // [count], and any other array with count rows; absent keys = the type has
  // no such array.
  std::map<std::string, Array> data;

  const Array* Find(const std::string& key) const {
    auto it = data.find(key);
    return it == data.end() ? nullptr : &it->second;
  }
};

struct EdgeTypeData {
  std::string src_type, relation, dst_type;
  int src_type_id = 0, dst_type_id = 0;
  std::vector<int64_t> src, dst;  // type-local ids, same length

  int64_t size() const { return static_cast<int64_t>(src.size()); }
  std::string CanonicalName() const { return src_type + "__" + relation + "__" + dst_type; }
};

// Type-major numbering and in-edge CSR of a TypedDataset (see top).
struct TypeMajorGraph {
  std::vector<int64_t> type_offsets;  // [T+1]: type t owns ids [type_offsets[t], type_offsets[t+1])
  std::vector<int64_t> indptr;        // [N+1]
  std::vector<int64_t> indices;       // [nnz] type-major source ids
  std::vector<int32_t> edge_types;    // [nnz] edge type id of each edge, non-decreasing within a row

  int64_t num_nodes() const { return type_offsets.empty() ? 0 : type_offsets.back(); }
  // Node type of a type-major id.
  int NodeType(int64_t id) const;
};

struct TypedDataset {
  std::string dir;
  std::vector<NodeTypeData> node_types;
  std::vector<EdgeTypeData> edge_types;
  std::string target;    // the node type with labels/split ("" = none)
  int target_type = -1;  // its id
  int num_classes = 0;   // meta.json's, else 1 + the largest target label (0 = unknown)

  int NodeTypeId(const std::string& name) const;  // -1 if unknown
  int64_t NumNodes() const;
  int64_t NumEdges() const;
  // [T+1] prefix sums of the type counts (type-major numbering).
  std::vector<int64_t> TypeOffsets() const;
  TypeMajorGraph ToTypeMajorGraph() const;
};

struct TypedLoadOptions {
  bool undirected = false;       // add rev_<relation> per edge type
  bool drop_self_loops = false;  // per edge type whose src and dst types are equal
  bool drop_duplicates = false;  // per edge type
};

// True if dir holds a typed dataset (a meta.json with node_types).
bool IsTypedDatasetDir(const std::string& dir);

Result<TypedDataset> LoadTypedDataset(const std::string& dir, bool undirected);
Result<TypedDataset> LoadTypedDataset(const std::string& dir, const TypedLoadOptions& opts);

// meta.json alone: node types with counts, edge types (no edges), target;
// no arrays read.
Result<TypedDataset> ReadTypedMeta(const std::string& dir);
// The array files of nodes/<type>/: name -> path (X.npy preferred over X.npy.gz).
std::map<std::string, std::string> TypedNodeFiles(const std::string& dir, const std::string& type);
// The edge file of an edge type (edges/<src>__<rel>__<dst>.tsv|.tsv.gz|.csv|.npy...).
Result<std::string> TypedEdgeFile(const std::string& dir, const EdgeTypeData& et);
// Streams an edge type's edges in file order, in chunks, checking ids
// against the two counts (errors name the file and the edge). The first
// *skip_rows edges are skipped (a text file's lines counted, not parsed) and
// *skip_rows counted down, as ForEachEdgeText does.
using TypedEdgeChunkFn = std::function<Status(const int64_t* src, const int64_t* dst, int64_t n)>;
Status ForEachTypedEdge(const std::string& dir, const EdgeTypeData& et, int64_t num_src, int64_t num_dst,
                        const TypedEdgeChunkFn& fn, int64_t* skip_rows = nullptr);

// Checks a TypedDataset built in memory (names, counts, ids in range, array
// rows, label/split dtypes, target) and fills the type ids and num_classes if
// unset. LoadTypedDataset and the OGB reader end with it. `where` prefixes errors.
Status ValidateTypedDataset(TypedDataset* ds, const std::string& where);

// Applies the reverse relations / self-loop / duplicate options in place.
void NormalizeTypedEdges(TypedDataset* ds, const TypedLoadOptions& opts);

// meta.json text for a typed dataset (what LoadTypedDataset reads).
std::string TypedMetaJson(const std::vector<std::pair<std::string, int64_t>>& node_types,
                          const std::vector<std::vector<std::string>>& edge_types, const std::string& target,
                          int num_classes);

}  // namespace dg
