#include "roles/partition/mpi/output/output.h"

#include <algorithm>
#include <fstream>

#include "common/io/npy.h"
#include "roles/partition/mpi/output/checksums.h"
#include "roles/partition/mpi/output/edge_data.h"
#include "roles/partition/mpi/output/shared_column.h"
#include "roles/partition/mpi/output/typed_output.h"
#include "roles/partition/edge_split.h"
#include "roles/partition/partition_output.h"
#include "roles/partition/source_index.h"

namespace dg::mpi {

namespace {

struct Renumbered {
  std::vector<int64_t> node_map;  // K + 1
  std::vector<int64_t> new_id;    // of each block vertex
};

Renumbered Renumber(const Rank& r, const std::vector<int32_t>& part, int K) {
  std::vector<int64_t> mine(K, 0), all(static_cast<size_t>(K) * r.size);
  for (int32_t p : part) ++mine[p];
  MPI_Allgather(mine.data(), K, MPI_INT64_T, all.data(), K, MPI_INT64_T, r.comm);
  Renumbered out;
  out.node_map.assign(K + 1, 0);
  std::vector<int64_t> next(K, 0);  // first new id of this rank's vertices of part p
  for (int p = 0; p < K; ++p) {
    int64_t total = 0;
    for (int q = 0; q < r.size; ++q) {
      if (q == r.rank) next[p] = total;
      total += all[static_cast<size_t>(q) * K + p];
    }
    out.node_map[p + 1] = out.node_map[p] + total;
  }
  out.new_id.resize(part.size());
  for (size_t v = 0; v < part.size(); ++v) out.new_id[v] = out.node_map[part[v]] + next[part[v]]++;
  return out;
}

int PartOf(const std::vector<int64_t>& node_map, int64_t gid) {
  return static_cast<int>(std::upper_bound(node_map.begin(), node_map.end(), gid) - node_map.begin()) - 1;
}

// Edges (new src, new dst, edge id) of this rank's parts, sorted by (dst, id).
std::vector<Edge> RouteEdges(const Rank& r, const VertexBlocks& blocks, const Renumbered& rn, const PartLayout& L,
                             std::vector<Edge>* edges, int64_t batch) {
  const int64_t first = blocks.First(r.rank);
  std::vector<Edge> a;
  AllToAll<Edge>(r, static_cast<int64_t>(edges->size()), batch,
                 [&](int64_t i, auto send) { send(blocks.Owner((*edges)[i].dst), (*edges)[i]); }, &a);
  std::vector<Edge>().swap(*edges);
  for (Edge& e : a) e.dst = rn.new_id[e.dst - first];
  std::vector<Edge> b;
  AllToAll<Edge>(r, static_cast<int64_t>(a.size()), batch,
                 [&](int64_t i, auto send) { send(blocks.Owner(a[i].src), a[i]); }, &b);
  std::vector<Edge>().swap(a);
  for (Edge& e : b) e.src = rn.new_id[e.src - first];
  std::vector<Edge> c;
  AllToAll<Edge>(r, static_cast<int64_t>(b.size()), batch,
                 [&](int64_t i, auto send) { send(L.RankOf(PartOf(rn.node_map, b[i].dst)), b[i]); }, &c);
  std::vector<Edge>().swap(b);
  std::sort(c.begin(), c.end(), [](const Edge& x, const Edge& y) { return x.dst != y.dst ? x.dst < y.dst : x.id < y.id; });
  return c;
}

// Original ids of the nodes of this rank's parts, in new id order (indexed by new id - first of those parts).
std::vector<int64_t> GatherNodes(const Rank& r, const VertexBlocks& blocks, const Renumbered& rn, const PartLayout& L,
                                 int64_t first_new, int64_t batch) {
  struct NodePair {
    int64_t new_id, orig;
  };
  std::vector<NodePair> got;
  const int64_t first = blocks.First(r.rank);
  AllToAll<NodePair>(r, static_cast<int64_t>(rn.new_id.size()), batch, [&](int64_t v, auto send) {
    send(L.RankOf(PartOf(rn.node_map, rn.new_id[v])), NodePair{rn.new_id[v], first + v});
  }, &got);
  std::vector<int64_t> orig(got.size());
  for (const NodePair& p : got) orig[p.new_id - first_new] = p.orig;
  return orig;
}

Status WriteColumn(const std::string& path, const int64_t* data, int64_t n) {
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(path, DType::kInt64, {n}));
  DG_RETURN_IF_ERROR(w.Append(data, static_cast<size_t>(n) * sizeof(int64_t)));
  return w.Finish();
}

// What this rank wrote, for NAME.json and the shared files.
struct Written {
  std::vector<int64_t> part_edges, num_train, num_val, num_test, num_halo;  // [K], this rank's parts only
  int64_t edge_cut = 0;
  LabelStats labels;
  std::vector<int64_t> orig_eids;  // this rank's parts, concatenated
};

// A typed part's edge_types.npy (the type of each in-edge, from its flat id)
// and its node rows per type.
Status WriteTypedPart(const std::string& dir, const TypeLayout& types, const Edge* edges, int64_t m,
                      const int64_t* orig_nids, const std::vector<int64_t>& type_offsets, const NodeDataOptions& nd,
                      PartInfo* info, LabelStats* labels) {
  EdgeTypeWriter et;
  DG_RETURN_IF_ERROR(et.Open(dir + "/edge_types.npy", static_cast<int>(types.edge_types.size()), m));
  for (int64_t k = 0; k < m; ++k) DG_RETURN_IF_ERROR(et.Add(types.EdgeType(edges[k].id)));
  DG_RETURN_IF_ERROR(et.Finish());
  return WriteTypedPartNodeData(dir, types, orig_nids, type_offsets, nd, info, labels);
}

// Part p's CSR, edge cut, halo and node rows; edges = its in-edges sorted by
// (dst, id). type_offsets: the part's row of node_type_offsets (typed graphs).
Status WriteOnePart(const std::string& dir, int64_t nb, int64_t ne, const Edge* edges, int64_t m,
                    const int64_t* orig_nids, const GraphShards& g, const std::vector<int64_t>* type_offsets,
                    const OutputOptions& o, PartInfo* info, Written* w) {
  DG_RETURN_IF_ERROR(MakeDir(dir));
  std::vector<int64_t> indptr(static_cast<size_t>(ne - nb) + 1, 0), indices(static_cast<size_t>(m));
  std::vector<int64_t> halo;
  for (int64_t k = 0; k < m; ++k) {
    ++indptr[edges[k].dst - nb + 1];
    indices[k] = edges[k].src;
    w->orig_eids.push_back(edges[k].id);
    if (edges[k].src < nb || edges[k].src >= ne) halo.push_back(edges[k].src);
  }
  for (int64_t i = 0; i < ne - nb; ++i) indptr[i + 1] += indptr[i];
  w->edge_cut += static_cast<int64_t>(halo.size());
  std::sort(halo.begin(), halo.end());
  info->num_halo = std::unique(halo.begin(), halo.end()) - halo.begin();
  DG_RETURN_IF_ERROR(WriteColumn(dir + "/indptr.npy", indptr.data(), ne - nb + 1));
  DG_RETURN_IF_ERROR(WriteColumn(dir + "/indices.npy", indices.data(), m));
  NodeDataOptions nd;
  nd.normalize_features = o.normalize_features;
  // Every node array is a read-only mapping (input/input.h, typed_input.h): the
  // pages behind the rows written are dropped, so a rank's memory holds the
  // rows of its part as they go, not the whole file.
  if (g.types) nd.drop_pages_of = g.types->mapped;
  else
    for (const auto& [name, a] : *g.node_data) nd.drop_pages_of.insert(name);
  if (g.types) return WriteTypedPart(dir, *g.types, edges, m, orig_nids, *type_offsets, nd, info, &w->labels);
  return WritePartNodeData(dir, *g.node_data, orig_nids, ne - nb, nb, nd, info, &w->labels);
}

// Every part's aggregation index: the edges whose source the part owns, by
// destination (CSR order within one), gathered on the part's rank.
// *edges_in is emptied once sent (it is the stage's largest array).
Status WriteAggregateIndexes(const Rank& r, const std::string& root, std::vector<Edge>* edges_in,
                             const std::vector<int64_t>& node_map, const std::vector<int64_t>& edge_map,
                             const PartLayout& L, int64_t batch) {
  const std::vector<Edge>& edges = *edges_in;
  struct AggEdge {
    int64_t pos, dst, src;  // pos: global edge position (CSR order)
  };
  const int my_first = PartOf(node_map, edges.empty() ? 0 : edges.front().dst);
  std::vector<int64_t> row_start;  // global position of edges[i] = edge_map[part] + offset in part
  std::vector<AggEdge> got;
  AllToAll<AggEdge>(r, static_cast<int64_t>(edges.size()), batch, [&](int64_t i, auto send) {
    const int p = PartOf(node_map, edges[i].dst);
    int64_t offset = 0;  // edges of lower parts on this rank come first
    for (int q = my_first; q < p; ++q) offset += edge_map[q + 1] - edge_map[q];
    const int src_part = PartOf(node_map, edges[i].src);
    send(L.RankOf(src_part), AggEdge{edge_map[p] + i - offset, edges[i].dst, edges[i].src});
  }, &got);
  std::vector<Edge>().swap(*edges_in);
  std::sort(got.begin(), got.end(), [](const AggEdge& a, const AggEdge& b) { return a.pos < b.pos; });
  const int K = static_cast<int>(node_map.size()) - 1;
  for (int q = 0; q < K; ++q) {
    if (L.RankOf(q) != r.rank) continue;
    int64_t num_edges = 0, num_dsts = 0, last = -1;
    for (const AggEdge& e : got) {
      if (PartOf(node_map, e.src) != q) continue;
      ++num_edges;
      if (e.dst != last) ++num_dsts, last = e.dst;
    }
    AggregateIndexWriter w;
    DG_RETURN_IF_ERROR(w.Open(root + "/part" + std::to_string(q), num_dsts, num_edges));
    for (const AggEdge& e : got)
      if (PartOf(node_map, e.src) == q) DG_RETURN_IF_ERROR(w.Add(e.dst, e.src - node_map[q]));
    DG_RETURN_IF_ERROR(w.Finish());
  }
  return Status::OK();
}

// The pieces of a column with one slice per part, each held by the part's rank.
std::vector<ColumnPiece> PartPieces(const PartLayout& L, const std::vector<int64_t>& part_sizes) {
  std::vector<ColumnPiece> pieces;
  for (int p = 0; p < L.num_parts; ++p) pieces.push_back({L.RankOf(p), part_sizes[p]});
  return pieces;
}

// A per-part count that only the part's rank knows (-1 on the others): the
// sum over ranks of value + 1, less 1, so the owner's -1 (files absent) survives.
std::vector<int64_t> SumParts(const Rank& r, std::vector<int64_t> v) {
  for (int64_t& x : v) ++x;
  SumAll(r, &v);
  for (int64_t& x : v) --x;
  return v;
}

PartitionConfig MakeConfig(const Rank& r, const GraphShards& g, const OutputOptions& o,
                           const std::vector<int64_t>& node_map, const std::vector<int64_t>& edge_map,
                           const std::vector<std::vector<int64_t>>& type_offsets, const Written& w) {
  PartitionConfig cfg = BaseConfig(o.graph_name, o.num_parts, o.part_method.c_str(), g.num_nodes, g.num_edges, node_map,
                                   edge_map, *g.node_data, g.edge_data ? *g.edge_data : std::map<std::string, Array>{});
  const std::vector<int64_t> train = SumParts(r, w.num_train), val = SumParts(r, w.num_val),
                             test = SumParts(r, w.num_test), halo = SumParts(r, w.num_halo);
  for (int p = 0; p < o.num_parts; ++p) {
    cfg.parts[p].num_train = std::max<int64_t>(0, train[p]);
    cfg.parts[p].num_val = val[p];
    cfg.parts[p].num_test = test[p];
    cfg.parts[p].num_halo = halo[p];
  }
  cfg.edge_cut = SumAll(r, w.edge_cut);
  const int64_t max_label = MaxAll(r, w.labels.max_label);
  const int64_t negative = MaxAll(r, w.labels.negative ? 1 : 0);
  cfg.num_classes = negative ? 0 : max_label + 1;
  if (g.types) {  // as the single-machine typed path: meta.json's num_classes first
    TypedConfig(*g.types, &cfg);
    cfg.node_type_offsets = type_offsets;
    if (g.types->num_classes > 0) cfg.num_classes = g.types->num_classes;
  }
  return cfg;
}

// NAME.json from rank 0's text, on every leader's storage.
Status WriteJson(const Rank& r, const SharedStage& stage, const PartitionConfig& cfg) {
  std::string text = r.rank == 0 ? PartitionConfigToJson(cfg) : std::string();
  int64_t n = static_cast<int64_t>(text.size());
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, r.comm);
  text.resize(static_cast<size_t>(n));
  MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, r.comm);
  if (!stage.leader()) return Status::OK();
  const std::string path = stage.path() + "/" + cfg.graph_name + ".json";
  std::ofstream f(path);
  f << text;
  f.close();
  return f ? Status::OK() : Status::IOError("write " + path + " failed");
}

