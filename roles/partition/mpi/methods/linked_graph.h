// The graph PT-Scotch partitions: the vertices of the symmetric graph that
// have a neighbour, renumbered in block order. A vertex without neighbours
// (a quarter of the nodes of an R-MAT graph) adds nothing to the cut wherever
// it goes, but PT-Scotch's coarsening merges vertices along edges, so each
// one stays a vertex of its own at every level: the coarsest graph, where
// the first bipartition is computed, keeps them all, and that bipartition
// and its refinement grow slow and poor. They are dealt round-robin instead,
// and the balance repair moves them first (at no cost in cut).
#pragma once

#include <cstdint>
#include <vector>

#include "roles/partition/mpi/graph/neighbor_parts.h"

namespace dg::mpi {

// A distributed graph in SCOTCH_dgraphBuild's arrays (baseval 0, global ids).
struct LinkedGraph {
  std::vector<int32_t> vertloctab, edgeloctab, weights, edge_weights;
  std::vector<int64_t> local;  // the block vertex of each linked vertex
};

// The linked vertices of the block (collective). `weights` are per block vertex.
LinkedGraph LinkVertices(const Rank& r, const BlockAdjacency& adj, const std::vector<int32_t>& weights,
                         int64_t batch);

// The part of every block vertex: linked ones from `linked_part` (by linked
// vertex), the others by their global id modulo K.
std::vector<int32_t> PlaceAll(const LinkedGraph& g, const std::vector<int32_t>& linked_part,
                              const BlockAdjacency& adj, int K);

}  // namespace dg::mpi
