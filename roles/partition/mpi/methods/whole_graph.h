// The default plan's first choice (--method auto): when the whole graph fits
// rank 0, where a cluster graph of as many arcs would be partitioned
// (RankZeroArcLimit, methods/cluster.h), its edges are gathered there and METIS
// partitions them as `distgnn partition --method metis` does: the same call
// (MetisAssignment, node_assignment.h) on the same edge list in the same
// order (the normalized edges by id, which are the single-machine list), with
// the same balance constraints (the node count, or one per node type of a
// typed graph; train nodes and in-edges with --balance train,edges) and seed.
// The parts are that assignment, kept as METIS gave them (no repair, no
// refinement). Rank 0 holds 32 B per edge while gathering, then METIS's
// adjacency and its copies (~104 B per edge); the other ranks wait, kept
// alive by OnRankZero.
#pragma once

#include <cstdint>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/mpi/methods/assign_options.h"

namespace dg::mpi {

// Whether METIS (32-bit idx_t in Debian's libmetis) takes a graph of
// num_nodes nodes and num_edges directed edges: the adjacency MetisAssignment
// builds has up to 2 entries per edge. (The gather has no limit of its own:
// runtime/exchange.h moves any count in chunks.)
bool MetisTakes(int64_t num_nodes, int64_t num_edges);

// The part of every vertex of this rank's block, from METIS on the whole
// graph on rank 0 (collective). *seconds: the time on rank 0 (building
// METIS's graph and partitioning it).
Result<std::vector<int32_t>> WholeGraphParts(const Rank& r, const VertexBlocks& blocks, const std::vector<Edge>& edges,
                                             const BlockVertices& vertices, const AssignOptions& o, double* seconds);

}  // namespace dg::mpi