// The held-out edges of this rank's parts in new ids, sorted by destination;
// `at`: where the next part's slice starts.
struct RoutedHeld {
  std::vector<Edge> val, test;
  size_t val_at = 0, test_at = 0;
};

// Part [.., ne)'s val_edges.npy and test_edges.npy, each slice in the order
// of the normalized list (edge id), as one machine writes them.
Status WriteHeldOutPart(const std::string& dir, int64_t ne, RoutedHeld* h) {
  auto slice = [ne](std::vector<Edge>* v, size_t* at) {
    const size_t b = *at;
    while (*at < v->size() && (*v)[*at].dst < ne) ++*at;
    std::sort(v->begin() + b, v->begin() + *at, [](const Edge& x, const Edge& y) { return x.id < y.id; });
    return std::make_pair(v->data() + b, static_cast<int64_t>(*at - b));
  };
  const auto val = slice(&h->val, &h->val_at), test = slice(&h->test, &h->test_at);
  return WriteHeldOutEdges(dir, val.first, val.second, test.first, test.second);
}

// Files besides the CSR and node rows: edge arrays (origin: input row of each
// of the part's edges) and held-out edges.
Status WritePartExtras(const std::string& dir, int64_t ne, const GraphShards& g, const int64_t* origin, int64_t m,
                       RoutedHeld* held) {
  if (g.edge_data) DG_RETURN_IF_ERROR(WriteEdgeRows(dir, *g.edge_data, origin, m));
  if (g.held) DG_RETURN_IF_ERROR(WriteHeldOutPart(dir, ne, held));
  return Status::OK();
}

