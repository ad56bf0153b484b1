#include "roles/partition/mpi/methods/cluster.h"

#include <metis.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>

#include "common/storage/neighbor_sampling.h"
#include "roles/partition/mpi/methods/stream.h"
#include "roles/partition/node_assignment.h"
#include "roles/partition/permutation.h"

namespace dg::mpi {
namespace {

// Arcs of a graph (the cluster graph, or the whole graph under --method auto)
// that rank 0 partitions whatever the rank's share (about 0.6 GB with
// METIS's own copies for a cluster graph): small graphs go to METIS on any P.
constexpr int64_t kSmallClusterGraph = int64_t{1} << 24;

constexpr int64_t kIdxMax = std::numeric_limits<idx_t>::max();

// What each vertex of the block counts in each balanced measure, and the
// cap of a cluster's load in each (a share of the measure's total).
struct VertexLoads : BlockLoads {
  std::vector<int64_t> cap;  // per measure
};

VertexLoads Loads(const Rank& r, const RepairInput& in, const BalanceOptions& bo, double share) {
  VertexLoads x;
  static_cast<BlockLoads&>(x) = BalancedLoads(r, in, bo);
  for (int64_t total : x.total)
    x.cap.push_back(std::max<int64_t>(1, static_cast<int64_t>(share * static_cast<double>(total))));
  return x;
}

// Whether vertex v fits into a cluster of load `load` under caps `cap`.
bool Fits(const VertexLoads& x, const int64_t* load, int64_t v, const std::vector<int64_t>& cap) {
  for (int i = 0; i < x.M(); ++i)
    if (load[i] + x.value[v * x.M() + i] > cap[i]) return false;
  return true;
}

void AddLoad(const VertexLoads& x, int64_t* load, int64_t v, int sign) {
  for (int i = 0; i < x.M(); ++i) load[i] += sign * x.value[v * x.M() + i];
}

// Label propagation within the block: label[v] is the local vertex whose
// cluster v is in (each vertex its own at first).
std::vector<int32_t> Propagate(const BlockAdjacency& adj, const VertexLoads& x, const ClusterOptions& o) {
  const int64_t n = adj.num_vertices, end = adj.first + n;
  std::vector<int32_t> label(static_cast<size_t>(n));
  std::iota(label.begin(), label.end(), 0);
  std::vector<int64_t> load = x.value;  // load[c * M + i] of the cluster labelled c
  std::vector<int64_t> order;
  for (int64_t v = 0; v < n; ++v)
    if (adj.index[v + 1] > adj.index[v]) order.push_back(v);
  Rng rng(MixSeed(o.seed, static_cast<uint64_t>(adj.first) ^ 0xC1A5));
  std::vector<int64_t> score(static_cast<size_t>(n), 0);
  std::vector<int32_t> touched;
  for (int it = 0; it < o.iterations; ++it) {
    Shuffle(&order, &rng);
    int64_t changed = 0;
    for (int64_t v : order) {
      touched.clear();
      for (int64_t k = adj.index[v]; k < adj.index[v + 1]; ++k) {
        if (adj.nbr[k] < adj.first || adj.nbr[k] >= end) continue;  // only the block's arcs
        const int32_t c = label[adj.nbr[k] - adj.first];
        if (score[c] == 0) touched.push_back(c);
        score[c] += ArcWeight(adj, k);
      }
      int32_t best = label[v];
      int64_t best_score = score[best];
      for (int32_t c : touched)
        if (c != label[v] && score[c] > best_score && Fits(x, &load[static_cast<size_t>(c) * x.M()], v, x.cap))
          best = c, best_score = score[c];
      for (int32_t c : touched) score[c] = 0;
      if (best == label[v]) continue;
      AddLoad(x, &load[static_cast<size_t>(label[v]) * x.M()], v, -1);
      AddLoad(x, &load[static_cast<size_t>(best) * x.M()], v, +1);
      label[v] = best;
      ++changed;
    }
    if (changed == 0) break;
  }
  return label;
}

// Vertices without neighbours, in block order, into packs of up to 1/16 of
// a cluster's cap: METIS deals them out to balance the parts.
void PackFree(const BlockAdjacency& adj, const VertexLoads& x, std::vector<int32_t>* label) {
  std::vector<int64_t> cap(x.cap.size()), load(x.cap.size(), 0);
  for (size_t i = 0; i < cap.size(); ++i) cap[i] = std::max<int64_t>(1, x.cap[i] / 16);
  int32_t open = -1;
  for (int64_t v = 0; v < adj.num_vertices; ++v) {
    if (adj.index[v + 1] > adj.index[v]) continue;
    if (open < 0 || !Fits(x, load.data(), v, cap)) {
      open = static_cast<int32_t>(v);
      std::fill(load.begin(), load.end(), 0);
    }
    (*label)[v] = open;
    AddLoad(x, load.data(), v, +1);
  }
}

// Local cluster ids 0 .. C-1 from the labels, and their global offset.
ClusterGraph Number(const Rank& r, const std::vector<int32_t>& label) {
  ClusterGraph rows;
  std::vector<int32_t> index(label.size(), -1);
  int32_t count = 0;
  rows.cluster.resize(label.size());
  for (size_t v = 0; v < label.size(); ++v) {
    if (index[label[v]] < 0) index[label[v]] = count++;
    rows.cluster[v] = index[label[v]];
  }
  rows.degree.assign(static_cast<size_t>(count), 0);
  rows.first = ExclusiveScan(r, count);
  return rows;
}

// The arcs and loads of this rank's clusters (collective: the clusters of
// neighbours on other ranks are asked of their owners).
void Contract(const Rank& r, const BlockAdjacency& adj, const VertexLoads& x, int64_t batch, ClusterGraph* rows) {
  const int64_t n = adj.num_vertices, C = static_cast<int64_t>(rows->degree.size());
  std::vector<int32_t> global(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) global[v] = static_cast<int32_t>(rows->first + rows->cluster[v]);
  const NeighborValues cluster_of(r, adj, global, batch);
  std::vector<int64_t> start(static_cast<size_t>(C) + 1, 0), members(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) ++start[rows->cluster[v] + 1];
  for (int64_t c = 0; c < C; ++c) start[c + 1] += start[c];
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t v = 0; v < n; ++v) members[fill[rows->cluster[v]]++] = v;
  const int64_t total = SumAll(r, C);
  std::vector<int64_t> acc(static_cast<size_t>(total), 0);  // arc weight into each cluster
  std::vector<int32_t> touched;
  rows->load.assign(static_cast<size_t>(C) * x.M(), 0);
  for (int64_t c = 0; c < C; ++c) {
    const int32_t self = static_cast<int32_t>(rows->first + c);
    for (int64_t i = start[c]; i < start[c + 1]; ++i) {
      const int64_t v = members[i];
      AddLoad(x, &rows->load[c * x.M()], v, +1);
      for (int64_t k = adj.index[v]; k < adj.index[v + 1]; ++k) {
        const int32_t g = cluster_of(adj.nbr[k]);
        if (g == self) continue;
        if (acc[g] == 0) touched.push_back(g);
        acc[g] += ArcWeight(adj, k);
      }
    }
    std::sort(touched.begin(), touched.end());
    for (int32_t g : touched) {
      rows->nbr.push_back(g);
      rows->weight.push_back(acc[g]);
      acc[g] = 0;
    }
    rows->degree[c] = static_cast<int32_t>(touched.size());
    touched.clear();
  }
}

// METIS weights are idx_t (32-bit): a column whose sum would pass 2^30 is
// scaled down in proportion, each non-zero weight staying at least 1.
std::vector<idx_t> ToIdx(const std::vector<int64_t>& w, int columns) {
  std::vector<double> scale(static_cast<size_t>(columns), 1.0);
  std::vector<int64_t> sum(static_cast<size_t>(columns), 0);
  for (size_t i = 0; i < w.size(); ++i) sum[i % columns] += w[i];
  for (int c = 0; c < columns; ++c)
    if (sum[c] > (int64_t{1} << 30)) scale[c] = static_cast<double>(int64_t{1} << 30) / static_cast<double>(sum[c]);
  std::vector<idx_t> out(w.size());
  for (size_t i = 0; i < w.size(); ++i)
    out[i] = w[i] == 0 ? 0 : std::max<idx_t>(1, static_cast<idx_t>(static_cast<double>(w[i]) * scale[i % columns]));
  return out;
}

// METIS on the whole cluster graph (rank 0 only): the part of every cluster.
Result<std::vector<int32_t>> MetisOnClusters(const std::vector<int32_t>& degree, const std::vector<int32_t>& nbr,
                                             const std::vector<int64_t>& weight, const std::vector<int64_t>& load,
                                             const VertexLoads& x, const BalanceOptions& bo, uint64_t seed) {
  idx_t n = static_cast<idx_t>(degree.size()), ncon = x.M(), nparts = bo.num_parts, objval = 0;
  std::vector<int32_t> out(degree.size());
  if (nbr.empty() || n < nparts) {  // nothing to cut: clusters dealt round-robin
    for (size_t c = 0; c < out.size(); ++c) out[c] = static_cast<int32_t>(c % bo.num_parts);
    return out;
  }
  std::vector<idx_t> xadj(degree.size() + 1, 0);
  for (size_t c = 0; c < degree.size(); ++c) xadj[c + 1] = xadj[c] + degree[c];
  std::vector<idx_t> adjncy(nbr.begin(), nbr.end()), adjwgt = ToIdx(weight, 1), vwgt = ToIdx(load, ncon);
  // Every constraint within 3/4 of the node count's tolerance, the node types'
  // too: a typed graph's node count is no constraint of its own, and the
  // repair would otherwise cut arcs to bring it under its cap.
  std::vector<real_t> ubvec(x.measures.size(), static_cast<real_t>(1 + 0.75 * bo.tolerance));
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7fffffff);
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> part(degree.size(), 0);
  const int rc = METIS_PartGraphKway(&n, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(),
                                     &nparts, nullptr, ubvec.data(), options, &objval, part.data());
  if (rc != METIS_OK) return MetisStatus("METIS_PartGraphKway on the cluster graph", rc);
  std::copy(part.begin(), part.end(), out.begin());
  return out;
}

