// Where each vertex's neighbours are: the arcs from each vertex of a rank's
// block to each part, for the balance repair and the cut refinement, and any
// per-vertex value of the neighbours (the linked graph's new ids). The values
// of neighbours on other ranks are asked of their owners once per distinct
// neighbour (two bounded all-to-alls).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "roles/partition/mpi/runtime/exchange.h"

namespace dg::mpi {

// The block's symmetric adjacency: neighbours of local vertex v are
// nbr[index[v] .. index[v+1]), as global ids. Offsets are 64-bit: a block may
// hold more than 2^31 arcs (node ids stay below 2^31).
struct BlockAdjacency {
  const int64_t* index = nullptr;
  const int32_t* nbr = nullptr;
  int64_t num_vertices = 0;
  int64_t first = 0;                  // global id of local vertex 0
  const std::vector<int64_t>* block_starts = nullptr;  // first global id of each rank's block, P + 1
  const int32_t* weight = nullptr;    // directed edges each arc stands for, as nbr (null: 1 each)
};

// The weight of arc k of `adj`.
inline int32_t ArcWeight(const BlockAdjacency& adj, int64_t k) { return adj.weight ? adj.weight[k] : 1; }

// A per-vertex value (a part, a new id) of every neighbour of the block:
// each rank passes its own block's `values`; those of neighbours on other
// ranks (ghosts) are asked of their owners at construction (collective), and
// answered again by Refresh: each owner keeps what it was asked.
class NeighborValues {
 public:
  NeighborValues(const Rank& r, const BlockAdjacency& adj, const std::vector<int32_t>& values, int64_t batch);
  // Asks the owners again, after the ranks changed their values (collective).
  void Refresh(const Rank& r, int64_t batch);
  // The value of neighbour u (a global id).
  int32_t operator()(int64_t u) const {
    if (u >= adj_.first && u < adj_.first + adj_.num_vertices) return values_[u - adj_.first];
    return ghost_values_[std::lower_bound(ghosts_.begin(), ghosts_.end(), u) - ghosts_.begin()];
  }

 private:
  struct Ask {
    int64_t vertex, slot;  // a vertex of this block; its slot in the asking rank's ghosts
    int32_t from;          // the asking rank
  };
  std::vector<Ask> AskOwners(const Rank& r, int64_t batch) const;
  std::vector<int32_t> Answers(const Rank& r, int64_t batch) const;

  const BlockAdjacency& adj_;
  const std::vector<int32_t>& values_;
  std::vector<int64_t> ghosts_;  // distinct neighbours other ranks own, sorted
  std::vector<Ask> asks_;        // what other ranks ask of this block
  std::vector<int32_t> ghost_values_;
};

// Moves the arcs into block vertex v from part `from` to part `to` in the
// per-part counts of v's neighbours in the block (arcs[u * K + p], as
// ArcsToParts counts them), and calls touched(u) for each such neighbour u.
template <typename F>
void ShiftArcs(const BlockAdjacency& adj, int64_t v, int from, int to, int K, std::vector<int64_t>* arcs, F touched) {
  const int64_t end = adj.first + adj.num_vertices;
  for (int64_t k = adj.index[v]; k < adj.index[v + 1]; ++k) {
    if (adj.nbr[k] < adj.first || adj.nbr[k] >= end) continue;
    const int64_t u = adj.nbr[k] - adj.first;
    (*arcs)[u * K + from] -= ArcWeight(adj, k);
    (*arcs)[u * K + to] += ArcWeight(adj, k);
    touched(u);
  }
}

// out[v * K + p]: the weight of the arcs from local vertex v to part p under `part` (this
// rank's block); collective.
std::vector<int64_t> ArcsToParts(const Rank& r, const BlockAdjacency& adj, const std::vector<int32_t>& part, int K,
                                 int64_t batch);

}  // namespace dg::mpi
