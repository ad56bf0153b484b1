// The cluster method of the distributed partitioner (--method cluster, and
// --method auto on a graph past rank 0's limit): one level of coarsening
// across ranks and METIS on what is left.
//
// 1. Size-constrained label propagation (as ParHIP coarsens social graphs)
//    groups each rank's vertices into clusters within its block: each vertex,
//    in a seeded random order, joins the cluster its arcs weigh most into,
//    when that keeps the cluster under the cap of every balance measure
//    (a share of the measure's total: nodes, train nodes, in-edges, the nodes
//    of each node type). Only arcs within the block count, so no cluster spans
//    two ranks and every cap is checked exactly, without messages.
//    Vertices without neighbours are packed into small clusters of their own.
// 2. The cluster graph (a vertex per cluster weighing its load of every
//    measure; the arcs between two clusters summed into one) is gathered on
//    rank 0, where METIS partitions it with one balance constraint per measure
//    (the nodes of each type in place of the node count in a typed graph),
//    as the single-machine METIS path balances them.
// 3. Every vertex takes its cluster's part; the balance repair and the cut
//    refinement follow, as after PT-Scotch.
//
// The cluster graph is the memory this adds on rank 0: the log prints its
// size (at 1M R-MAT nodes / 20M edges on 2 ranks, 200k clusters and 5.7M
// arcs, against the graph's 35M). When it has more arcs than a rank's share
// of the graph's (and more than 16M; --cluster-max-arcs sets the limit), or
// more vertices or arcs than METIS's 32-bit idx_t counts, it is not gathered:
// - a cluster graph that keeps more than half the graph's arcs (a graph
//   without communities: uniform random edges) is dropped, and each rank
//   streams its block's vertices into parts (methods/stream.h);
// - a smaller one (a large graph with communities on many ranks) gets no
//   parts here: the caller partitions the graph with PT-Scotch instead.
#pragma once

#include <cstdint>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/methods/measures.h"

namespace dg::mpi {

// K is BalanceOptions::num_parts.
struct ClusterOptions {
  uint64_t seed = 0;
  double cluster_share = 0.005;  // a cluster's cap: this share of each measure's total
  int iterations = 5;            // label propagation sweeps over the block
  int64_t batch = 1 << 20;
  // The most arcs of a cluster graph rank 0 partitions; 0 = a rank's share of
  // the graph's arcs, at least 16M.
  int64_t max_arcs = 0;
};

// The most arcs of a graph rank 0 partitions with METIS (a cluster graph, or
// under --method auto the whole graph, methods/whole_graph.h): max_arcs, or when
// it is 0 a rank's share of the graph's arcs, at least 16M.
int64_t RankZeroArcLimit(int64_t graph_arcs, int ranks, int64_t max_arcs);

// Who gives the vertices their parts (--method auto: the whole graph or the
// clusters; --method cluster: the clusters).
enum class ClusterPlan {
  kWholeGraph,  // no clusters: the whole graph fits rank 0, where METIS partitions it (--method auto)
  kMetis,   // METIS on rank 0
  kStream,  // none: too large for rank 0 and hardly smaller than the graph; the vertices are streamed
  kScotch,  // nobody: too large for rank 0; PT-Scotch partitions the graph
};

struct ClusterReport {
  int64_t clusters = 0, cluster_arcs = 0;  // the cluster graph
  int64_t graph_arcs = 0;                  // the graph's (symmetric) arcs
  int64_t max_arcs = 0;                    // the limit (RankZeroArcLimit)
  ClusterPlan plan = ClusterPlan::kMetis;
  double metis_seconds = 0;                // METIS's run on rank 0 (rank 0's report)
  bool over_metis_counts = false;          // --method auto: the graph fits the limit but not METIS's 32-bit counts
};

// The cluster graph (steps 1 and 2 above), held across the ranks: each rank's
// clusters are numbered after the lower ranks' (starts), their arcs lead to
// global cluster ids, and each cluster weighs its load of every balanced
// measure. Symmetric, without loops: the adjacency it contracts is.
struct ClusterGraph {
  int64_t first = 0;              // global id of this rank's cluster 0
  std::vector<int64_t> starts;    // first global cluster id of each rank, P + 1
  std::vector<int32_t> cluster;   // local cluster of each block vertex
  std::vector<int32_t> degree;    // arcs of each local cluster
  std::vector<int32_t> nbr;       // global cluster ids, cluster by cluster
  std::vector<int64_t> weight;    // edges each arc stands for
  std::vector<Measure> measures;  // the balanced measures (BalancedLoads)
  std::vector<int64_t> load;      // load[c * M + i]: cluster c's load of measures[i]
  std::vector<int64_t> total;     // the whole graph's, per measure
};

// Clusters the block and contracts the clusters into the cluster graph
// (collective). Needs in.adjacency.
ClusterGraph Coarsen(const Rank& r, const RepairInput& in, const BalanceOptions& bo, const ClusterOptions& o);

// The part of every vertex of the block, or none when PT-Scotch is to
// partition the graph (report->plan; collective): then the cluster graph is
// moved into *unused (when not null), for a PT-Scotch that cannot take the
// whole graph (methods/scotch.h, ScotchClusterParts). Needs in.adjacency.
Result<std::vector<int32_t>> ClusterParts(const Rank& r, const RepairInput& in, const BalanceOptions& bo,
                                          const ClusterOptions& o, ClusterReport* report,
                                          ClusterGraph* unused = nullptr);

}  // namespace dg::mpi
