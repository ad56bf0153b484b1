#include "roles/partition/mpi/methods/scotch.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
// ptscotch.h uses scotch.h's types, FILE and MPI_Comm without including them.
#include <scotch.h>
#include <ptscotch.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "roles/partition/mpi/methods/linked_graph.h"
#include "roles/partition/mpi/runtime/spill.h"
#include "roles/partition/mpi/runtime/test_hold.h"

namespace dg::mpi {

namespace {

static_assert(sizeof(SCOTCH_Num) == sizeof(int32_t), "the adjacency and PT-Scotch share 32-bit arrays");
constexpr int64_t kScotchMax = kMaxId;

// One weight per vertex: each balanced measure (nodes; train nodes; the nodes
// of each node type) contributes about the same total, and in-edges
// kEdgeWeight times that, so PT-Scotch balances their sum with the in-edges
// nearly even. In-edges sit on few vertices (the hubs of a skewed graph), so
// the repair can move them only by cutting many arcs; nodes and train nodes
// are spread over many low-degree vertices, which it moves at little cut.
constexpr int64_t kEdgeWeight = 8;

std::vector<SCOTCH_Num> VertexWeights(const Rank& r, const LocalAdjacency& adj, const BlockVertices& bv,
                                      int64_t num_nodes, const AssignOptions& o) {
  const std::vector<uint8_t>& train = bv.train;
  const int64_t n = static_cast<int64_t>(adj.in_degree.size());
  int64_t local_train = 0, local_in = 0;
  for (int64_t v = 0; v < n; ++v) {
    local_train += train.empty() ? 0 : train[v];
    local_in += adj.in_degree[v];
  }
  const int64_t num_train = SumAll(r, local_train), num_in = SumAll(r, local_in);
  const int64_t T = bv.node_type.empty() ? 0 : static_cast<int64_t>(bv.type_counts.size());
  // The sum of all weights stays below kScotchMax (+ 2: rounding up).
  const int64_t shares = 2 + T + (o.spec.balance.train ? 1 : 0) + (o.spec.balance.edges ? kEdgeWeight : 0);
  const int64_t unit =
      std::max<int64_t>(1, std::min<int64_t>(16, kScotchMax / shares / std::max<int64_t>(1, num_nodes)));
  const int64_t ct = o.spec.balance.train && num_train > 0 ? std::max<int64_t>(1, unit * num_nodes / num_train) : 0;
  const int64_t ce =
      o.spec.balance.edges && num_in > 0 ? std::max<int64_t>(1, kEdgeWeight * unit * num_nodes / num_in) : 0;
  std::vector<int64_t> cty(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) cty[t] = std::max<int64_t>(1, unit * num_nodes / std::max<int64_t>(1, bv.type_counts[t]));
  std::vector<int64_t> x(static_cast<size_t>(n));
  int64_t local_sum = 0;
  for (int64_t v = 0; v < n; ++v) {
    x[v] = unit + ct * (train.empty() ? 0 : train[v]) + ce * adj.in_degree[v] + (T ? cty[bv.node_type[v]] : 0);
    local_sum += x[v];
  }
  // Rounding up (a weight of at least 1 per measure) can still pass the limit
  // on a dense graph: then every weight shrinks in proportion.
  const int64_t sum = SumAll(r, local_sum);
  const double scale = sum > kScotchMax ? static_cast<double>(kScotchMax) / static_cast<double>(sum) : 1.0;
  std::vector<SCOTCH_Num> w(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v)
    w[v] = static_cast<SCOTCH_Num>(std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(x[v]) * scale)));
  return w;
}

