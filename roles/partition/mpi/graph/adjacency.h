// The symmetric adjacency of a rank's block: both assignment methods (the
// clusters, PT-Scotch), the balance repair and the cut refinement read it.
// Built on the owners from both arcs of every edge (one 8-byte key each,
// sorted); each distinct arc is kept once, weighing the directed edges it
// stands for, so the cut that the methods and the refinement minimize is the
// edge cut the partition reports. Node ids are 32-bit (below kMaxId), arc
// offsets 64-bit: no count of arcs stops a run here; only PT-Scotch, whose
// Debian build counts in 32 bits, refuses a graph past its limit
// (methods/scotch.h).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/mpi/graph/neighbor_parts.h"

namespace dg::mpi {

// The most nodes a run holds (and the largest weight of one arc).
constexpr int64_t kMaxId = std::numeric_limits<int32_t>::max();

// This rank's rows of the symmetric adjacency without loops or duplicate arcs
// (in SCOTCH_dgraphBuild's layout), each arc's weight, and the in-degree of
// its vertices.
struct LocalAdjacency {
  std::vector<int64_t> vertloctab;  // offsets of each vertex's arcs, n + 1
  std::vector<int32_t> edgeloctab, edgeweights;
  std::vector<int64_t> in_degree;
};

// The in-degree of each vertex of this rank's block (self loops and duplicates counted).
std::vector<int64_t> InDegrees(const Rank& r, const VertexBlocks& blocks, const std::vector<Edge>& edges,
                               int64_t batch);

// This rank's rows (collective).
Result<LocalAdjacency> BuildAdjacency(const Rank& r, const VertexBlocks& blocks, const std::vector<Edge>& edges,
                                      int64_t batch);

// The block's adjacency as the repair and the refinement read it (pointers
// into adj: valid while adj's arrays are neither resized nor freed).
BlockAdjacency View(const LocalAdjacency& adj, int64_t first, const std::vector<int64_t>* starts);

}  // namespace dg::mpi