// The files only the leaders write, relative to OUT (rank 0 hashes them).
std::vector<std::string> SharedFiles(const GraphShards& g) {
  std::vector<std::string> files = {"orig_nids.npy", "orig_eids.npy"};
  if (g.types)
    for (const std::string& t : g.types->node_types) files.push_back("type_nids/" + t + ".npy");
  if (g.held) files.push_back("link_split.json");
  return files;
}

// link_split.json on every leader, then the checksums of every file into cfg (rank 0's).
Status FinishShared(const Rank& r, const SharedStage& stage, const GraphShards& g, const OutputOptions& o,
                    int my_lo, int my_hi, PartitionConfig* cfg) {
  if (g.held) {
    const LinkSplitSummary summary{o.link.fractions, o.link.seed,        o.link.undirected,
                                   g.held->num_train, g.held->num_val, g.held->num_test};
    const Status st = stage.leader() ? WriteLinkSplitJson(stage.path(), summary) : Status::OK();
    DG_RETURN_IF_ERROR(Agree(r, st));
  }
  Progress("checksums");
  std::vector<std::string> mine;
  for (int p = my_lo; p < my_hi; ++p) mine.push_back(cfg->parts[p].dir);
  return Agree(r, GatherChecksums(r, stage.path(), mine, SharedFiles(g), &cfg->checksums));
}

}  // namespace

