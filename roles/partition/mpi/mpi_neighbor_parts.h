// Where each vertex's neighbours are: the arcs from each vertex of a rank's
// block to each part, for the balance repair to move the vertices whose move
// adds the fewest cut arcs. The parts of neighbours on other ranks are asked
// of their owners once per distinct neighbour (two bounded all-to-alls).
#pragma once

#include <cstdint>
#include <vector>

#include "roles/partition/mpi/mpi_exchange.h"

namespace dg::mpi {

// The block's symmetric adjacency: neighbours of local vertex v are
// nbr[index[v] .. index[v+1]), as global ids.
struct BlockAdjacency {
  const int32_t* index = nullptr;
  const int32_t* nbr = nullptr;
  int64_t num_vertices = 0;
  int64_t first = 0;                  // global id of local vertex 0
  const std::vector<int64_t>* block_starts = nullptr;  // first global id of each rank's block, P + 1
  const int32_t* weight = nullptr;    // directed edges each arc stands for, as nbr (null: 1 each)
};

// The weight of arc k of `adj`.
inline int32_t ArcWeight(const BlockAdjacency& adj, int64_t k) { return adj.weight ? adj.weight[k] : 1; }

// Distinct neighbours of the block that other ranks own, sorted.
std::vector<int64_t> Ghosts(const BlockAdjacency& adj);

// values[v] of each ghost (a neighbour another rank owns), asked of its
// owner, which passes its own block's `values`; collective.
std::vector<int32_t> GhostValues(const Rank& r, const BlockAdjacency& adj, const std::vector<int64_t>& ghosts,
                                 const std::vector<int32_t>& values, int64_t batch);

// out[v * K + p]: the weight of the arcs from local vertex v to part p under `part` (this
// rank's block); collective.
std::vector<int32_t> ArcsToParts(const Rank& r, const BlockAdjacency& adj, const std::vector<int32_t>& part, int K,
                                 int64_t batch);

}  // namespace dg::mpi