// The cluster graph of the block's clusters under loads x (collective).
ClusterGraph CoarsenBlock(const Rank& r, const BlockAdjacency& adj, const VertexLoads& x, const ClusterOptions& o) {
  std::vector<int32_t> label = Propagate(adj, x, o);
  PackFree(adj, x, &label);
  ClusterGraph g = Number(r, label);
  std::vector<int32_t>().swap(label);
  Contract(r, adj, x, o.batch, &g);
  const RowsOnZero counts(r, static_cast<int64_t>(g.degree.size()));
  g.starts.assign(counts.displs.begin(), counts.displs.end());
  g.starts.push_back(counts.displs.back() + counts.counts.back());
  g.measures = x.measures;
  g.total = x.total;
  return g;
}

// METIS's parts of this rank's clusters: the cluster graph gathered on rank
// 0 and partitioned there (collective).
Result<std::vector<int32_t>> MetisOnZero(const Rank& r, ClusterGraph* rows, const VertexLoads& x,
                                         const BalanceOptions& bo, uint64_t seed, double* seconds) {
  const std::vector<int32_t> degree = GatherOnZero(r, rows->degree, MPI_INT32_T);
  std::vector<int32_t> nbr = GatherOnZero(r, rows->nbr, MPI_INT32_T);
  std::vector<int64_t> weight = GatherOnZero(r, rows->weight, MPI_INT64_T);
  std::vector<int64_t> load = GatherOnZero(r, rows->load, MPI_INT64_T);
  rows->nbr = {}, rows->weight = {}, rows->load = {};
  return PartsOnZero(r, static_cast<int64_t>(rows->degree.size()), [&]() -> Result<std::vector<int32_t>> {
    Result<std::vector<int32_t>> parts = MetisOnClusters(degree, nbr, weight, load, x, bo, seed);
    std::vector<int32_t>().swap(nbr), std::vector<int64_t>().swap(weight), std::vector<int64_t>().swap(load);
    return parts;
  }, seconds);
}

}  // namespace

