// The distributed graph of `partition --mpi`: each rank's block of vertices
// and its shard of the edge list, normalized across ranks. The assignment of
// the block to parts is methods/assign.h.
//
// Vertices are block-distributed: rank r owns [first[r], first[r+1]) with
// first[r] = r * N / P. Edges start on the rank that read them (rows
// [r * E / P, (r+1) * E / P) of src.npy / dst.npy: byte ranges of files on
// storage every rank sees) with their input index as edge id. Normalization
// (--undirected, --drop-duplicates) routes every edge (and its reverse) to the
// owner of its source, which sorts by (src, dst) and keeps one of each: the
// ranks' lists, concatenated in rank order, are NormalizeEdges' list, ids
// included. --drop-self-loops alone filters in place and renumbers by an
// exclusive scan of the counts (input order, as NormalizeEdges).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "roles/partition/mpi/runtime/exchange.h"

namespace dg::mpi {

struct Edge {
  int64_t src, dst, id;
};

class VertexBlocks {
 public:
  VertexBlocks(int64_t num_nodes, int ranks);
  int Owner(int64_t v) const;
  int64_t First(int r) const { return first_[r]; }
  int64_t Count(int r) const { return first_[r + 1] - first_[r]; }

 private:
  std::vector<int64_t> first_;
};

// This rank's rows of the mapped src/dst columns, ids checked against [0, N).
Result<std::vector<Edge>> ReadEdgeShard(const Rank& r, const Array& src, const Array& dst, int64_t num_nodes,
                                        const std::string& what);

// Applies the normalization options across ranks (see the file comment);
// returns the global number of edges after it.
int64_t NormalizeShards(const Rank& r, const VertexBlocks& blocks, const EdgeListOptions& opts, int64_t batch,
                        std::vector<Edge>* edges);

}  // namespace dg::mpi
