// The PT-Scotch method of the distributed partitioner (--method scotch, and
// the cluster method's fallback for a graph that does not cluster).
//
// PT-Scotch (SCOTCH_dgraphPart, SCOTCH_STRATQUALITY, in a deterministic Scotch
// context seeded by --seed) partitions the vertices that have a neighbour
// (methods/linked_graph.h), each arc weighing the edges it stands for. It balances
// one vertex weight, so the balanced measures fold into it: the node count,
// train nodes and each node type about equally, in-edges 8 times as much (the
// repair moves them least cheaply). While it runs, the block's own arcs wait
// in the scratch directory: PT-Scotch reads its own copy of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/graph/adjacency.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/mpi/methods/assign_options.h"

namespace dg::mpi {

// PT-Scotch's part of every vertex of this rank's block (collective). `spill`
// ("" = none) is where the block's arcs wait meanwhile; `starts` is the
// first global id of each rank's block (P + 1). Debian's PT-Scotch counts in
// a 32-bit SCOTCH_Num: a symmetric graph of more arcs is refused, naming the
// count, before PT-Scotch sees it (the run's only 32-bit limit on arcs).
Result<std::vector<int32_t>> ScotchParts(const Rank& r, LocalAdjacency* adj, const BlockVertices& bv,
                                         const VertexBlocks& blocks, const std::vector<int64_t>& starts,
                                         const std::string& spill, const AssignOptions& o);

}  // namespace dg::mpi
