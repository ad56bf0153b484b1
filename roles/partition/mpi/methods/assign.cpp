#include "roles/partition/mpi/methods/assign.h"

#include <mpi.h>

#include <algorithm>

#include "common/storage/neighbor_sampling.h"
#include "roles/partition/mpi/graph/adjacency.h"
#include "roles/partition/mpi/graph/neighbor_parts.h"
#include "roles/partition/mpi/methods/scotch.h"
#include "roles/partition/mpi/methods/stream.h"
#include "roles/partition/mpi/methods/whole_graph.h"
#include "roles/partition/mpi/runtime/spill.h"
#include "roles/partition/permutation.h"

namespace dg::mpi {

namespace {

// Balanced random parts: a seeded shuffle of the block, dealt round-robin from
// the block's first global id, so every part gets N / K nodes give or take P.
std::vector<int32_t> RandomBlock(const Rank& r, const VertexBlocks& blocks, const AssignOptions& o) {
  const int64_t first = blocks.First(r.rank), n = blocks.Count(r.rank);
  const std::vector<int64_t> perm = Permutation(n, MixSeed(o.spec.seed, static_cast<uint64_t>(first) ^ 0x5EED));
  std::vector<int32_t> part(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) part[perm[i]] = static_cast<int32_t>((first + i) % o.spec.num_parts);
  return part;
}

// The first parts of this rank's block: METIS's on the clusters, the
// stream's (--method stream, or a cluster graph too large for rank 0 that
// hardly contracted the graph), or PT-Scotch's (--method scotch, or another
// cluster graph too large for rank 0): on the graph, or past PT-Scotch's
// limit on its cluster graph.
Result<std::vector<int32_t>> InitialParts(const Rank& r, const VertexBlocks& blocks, LocalAdjacency* adj,
                                          const RepairInput& rin, const BlockVertices& bv,
                                          const std::vector<int64_t>& starts, const std::string& spill,
                                          const AssignOptions& o, const BalanceOptions& bo, Assignment* out) {
  if (o.spec.method == PartitionMethod::kStream) {
    VertexStreamOptions so;
    so.seed = o.spec.seed;
    so.batch = o.spec.batch_edges;
    return StreamParts(r, rin, BalancedLoads(r, rin, bo), bo, so);
  }
  ClusterOptions co;
  co.seed = o.spec.seed;
  co.batch = o.spec.batch_edges;
  co.max_arcs = o.spec.cluster_max_arcs;
  const int64_t arcs = SumAll(r, adj->vertloctab.back());
  const bool past_scotch = arcs > ScotchArcLimit();
  ClusterGraph coarse;  // kept for PT-Scotch past its limit
  bool coarsened = false;
  if (o.spec.method == PartitionMethod::kCluster || o.spec.method == PartitionMethod::kAuto) {
    DG_ASSIGN_OR_RETURN(std::vector<int32_t> part,
                        ClusterParts(r, rin, bo, co, &out->clusters, past_scotch ? &coarse : nullptr));
    if (out->clusters.plan != ClusterPlan::kScotch) return part;
    coarsened = true;
  }
  if (!past_scotch) return ScotchParts(r, adj, bv, blocks, starts, spill, o);
  if (!coarsened) coarse = Coarsen(r, rin, bo, co);
  return ScotchClusterParts(r, coarse, arcs, blocks.First(r.size), o, &out->coarse_scotch);
}

// --method auto: whether the whole graph goes to METIS on rank 0, its arcs
// within the limit a cluster graph's would be held to and its counts within
// METIS's (collective; *report says which and why).
bool WholeGraphFits(const Rank& r, const VertexBlocks& blocks, const LocalAdjacency& adj,
                    const std::vector<Edge>& edges, const AssignOptions& o, ClusterReport* report) {
  if (o.spec.method != PartitionMethod::kAuto) return false;
  report->graph_arcs = SumAll(r, static_cast<int64_t>(adj.vertloctab.back()));
  report->max_arcs = RankZeroArcLimit(report->graph_arcs, r.size, o.spec.cluster_max_arcs);
  if (report->graph_arcs > report->max_arcs) return false;
  report->over_metis_counts = !MetisTakes(blocks.First(r.size), SumAll(r, static_cast<int64_t>(edges.size())));
  if (report->over_metis_counts) return false;
  report->plan = ClusterPlan::kWholeGraph;
  return true;
}

// The first parts of this rank's block, repaired and refined; or under
// --method auto, when the whole graph fits rank 0, METIS's parts as they are.
Result<Assignment> GraphAssign(const Rank& r, const VertexBlocks& blocks, std::vector<Edge>* edges,
                               const BlockVertices& bv, const AssignOptions& o, const BalanceOptions& bo) {
  const int64_t n = blocks.Count(r.rank), num_nodes = blocks.First(r.size);
  if (num_nodes > kMaxId)
    return Status::InvalidArgument("the graph has " + std::to_string(num_nodes) + " nodes; the adjacency (and "
                                   "Debian's PT-Scotch) numbers them in 32 bits: use --method random");
  DG_ASSIGN_OR_RETURN(LocalAdjacency adj, BuildAdjacency(r, blocks, *edges, o.spec.batch_edges));
  Assignment out;
  const bool whole = WholeGraphFits(r, blocks, adj, *edges, o, &out.clusters);
  if (whole) {
    DG_ASSIGN_OR_RETURN(out.part, WholeGraphParts(r, blocks, *edges, bv, o, &out.clusters.metis_seconds));
  }
  const size_t num_edges = edges->size();
  const std::string spill = o.spill_dir.empty() ? "" : o.spill_dir + "/edges-" + std::to_string(r.rank) + ".bin";
  if (!spill.empty()) DG_RETURN_IF_ERROR(Agree(r, Spill(spill, edges)));
  std::vector<int64_t> starts(static_cast<size_t>(r.size) + 1);
  for (int q = 0; q <= r.size; ++q) starts[q] = blocks.First(q);
  std::vector<int64_t> degree(static_cast<size_t>(n));  // arcs weighted by the edges they stand for
  for (int64_t v = 0; v < n; ++v)
    for (int64_t k = adj.vertloctab[v]; k < adj.vertloctab[v + 1]; ++k) degree[v] += adj.edgeweights[k];
  // The view is taken again after PT-Scotch: the spill and unspill reallocate the arcs.
  BlockAdjacency block_adj = View(adj, blocks.First(r.rank), &starts);
  RepairInput rin{&degree, &adj.in_degree, &bv.train, &bv.node_type, &bv.type_names};
  rin.adjacency = &block_adj;
  if (!whole) {
    DG_ASSIGN_OR_RETURN(out.part, InitialParts(r, blocks, &adj, rin, bv, starts, spill, o, bo, &out));
  }
  block_adj = View(adj, blocks.First(r.rank), &starts);
  rin.arcs_to_parts = [&](const std::vector<int32_t>& part) {
    return ArcsToParts(r, block_adj, part, o.spec.num_parts, o.spec.batch_edges);
  };
  out.initial_cut = EdgeCut(r, rin, out.part, o.spec.num_parts);
  if (whole) {  // the single-machine assignment, kept
    out.refine.cut_before = out.refine.cut_after = out.initial_cut;
  } else {
    RepairBalance(r, rin, bo, &out.part);
    out.refine = RefineCut(r, rin, bo, &out.part);
  }
  out.balance = MeasureBalance(r, rin, bo, out.part);
  adj = LocalAdjacency();
  if (!spill.empty()) DG_RETURN_IF_ERROR(Agree(r, Unspill(spill, num_edges, edges)));
  return out;
}

}  // namespace

bool PartitionsByGraph(PartitionMethod method, int num_parts) {
  return num_parts > 1 && method != PartitionMethod::kRandom;
}

Result<Assignment> AssignBlock(const Rank& r, const VertexBlocks& blocks, std::vector<Edge>* edges,
                               const BlockVertices& bv, const AssignOptions& o) {
  BalanceOptions bo;
  bo.num_parts = o.spec.num_parts;
  bo.balance = o.spec.balance;
  bo.tolerance = o.tolerance;
  if (PartitionsByGraph(o.spec.method, o.spec.num_parts)) return GraphAssign(r, blocks, edges, bv, o, bo);
  const int64_t n = blocks.Count(r.rank);
  Assignment out;
  out.part = o.spec.num_parts == 1 ? std::vector<int32_t>(static_cast<size_t>(n), 0) : RandomBlock(r, blocks, o);
  std::vector<int64_t> in_degree = InDegrees(r, blocks, *edges, o.spec.batch_edges);
  RepairInput rin{&in_degree, &in_degree, &bv.train, &bv.node_type, &bv.type_names};
  out.balance = MeasureBalance(r, rin, bo, out.part);
  return out;
}

}  // namespace dg::mpi