int64_t RankZeroArcLimit(int64_t graph_arcs, int ranks, int64_t max_arcs) {
  return max_arcs > 0 ? max_arcs : std::max(graph_arcs / ranks, kSmallClusterGraph);
}

ClusterGraph Coarsen(const Rank& r, const RepairInput& in, const BalanceOptions& bo, const ClusterOptions& o) {
  return CoarsenBlock(r, *in.adjacency, Loads(r, in, bo, o.cluster_share), o);
}

Result<std::vector<int32_t>> ClusterParts(const Rank& r, const RepairInput& in, const BalanceOptions& bo,
                                          const ClusterOptions& o, ClusterReport* report, ClusterGraph* unused) {
  const BlockAdjacency& adj = *in.adjacency;
  const VertexLoads x = Loads(r, in, bo, o.cluster_share);
  ClusterGraph g = CoarsenBlock(r, adj, x, o);
  report->clusters = g.starts.back();
  report->cluster_arcs = SumAll(r, static_cast<int64_t>(g.nbr.size()));
  report->graph_arcs = SumAll(r, static_cast<int64_t>(adj.index[adj.num_vertices]));
  report->max_arcs = RankZeroArcLimit(report->graph_arcs, r.size, o.max_arcs);
  // Past METIS's 32-bit idx_t (vertices, adjacency entries) rank 0 cannot partition it either.
  const bool too_large = report->cluster_arcs > report->max_arcs || report->cluster_arcs > kIdxMax ||
                         report->clusters > kIdxMax;
  report->plan = !too_large                                        ? ClusterPlan::kMetis
                 : 2 * report->cluster_arcs > report->graph_arcs ? ClusterPlan::kStream
                                                                  : ClusterPlan::kScotch;
  if (report->plan == ClusterPlan::kScotch) {
    if (unused) *unused = std::move(g);
    return std::vector<int32_t>();
  }
  if (report->plan == ClusterPlan::kStream) {  // the clusters hardly help: the vertices are streamed
    g = ClusterGraph();
    VertexStreamOptions so;
    so.seed = o.seed;
    so.batch = o.batch;
    return StreamParts(r, in, x, bo, so);  // the loads the clusters were capped by
  }
  Result<std::vector<int32_t>> cluster_part = MetisOnZero(r, &g, x, bo, o.seed, &report->metis_seconds);
  DG_RETURN_IF_ERROR(cluster_part.status());
  std::vector<int32_t> part(g.cluster.size());
  for (size_t v = 0; v < part.size(); ++v) part[v] = (*cluster_part)[g.cluster[v]];
  return part;
}

}  // namespace dg::mpi
