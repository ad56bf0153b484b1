// A typed dataset directory (docs/formats.md, "Typed dataset directory") as
// the distributed partitioner reads it. Every rank opens the layout the
// single-machine out-of-core path opens (typed_input.h: meta.json, node
// arrays mapped, edge types with their rev_ types under --undirected, edge
// counts) and reads rows [r c / P, (r+1) c / P) of each edge type's file (c
// its edges): an .npy file is mapped and sliced, a text one parsed and its
// other rows skipped. Ids become the single-machine flat ones: node (t, i) is
// type_offsets[t] + i (type-major), edge i of type e is edge_offsets[e] + i,
// and under --undirected the rev_ copy of edge i of file type e is edge i of
// type e + (number of file types), with its ends swapped. The typed
// --undirected adds types instead of merging arcs, so no edge is dropped and
// the ranks need no exchange to normalize unless self loops or duplicates are
// dropped (NormalizeTypedShards).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/input/input.h"
#include "roles/partition/typed_input.h"

namespace dg::mpi {

Result<ShardInput> ReadTypedShard(const Rank& r, const std::string& dataset_dir, bool undirected,
                                  const std::string& scratch_dir);

// --drop-self-loops and --drop-duplicates (opts.undirected is ignored: the
// rev_ types are read) on a typed shard, the single-machine rule
// (NormalizeTypedEdges): within each edge type a self loop (only a type whose
// source and destination node types are the same has them) or a repeated
// (src, dst) is dropped, while the same pair in two edge types is two edges.
// Each file edge type goes through NormalizeShards on its own (sorted by
// (src, dst) on the source's owner when dropping duplicates, else filtered in
// input order), so edge i of type e becomes edge_offsets[e] + i with the new
// counts, NormalizeTypedEdges' ids; the rev_ types are rebuilt from the kept
// edges and in->types gets the new edge offsets. Returns the number of edges.
int64_t NormalizeTypedShards(const Rank& r, const VertexBlocks& blocks, const EdgeListOptions& opts, int64_t batch,
                             ShardInput* in);

// Node type ids and train flags (the target type's split == 0; empty without
// a split) of the block [first, first + count).
std::vector<int32_t> BlockNodeTypes(const TypeLayout& types, int64_t first, int64_t count);
std::vector<uint8_t> BlockTypedTrainFlags(const TypeLayout& types, int64_t first, int64_t count);

}  // namespace dg::mpi