// One weight per cluster of g, folded as VertexWeights folds a vertex's:
// each balanced measure's load scaled so that the measure's total weighs
// about as much as the node count (in-edges kEdgeWeight times that), the sum
// below kScotchMax.
std::vector<SCOTCH_Num> ClusterWeights(const Rank& r, const ClusterGraph& g, int64_t num_nodes) {
  const size_t M = g.measures.size(), C = g.degree.size();
  const int64_t N = std::max<int64_t>(1, num_nodes);
  const int64_t unit = std::max<int64_t>(1, std::min<int64_t>(16, kScotchMax / (2 + M + kEdgeWeight) / N));
  std::vector<double> coef(M);
  for (size_t i = 0; i < M; ++i)
    coef[i] = static_cast<double>((g.measures[i].kind == MeasureKind::kEdges ? kEdgeWeight : 1) * unit * N) /
              static_cast<double>(std::max<int64_t>(1, g.total[i]));
  std::vector<int64_t> x(C);
  int64_t local_sum = 0;
  for (size_t c = 0; c < C; ++c) {
    double w = 0;
    for (size_t i = 0; i < M; ++i) w += coef[i] * static_cast<double>(g.load[c * M + i]);
    x[c] = std::max<int64_t>(1, static_cast<int64_t>(w));
    local_sum += x[c];
  }
  const int64_t sum = SumAll(r, local_sum);
  const double scale = sum > kScotchMax ? static_cast<double>(kScotchMax) / static_cast<double>(sum) : 1.0;
  std::vector<SCOTCH_Num> w(C);
  for (size_t c = 0; c < C; ++c)
    w[c] = static_cast<SCOTCH_Num>(std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(x[c]) * scale)));
  return w;
}

// PT-Scotch in a context that is deterministic (no thread races decide) with
// a fixed random seed, so a run is repeatable for the same P, K and seed.
Result<std::vector<int32_t>> ScotchPart(const Rank& r, LinkedGraph* lg, const AssignOptions& o) {
  const SCOTCH_Num n = static_cast<SCOTCH_Num>(lg->vertloctab.size() - 1);
  const SCOTCH_Num arcs = static_cast<SCOTCH_Num>(lg->edgeloctab.size());
  // PT-Scotch sums the arc weights in a SCOTCH_Num: past that (over a billion
  // edges), every arc counts once.
  const bool weighted =
      SumAll(r, std::accumulate(lg->edge_weights.begin(), lg->edge_weights.end(), int64_t{0})) <= kScotchMax;
  lg->edgeloctab.push_back(0);  // never a null pointer, for a block without linked vertices
  lg->weights.push_back(0);
  lg->edge_weights.push_back(0);
  SCOTCH_Context ctx;
  SCOTCH_Dgraph g, bound;
  SCOTCH_Strat strat;
  std::vector<SCOTCH_Num> part(static_cast<size_t>(n) + 1, 0);  // +1: never a null pointer
  int step = 1;
  if (SCOTCH_contextInit(&ctx) != 0) return Status::Internal("SCOTCH_contextInit failed");
  SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  SCOTCH_contextOptionSetNum(&ctx, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
  SCOTCH_contextRandomSeed(&ctx, static_cast<SCOTCH_Num>(o.spec.seed & 0x7fffffff));
  SCOTCH_stratInit(&strat);
  const bool graph = SCOTCH_dgraphInit(&g, r.comm) == 0;
  bool bound_ok = false;
  if (graph && SCOTCH_dgraphBuild(&g, 0, n, n, lg->vertloctab.data(), lg->vertloctab.data() + 1, lg->weights.data(),
                                  nullptr, arcs, arcs, lg->edgeloctab.data(), nullptr,
                                  weighted ? lg->edge_weights.data() : nullptr) == 0) {
    ++step;
    bound_ok = SCOTCH_contextBindDgraph(&ctx, &g, &bound) == 0;
    if (bound_ok) ++step;
    if (bound_ok &&
        SCOTCH_stratDgraphMapBuild(&strat, SCOTCH_STRATQUALITY, r.size, o.spec.num_parts, o.spec.imbalance) == 0) {
      ++step;
      TestHold("scotch", r.rank);
      if (SCOTCH_dgraphPart(&bound, o.spec.num_parts, &strat, part.data()) == 0) step = 0;
    }
  }
  if (bound_ok) SCOTCH_dgraphExit(&bound);
  if (graph) SCOTCH_dgraphExit(&g);
  SCOTCH_stratExit(&strat);
  SCOTCH_contextExit(&ctx);
  if (step != 0) return Status::Internal("PT-Scotch failed (step " + std::to_string(step) + " of 4)");
  return std::vector<int32_t>(part.begin(), part.end() - 1);
}

// PT-Scotch's part of every vertex of the block. It partitions the linked
// vertices (methods/linked_graph.h); the block's own arcs wait in `spill` (when
// set) meanwhile, as its copy of them is the one PT-Scotch reads.
Result<std::vector<int32_t>> ScotchBlock(const Rank& r, LocalAdjacency* adj, std::vector<SCOTCH_Num> weights,
                                         int64_t first, const std::vector<int64_t>& starts, const std::string& spill,
                                         const AssignOptions& o) {
  LinkedGraph linked = LinkVertices(r, View(*adj, first, &starts), weights, o.spec.batch_edges);
  std::vector<SCOTCH_Num>().swap(weights);
  const size_t arcs = adj->edgeloctab.size();
  if (!spill.empty()) {
    DG_RETURN_IF_ERROR(Agree(r, Spill(spill + ".arcs", &adj->edgeloctab)));
    DG_RETURN_IF_ERROR(Agree(r, Spill(spill + ".weights", &adj->edgeweights)));
  }
  DG_ASSIGN_OR_RETURN(std::vector<int32_t> linked_part, ScotchPart(r, &linked, o));
  if (!spill.empty()) {
    DG_RETURN_IF_ERROR(Agree(r, Unspill(spill + ".arcs", arcs, &adj->edgeloctab)));
    DG_RETURN_IF_ERROR(Agree(r, Unspill(spill + ".weights", arcs, &adj->edgeweights)));
  }
  return PlaceAll(linked, linked_part, View(*adj, first, &starts), o.spec.num_parts);
}

}  // namespace

