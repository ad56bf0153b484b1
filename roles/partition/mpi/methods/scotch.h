// The PT-Scotch method of the distributed partitioner (--method scotch, and
// the cluster method's fallback for a graph that does not cluster).
//
// PT-Scotch (SCOTCH_dgraphPart, SCOTCH_STRATQUALITY, in a deterministic Scotch
// context seeded by --seed) partitions the vertices that have a neighbour
// (methods/linked_graph.h), each arc weighing the edges it stands for. It balances
// one vertex weight, so the balanced measures fold into it: the node count,
// train nodes and each node type about equally, in-edges 8 times as much (the
// repair moves them least cheaply). While it runs, the block's own arcs wait
// in the scratch directory: PT-Scotch reads its own copy of them. A graph
// past PT-Scotch's 32-bit limit is coarsened first and PT-Scotch partitions
// its cluster graph (ScotchClusterParts).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/graph/adjacency.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/mpi/methods/assign_options.h"
#include "roles/partition/mpi/methods/cluster.h"

namespace dg::mpi {

// The most arcs of a symmetric graph PT-Scotch is given: Debian's build
// counts in a 32-bit SCOTCH_Num, so 2^31 - 1 (the run's only 32-bit limit on
// arcs); less under the test hook DISTGNN_TEST_SCOTCH_MAX_ARCS, which lets a
// small graph cross it (test/partition/test_mpi_arc_limit.cpp).
int64_t ScotchArcLimit();

// PT-Scotch's part of every vertex of this rank's block (collective), for a
// graph within ScotchArcLimit(). `spill` ("" = none) is where the block's
// arcs wait meanwhile; `starts` is the first global id of each rank's block
// (P + 1).
Result<std::vector<int32_t>> ScotchParts(const Rank& r, LocalAdjacency* adj, const BlockVertices& bv,
                                         const VertexBlocks& blocks, const std::vector<int64_t>& starts,
                                         const std::string& spill, const AssignOptions& o);

// A graph past ScotchArcLimit() reaches PT-Scotch as its cluster graph
// (methods/cluster.h, Coarsen): PT-Scotch partitions the clusters, each
// weighing its loads of the balanced measures (folded into one weight as a
// vertex's are), each arc the edges it stands for, and every vertex takes its
// cluster's part. What the log reports of it (clusters = 0: not needed).
struct CoarseScotchReport {
  int64_t graph_arcs = 0, limit = 0, clusters = 0, cluster_arcs = 0;
};

// The part of every vertex of this rank's block through PT-Scotch on the
// cluster graph g of a graph of graph_arcs arcs and num_nodes nodes
// (collective). A cluster graph past the limit too is refused, naming both
// counts, before PT-Scotch sees it.
Result<std::vector<int32_t>> ScotchClusterParts(const Rank& r, const ClusterGraph& g, int64_t graph_arcs,
                                                int64_t num_nodes, const AssignOptions& o,
                                                CoarseScotchReport* report);

}  // namespace dg::mpi