Result<PartitionConfig> WritePartition(const Rank& r, GraphShards* g, const SharedStage& stage,
                                       const OutputOptions& o) {
  const int K = o.num_parts;
  const PartLayout L{K, r.size};
  const Renumbered rn = Renumber(r, *g->part, K);
  std::vector<Edge> edges = RouteEdges(r, *g->blocks, rn, L, g->edges, o.batch);
  std::vector<int64_t> origin;  // input row of each of `edges` (--edge-data)
  if (g->edge_data) origin = PullOrigins(r, *g->origins, edges, o.batch);
  RoutedHeld held;
  if (g->held) {
    held.val = RouteEdges(r, *g->blocks, rn, L, &g->held->val, o.batch);
    held.test = RouteEdges(r, *g->blocks, rn, L, &g->held->test, o.batch);
  }
  int my_lo = K, my_hi = 0;  // this rank's parts: [my_lo, my_hi)
  for (int p = 0; p < K; ++p)
    if (L.RankOf(p) == r.rank) my_lo = std::min(my_lo, p), my_hi = p + 1;
  const int64_t first_new = my_lo < my_hi ? rn.node_map[my_lo] : 0;
  const std::vector<int64_t> orig_nids = GatherNodes(r, *g->blocks, rn, L, first_new, o.batch);
  std::vector<std::vector<int64_t>> type_offsets;
  if (g->types) type_offsets = PartTypeOffsets(r, *g->blocks, *g->types, *g->part, rn.node_map);

  Written w;
  w.orig_eids.reserve(edges.size());
  w.part_edges.assign(K, 0);
  for (auto* v : {&w.num_train, &w.num_val, &w.num_test, &w.num_halo}) v->assign(K, -1);  // -1: not this rank's (SumParts)
  Status st;
  size_t at = 0;
  for (int p = my_lo; p < my_hi && st.ok(); ++p) {
    const int64_t nb = rn.node_map[p], ne = rn.node_map[p + 1];
    size_t end = at;
    while (end < edges.size() && edges[end].dst < ne) ++end;
    PartInfo info;
    st = WriteOnePart(stage.path() + "/part" + std::to_string(p), nb, ne, edges.data() + at,
                      static_cast<int64_t>(end - at), orig_nids.data() + (nb - first_new), *g,
                      g->types ? &type_offsets[p] : nullptr, o, &info, &w);
    const int64_t* part_origin = g->edge_data ? origin.data() + at : nullptr;
    if (st.ok())
      st = WritePartExtras(stage.path() + "/part" + std::to_string(p), ne, *g, part_origin,
                           static_cast<int64_t>(end - at), &held);
    w.part_edges[p] = static_cast<int64_t>(end - at);
    w.num_train[p] = info.num_train;
    w.num_val[p] = info.num_val;
    w.num_test[p] = info.num_test;
    w.num_halo[p] = info.num_halo;
    at = end;
  }
  DG_RETURN_IF_ERROR(Agree(r, st));
  std::vector<int64_t> part_edges = w.part_edges;
  SumAll(r, &part_edges);
  std::vector<int64_t> edge_map(K + 1, 0), part_nodes(K);
  for (int p = 0; p < K; ++p) {
    edge_map[p + 1] = edge_map[p] + part_edges[p];
    part_nodes[p] = rn.node_map[p + 1] - rn.node_map[p];
  }
  DG_RETURN_IF_ERROR(Agree(r, WriteAggregateIndexes(r, stage.path(), &edges, rn.node_map, edge_map, L, o.batch)));
  PartitionConfig cfg = MakeConfig(r, *g, o, rn.node_map, edge_map, type_offsets, w);
  const std::vector<int64_t> orig_column = g->types ? TypeLocalIds(*g->types, orig_nids) : orig_nids;
  DG_RETURN_IF_ERROR(Agree(r, WriteSharedColumn(r, stage.path() + "/orig_nids.npy", stage.leader(),
                                                PartPieces(L, part_nodes), orig_column)));
  DG_RETURN_IF_ERROR(Agree(r, WriteSharedColumn(r, stage.path() + "/orig_eids.npy", stage.leader(),
                                                PartPieces(L, part_edges), w.orig_eids)));
  if (g->types) DG_RETURN_IF_ERROR(WriteTypeNids(r, stage, *g->blocks, *g->types, rn.new_id));
  DG_RETURN_IF_ERROR(FinishShared(r, stage, *g, o, my_lo, my_hi, &cfg));
  DG_RETURN_IF_ERROR(Agree(r, WriteJson(r, stage, cfg)));
  return cfg;
}

}  // namespace dg::mpi
