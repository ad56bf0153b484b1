#include "roles/partition/mpi/mpi_graph.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
// ptscotch.h uses scotch.h's types, FILE and MPI_Comm without including them.
#include <scotch.h>
#include <ptscotch.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "common/storage/neighbor_sampling.h"
#include "roles/partition/mpi/mpi_linked_graph.h"
#include "roles/partition/mpi/mpi_neighbor_parts.h"
#include "roles/partition/mpi/mpi_spill.h"

namespace dg::mpi {

namespace {

struct Pair {
  int64_t a, b;
  bool operator<(const Pair& o) const { return a != o.a ? a < o.a : b < o.b; }
  bool operator==(const Pair& o) const { return a == o.a && b == o.b; }
};

int64_t IdAt(const Array& a, int64_t i) {
  return a.dtype == DType::kInt64 ? a.as<int64_t>()[i] : a.as<int32_t>()[i];
}

int64_t ExclusiveScan(const Rank& r, int64_t v) {
  int64_t out = 0;
  MPI_Exscan(&v, &out, 1, MPI_INT64_T, MPI_SUM, r.comm);
  return r.rank == 0 ? 0 : out;
}

void SortUnique(std::vector<Pair>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

constexpr int64_t kScotchMax = std::numeric_limits<SCOTCH_Num>::max();

}  // namespace

VertexBlocks::VertexBlocks(int64_t n, int ranks) : first_(ranks + 1) {
  for (int r = 0; r <= ranks; ++r) first_[r] = static_cast<int64_t>((static_cast<__int128>(r) * n) / ranks);
}

int VertexBlocks::Owner(int64_t v) const {
  return static_cast<int>(std::upper_bound(first_.begin(), first_.end(), v) - first_.begin()) - 1;
}

Result<std::vector<Edge>> ReadEdgeShard(const Rank& r, const Array& src, const Array& dst, int64_t n,
                                        const std::string& what) {
  for (const Array* a : {&src, &dst})
    if (a->shape.size() != 1 || (a->dtype != DType::kInt64 && a->dtype != DType::kInt32))
      return Status::InvalidArgument(what + ": src/dst must be 1-D int64 or int32 arrays");
  if (src.rows() != dst.rows())
    return Status::InvalidArgument(what + ": src has " + std::to_string(src.rows()) + " rows, dst " +
                                   std::to_string(dst.rows()));
  const int64_t E = src.rows();
  const int64_t lo = static_cast<int64_t>((static_cast<__int128>(r.rank) * E) / r.size);
  const int64_t hi = static_cast<int64_t>((static_cast<__int128>(r.rank + 1) * E) / r.size);
  std::vector<Edge> out;
  out.reserve(static_cast<size_t>(hi - lo));
  for (int64_t e = lo; e < hi; ++e) {
    const int64_t s = IdAt(src, e), d = IdAt(dst, e);
    if (std::min(s, d) < 0 || std::max(s, d) >= n)
      return Status::InvalidArgument(what + ": edge " + std::to_string(e) + " (" + std::to_string(s) + ", " +
                                     std::to_string(d) + ") has a node id outside [0, " + std::to_string(n) + ")");
    out.push_back({s, d, e});
  }
  return out;
}

int64_t NormalizeShards(const Rank& r, const VertexBlocks& blocks, const EdgeListOptions& o, int64_t batch,
                        std::vector<Edge>* edges) {
  const bool dedupe = o.undirected || o.drop_duplicates;
  if (!dedupe && !o.drop_self_loops) return SumAll(r, static_cast<int64_t>(edges->size()));
  if (!dedupe) {  // self loops only: filter in input order
    edges->erase(std::remove_if(edges->begin(), edges->end(), [](const Edge& e) { return e.src == e.dst; }),
                 edges->end());
  } else {  // to the source's owner, sorted by (src, dst), one of each
    std::vector<Pair> got;
    const std::vector<Edge>& in = *edges;
    AllToAll<Pair>(r, static_cast<int64_t>(in.size()), batch, [&](int64_t i, auto send) {
      const Edge& e = in[i];
      if (o.drop_self_loops && e.src == e.dst) return;
      send(blocks.Owner(e.src), Pair{e.src, e.dst});
      if (o.undirected) send(blocks.Owner(e.dst), Pair{e.dst, e.src});
    }, &got);
    std::vector<Edge>().swap(*edges);
    SortUnique(&got);
    edges->reserve(got.size());
    for (const Pair& p : got) edges->push_back({p.a, p.b, 0});
  }
  const int64_t first = ExclusiveScan(r, static_cast<int64_t>(edges->size()));
  for (size_t i = 0; i < edges->size(); ++i) (*edges)[i].id = first + static_cast<int64_t>(i);
  return SumAll(r, static_cast<int64_t>(edges->size()));
}

namespace {

// This rank's rows of the symmetric adjacency without loops or duplicate arcs
// (what SCOTCH_dgraphBuild takes), each arc weighing the directed edges it
// stands for (both directions and their duplicates: the cut PT-Scotch and
// the refinement minimize is the edge cut the partition reports), and the
// in-degree of its vertices.
struct LocalAdjacency {
  std::vector<SCOTCH_Num> vertloctab, edgeloctab, edgeweights;
  std::vector<int64_t> in_degree;
};

// The in-degree of each vertex of this rank's block (self loops and duplicates counted).
std::vector<int64_t> InDegrees(const Rank& r, const VertexBlocks& blocks, const std::vector<Edge>& edges,
                               int64_t batch) {
  std::vector<int64_t> got;
  AllToAll<int64_t>(r, static_cast<int64_t>(edges.size()), batch,
                    [&](int64_t i, auto send) { send(blocks.Owner(edges[i].dst), edges[i].dst); }, &got);
  std::vector<int64_t> deg(static_cast<size_t>(blocks.Count(r.rank)), 0);
  for (int64_t v : got) ++deg[v - blocks.First(r.rank)];
  return deg;
}

// Arc v -> u as one 64-bit key: v's offset in its owner's block in the high
// half, u in the low half (both below 2^31: the node count is checked against
// SCOTCH_Num first), so sorting the keys sorts the arcs by (v, u) at 8 bytes
// an arc.
uint64_t ArcKey(int64_t v_offset, int64_t u) { return (static_cast<uint64_t>(v_offset) << 32) | static_cast<uint64_t>(u); }

Result<LocalAdjacency> BuildAdjacency(const Rank& r, const VertexBlocks& blocks, const std::vector<Edge>& edges,
                                      int64_t batch) {
  LocalAdjacency adj;
  adj.in_degree = InDegrees(r, blocks, edges, batch);
  std::vector<uint64_t> got;
  AllToAll<uint64_t>(r, static_cast<int64_t>(edges.size()), batch, [&](int64_t i, auto send) {
    const Edge& e = edges[i];
    if (e.src == e.dst) return;
    const int src_owner = blocks.Owner(e.src), dst_owner = blocks.Owner(e.dst);
    send(src_owner, ArcKey(e.src - blocks.First(src_owner), e.dst));
    send(dst_owner, ArcKey(e.dst - blocks.First(dst_owner), e.src));
  }, &got);
  std::sort(got.begin(), got.end());
  // Each distinct arc once, with the number of its copies as its weight.
  size_t distinct = 0;
  for (size_t k = 0; k < got.size();) {
    size_t end = k;
    while (end < got.size() && got[end] == got[k]) ++end;
    got[distinct] = got[k];
    adj.edgeweights.push_back(static_cast<SCOTCH_Num>(std::min<size_t>(end - k, kScotchMax)));
    ++distinct;
    k = end;
  }
  got.resize(distinct);
  const int64_t arcs = SumAll(r, static_cast<int64_t>(got.size()));
  if (arcs > kScotchMax)
    return Status::InvalidArgument(
        "the symmetric graph has " + std::to_string(arcs) + " arcs; Debian's PT-Scotch counts them in a 32-bit "
        "SCOTCH_Num (at most " + std::to_string(kScotchMax) + "): use --method random, or the single-machine "
        "`distgnn partition --memory-budget`");
  const int64_t n = blocks.Count(r.rank);
  adj.vertloctab.assign(static_cast<size_t>(n) + 1, 0);
  adj.edgeloctab.resize(got.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ++adj.vertloctab[(got[k] >> 32) + 1];
    adj.edgeloctab[k] = static_cast<SCOTCH_Num>(got[k] & 0xffffffffu);
  }
  for (int64_t v = 0; v < n; ++v) adj.vertloctab[v + 1] += adj.vertloctab[v];
  return adj;
}

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
  const int64_t shares = 2 + T + (o.balance_train ? 1 : 0) + (o.balance_edges ? kEdgeWeight : 0);
  const int64_t unit =
      std::max<int64_t>(1, std::min<int64_t>(16, kScotchMax / shares / std::max<int64_t>(1, num_nodes)));
  const int64_t ct = o.balance_train && num_train > 0 ? std::max<int64_t>(1, unit * num_nodes / num_train) : 0;
  const int64_t ce =
      o.balance_edges && num_in > 0 ? std::max<int64_t>(1, kEdgeWeight * unit * num_nodes / num_in) : 0;
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
  SCOTCH_contextRandomSeed(&ctx, static_cast<SCOTCH_Num>(o.seed & 0x7fffffff));
  SCOTCH_stratInit(&strat);
  const bool graph = SCOTCH_dgraphInit(&g, r.comm) == 0;
  bool bound_ok = false;
  if (graph && SCOTCH_dgraphBuild(&g, 0, n, n, lg->vertloctab.data(), lg->vertloctab.data() + 1, lg->weights.data(),
                                  nullptr, arcs, arcs, lg->edgeloctab.data(), nullptr,
                                  weighted ? lg->edge_weights.data() : nullptr) == 0) {
    ++step;
    bound_ok = SCOTCH_contextBindDgraph(&ctx, &g, &bound) == 0;
    if (bound_ok) ++step;
    if (bound_ok && SCOTCH_stratDgraphMapBuild(&strat, SCOTCH_STRATQUALITY, r.size, o.num_parts, o.imbalance) == 0) {
      ++step;
      if (SCOTCH_dgraphPart(&bound, o.num_parts, &strat, part.data()) == 0) step = 0;
    }
  }
  if (bound_ok) SCOTCH_dgraphExit(&bound);
  if (graph) SCOTCH_dgraphExit(&g);
  SCOTCH_stratExit(&strat);
  SCOTCH_contextExit(&ctx);
  if (step != 0) return Status::Internal("PT-Scotch failed (step " + std::to_string(step) + " of 4)");
  return std::vector<int32_t>(part.begin(), part.end() - 1);
}

// Balanced random parts: a seeded shuffle of the block, dealt round-robin from
// the block's first global id, so every part gets N / K nodes give or take P.
std::vector<int32_t> RandomBlock(const Rank& r, const VertexBlocks& blocks, const AssignOptions& o) {
  const int64_t first = blocks.First(r.rank), n = blocks.Count(r.rank);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  Rng rng(MixSeed(o.seed, static_cast<uint64_t>(first) ^ 0x5EED));
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.Uniform(static_cast<uint64_t>(i) + 1)]);
  std::vector<int32_t> part(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) part[perm[i]] = static_cast<int32_t>((first + i) % o.num_parts);
  return part;
}

}  // namespace