int64_t ScotchArcLimit() {
  const char* narrowed = std::getenv("DISTGNN_TEST_SCOTCH_MAX_ARCS");
  const int64_t v = narrowed ? std::atoll(narrowed) : 0;
  return v > 0 && v < kScotchMax ? v : kScotchMax;
}

Result<std::vector<int32_t>> ScotchParts(const Rank& r, LocalAdjacency* adj, const BlockVertices& bv,
                                         const VertexBlocks& blocks, const std::vector<int64_t>& starts,
                                         const std::string& spill, const AssignOptions& o) {
  std::vector<SCOTCH_Num> w = VertexWeights(r, *adj, bv, blocks.First(r.size), o);
  return ScotchBlock(r, adj, std::move(w), blocks.First(r.rank), starts, spill, o);
}

Result<std::vector<int32_t>> ScotchClusterParts(const Rank& r, const ClusterGraph& g, int64_t graph_arcs,
                                                int64_t num_nodes, const AssignOptions& o,
                                                CoarseScotchReport* report) {
  report->graph_arcs = graph_arcs;
  report->limit = ScotchArcLimit();
  report->clusters = g.starts.back();
  report->cluster_arcs = SumAll(r, static_cast<int64_t>(g.nbr.size()));
  if (report->cluster_arcs > report->limit)
    return Status::InvalidArgument("PT-Scotch (Debian's build counts in a 32-bit SCOTCH_Num) takes at most " +
                                   std::to_string(report->limit) + " arcs; this symmetric graph has " +
                                   std::to_string(graph_arcs) + " and its cluster graph still " +
                                   std::to_string(report->cluster_arcs) + ": use --method cluster, stream or random");
  const size_t C = g.degree.size();
  std::vector<int64_t> index(C + 1, 0);
  for (size_t c = 0; c < C; ++c) index[c + 1] = index[c] + g.degree[c];
  std::vector<int32_t> weight(g.weight.size());  // the sum is checked against the limit in ScotchPart
  for (size_t k = 0; k < weight.size(); ++k) weight[k] = static_cast<int32_t>(std::min<int64_t>(g.weight[k], kMaxId));
  const BlockAdjacency view{index.data(), g.nbr.data(), static_cast<int64_t>(C), g.first, &g.starts, weight.data()};
  LinkedGraph linked = LinkVertices(r, view, ClusterWeights(r, g, num_nodes), o.spec.batch_edges);
  DG_ASSIGN_OR_RETURN(std::vector<int32_t> linked_part, ScotchPart(r, &linked, o));
  const std::vector<int32_t> cluster_part = PlaceAll(linked, linked_part, view, o.spec.num_parts);
  std::vector<int32_t> part(g.cluster.size());
  for (size_t v = 0; v < part.size(); ++v) part[v] = cluster_part[g.cluster[v]];
  return part;
}

}  // namespace dg::mpi
