// The assignment of a rank's block of vertices to parts: PT-Scotch's
// SCOTCH_dgraphPart, clusters partitioned by METIS, the stream, METIS on the
// whole graph on rank 0, or random; then the balance repair and the cut
// refinement.
#pragma once

#include <cstdint>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/mpi/methods/assign_options.h"
#include "roles/partition/mpi/methods/cluster.h"
#include "roles/partition/mpi/methods/refine.h"
#include "roles/partition/mpi/methods/repair.h"
#include "roles/partition/mpi/methods/scotch.h"

namespace dg::mpi {

// Part of each vertex of this rank's block. By default (--method auto) a
// graph whose arcs fit rank 0 (RankZeroArcLimit) takes METIS's parts of the
// whole graph on rank 0 (methods/whole_graph.h), the single-machine assignment,
// kept as they are. Otherwise the block's symmetric adjacency
// (graph/adjacency.h) gets its first parts from the clusters partitioned by
// METIS (methods/cluster.h; auto past the limit), from the stream (methods/stream.h) or from
// PT-Scotch (methods/scotch.h; on the cluster graph past PT-Scotch's limit);
// RepairBalance (methods/repair.h) then moves vertices off the parts above the
// cap of each measure in turn, and RefineCut (methods/refine.h) moves vertices
// back to cut fewer arcs within every cap. --method random deals the block's
// shuffled vertices round-robin.
struct Assignment {
  std::vector<int32_t> part;
  BalanceReport balance;
  int64_t initial_cut = 0;  // edges the first parts cut, before the repair
  RefineReport refine;      // all but random
  ClusterReport clusters;   // auto and cluster only
  CoarseScotchReport coarse_scotch;  // PT-Scotch on the cluster graph of a graph past its limit
};

// Whether the assignment partitions by the graph (cluster, stream, scotch
// into K > 1 parts): then the repair and the refinement run, and the log
// gives the cut each left.
bool PartitionsByGraph(PartitionMethod method, int num_parts);

// *edges is left as it was (it is parked in opts.spill_dir while the parts are computed).
Result<Assignment> AssignBlock(const Rank& r, const VertexBlocks& blocks, std::vector<Edge>* edges,
                               const BlockVertices& vertices, const AssignOptions& opts);

}  // namespace dg::mpi