namespace {

// The block's adjacency as the repair and the refinement read it (pointers
// into adj: valid while adj's arrays are neither resized nor freed).
BlockAdjacency View(const LocalAdjacency& adj, int64_t first, const std::vector<int64_t>* starts) {
  static_assert(sizeof(SCOTCH_Num) == sizeof(int32_t), "BlockAdjacency reads 32-bit ids");
  return BlockAdjacency{reinterpret_cast<const int32_t*>(adj.vertloctab.data()),
                        reinterpret_cast<const int32_t*>(adj.edgeloctab.data()),
                        static_cast<int64_t>(adj.vertloctab.size()) - 1, first, starts,
                        reinterpret_cast<const int32_t*>(adj.edgeweights.data())};
}

// PT-Scotch's part of every vertex of the block. It partitions the linked
// vertices (mpi_linked_graph.h); the block's own arcs wait in `spill` (when
// set) meanwhile, as its copy of them is the one PT-Scotch reads.
Result<std::vector<int32_t>> ScotchBlock(const Rank& r, LocalAdjacency* adj, std::vector<SCOTCH_Num> weights,
                                         int64_t first, const std::vector<int64_t>& starts, const std::string& spill,
                                         const AssignOptions& o) {
  LinkedGraph linked = LinkVertices(r, View(*adj, first, &starts), weights, o.batch);
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
  return PlaceAll(linked, linked_part, View(*adj, first, &starts), o.num_parts);
}

// The first parts of this rank's block: METIS's on the clusters, or
// PT-Scotch's (--method scotch, or a cluster graph too large for rank 0). The rank's edges wait in `spill` meanwhile (when set): PT-Scotch's
// copies of the graph are the assignment's largest memory, and the edges are
// not read again until the output.
Result<std::vector<int32_t>> InitialParts(const Rank& r, const VertexBlocks& blocks, LocalAdjacency* adj,
                                          const RepairInput& rin, const BlockVertices& bv,
                                          const std::vector<int64_t>& starts, const std::string& spill,
                                          const AssignOptions& o, const BalanceOptions& bo, Assignment* out) {
  if (o.method == MpiPartitionMethod::kCluster) {
    ClusterOptions co;
    co.num_parts = o.num_parts;
    co.seed = o.seed;
    co.batch = o.batch;
    DG_ASSIGN_OR_RETURN(std::vector<int32_t> part, ClusterParts(r, rin, bo, co, &out->clusters));
    if (!out->clusters.too_large) return part;
  }
  std::vector<SCOTCH_Num> w = VertexWeights(r, *adj, bv, blocks.First(r.size), o);
  return ScotchBlock(r, adj, std::move(w), blocks.First(r.rank), starts, spill, o);
}

// The first parts of this rank's block, repaired and refined.
Result<Assignment> GraphAssign(const Rank& r, const VertexBlocks& blocks, std::vector<Edge>* edges,
                               const BlockVertices& bv, const AssignOptions& o, const BalanceOptions& bo) {
  const int64_t n = blocks.Count(r.rank), num_nodes = blocks.First(r.size);
  if (num_nodes > kScotchMax)
    return Status::InvalidArgument("the graph has " + std::to_string(num_nodes) + " nodes; the adjacency numbers "
                                   "them in 32 bits (Debian's PT-Scotch's SCOTCH_Num): use --method random");
  DG_ASSIGN_OR_RETURN(LocalAdjacency adj, BuildAdjacency(r, blocks, *edges, o.batch));
  const size_t num_edges = edges->size();
  const std::string spill = o.spill_dir.empty() ? "" : o.spill_dir + "/edges-" + std::to_string(r.rank) + ".bin";
  if (!spill.empty()) DG_RETURN_IF_ERROR(Agree(r, Spill(spill, edges)));
  std::vector<int64_t> starts(static_cast<size_t>(r.size) + 1);
  for (int q = 0; q <= r.size; ++q) starts[q] = blocks.First(q);
  std::vector<int64_t> degree(static_cast<size_t>(n));  // arcs weighted by the edges they stand for
  for (int64_t v = 0; v < n; ++v)
    for (SCOTCH_Num k = adj.vertloctab[v]; k < adj.vertloctab[v + 1]; ++k) degree[v] += adj.edgeweights[k];
  // The view is taken again after PT-Scotch: the spill and unspill reallocate the arcs.
  BlockAdjacency block_adj = View(adj, blocks.First(r.rank), &starts);
  RepairInput rin{&degree, &adj.in_degree, &bv.train, &bv.node_type, &bv.type_names};
  rin.adjacency = &block_adj;
  Assignment out;
  DG_ASSIGN_OR_RETURN(out.part, InitialParts(r, blocks, &adj, rin, bv, starts, spill, o, bo, &out));
  block_adj = View(adj, blocks.First(r.rank), &starts);
  rin.arcs_to_parts = [&](const std::vector<int32_t>& part) {
    return ArcsToParts(r, block_adj, part, o.num_parts, o.batch);
  };
  out.initial_cut = EdgeCut(r, rin, out.part, o.num_parts);
  RepairBalance(r, rin, bo, &out.part);
  out.refine = RefineCut(r, rin, bo, &out.part);
  out.balance = MeasureBalance(r, rin, bo, out.part);
  adj = LocalAdjacency();
  if (!spill.empty()) DG_RETURN_IF_ERROR(Agree(r, Unspill(spill, num_edges, edges)));
  return out;
}

}  // namespace

Result<Assignment> AssignBlock(const Rank& r, const VertexBlocks& blocks, std::vector<Edge>* edges,
                               const BlockVertices& bv, const AssignOptions& o) {
  BalanceOptions bo;
  bo.num_parts = o.num_parts;
  bo.balance_train = o.balance_train;
  bo.balance_edges = o.balance_edges;
  bo.tolerance = o.tolerance;
  if (o.num_parts > 1 && o.method != MpiPartitionMethod::kRandom) return GraphAssign(r, blocks, edges, bv, o, bo);
  const int64_t n = blocks.Count(r.rank);
  Assignment out;
  out.part = o.num_parts == 1 ? std::vector<int32_t>(static_cast<size_t>(n), 0) : RandomBlock(r, blocks, o);
  std::vector<int64_t> in_degree = InDegrees(r, blocks, *edges, o.batch);
  RepairInput rin{&in_degree, &in_degree, &bv.train, &bv.node_type, &bv.type_names};
  out.balance = MeasureBalance(r, rin, bo, out.part);
  return out;
}

}  // namespace dg::mpi
