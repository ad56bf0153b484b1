#include "roles/partition/mpi/output/edge_data.h"

#include <algorithm>
#include <tuple>

#include "common/io/npy.h"
#include "roles/partition/partition_output.h"

namespace dg::mpi {

namespace {

// An arc and its place in the list NormalizeEdges dedupes: input edges first,
// then (--undirected) their reverses, each in input order.
struct Keyed {
  int64_t src, dst, key;
};

}  // namespace

Result<std::map<std::string, Array>> MapEdgeArrays(const std::map<std::string, std::string>& files,
                                                   int64_t input_edges) {
  std::map<std::string, Array> out;
  for (const auto& [name, path] : files) {
    Result<Array> a = NpyMap(path);
    if (!a.ok()) return Status::InvalidArgument("--edge-data " + name + "=" + path + ": " + a.status().message());
    if (a->shape.empty() || a->shape[0] != input_edges)
      return Status::InvalidArgument("--edge-data " + name + "=" + path + ": " +
                                     (a->shape.empty() ? std::string("no") : std::to_string(a->shape[0])) +
                                     " rows, expected " + std::to_string(input_edges) + " (one per input edge)");
    out[name] = std::move(*a);
  }
  return out;
}

std::vector<int64_t> NormalizedOrigins(const Rank& r, const VertexBlocks& blocks, const EdgeListOptions& o,
                                       int64_t input_edges, int64_t batch, const std::vector<Edge>& edges) {
  std::vector<int64_t> origin;
  if (!o.undirected && !o.drop_duplicates) {  // input order, loops dropped or not (NormalizeShards keeps it)
    for (const Edge& e : edges)
      if (!o.drop_self_loops || e.src != e.dst) origin.push_back(e.id);
    return origin;
  }
  // The arcs NormalizeShards routes, to the same ranks, with their keys.
  std::vector<Keyed> got;
  AllToAll<Keyed>(r, static_cast<int64_t>(edges.size()), batch, [&](int64_t i, auto send) {
    const Edge& e = edges[i];
    if (o.drop_self_loops && e.src == e.dst) return;
    send(blocks.Owner(e.src), Keyed{e.src, e.dst, e.id});
    if (o.undirected) send(blocks.Owner(e.dst), Keyed{e.dst, e.src, input_edges + e.id});
  }, &got);
  std::sort(got.begin(), got.end(), [](const Keyed& a, const Keyed& b) {
    return std::tie(a.src, a.dst, a.key) < std::tie(b.src, b.dst, b.key);
  });
  for (size_t i = 0; i < got.size(); ++i) {
    if (i > 0 && got[i].src == got[i - 1].src && got[i].dst == got[i - 1].dst) continue;  // the first is kept
    origin.push_back(got[i].key >= input_edges ? got[i].key - input_edges : got[i].key);
  }
  return origin;
}

std::vector<int64_t> PullOrigins(const Rank& r, const std::vector<int64_t>& held, const std::vector<Edge>& edges,
                                 int64_t batch) {
  std::vector<int64_t> first(r.size + 1, 0);  // rank q holds ids [first[q], first[q + 1])
  const int64_t mine = static_cast<int64_t>(held.size());
  MPI_Allgather(&mine, 1, MPI_INT64_T, first.data() + 1, 1, MPI_INT64_T, r.comm);
  for (int q = 0; q < r.size; ++q) first[q + 1] += first[q];
  struct Ask {
    int64_t id, slot;
    int32_t from;
  };
  struct Answer {
    int64_t slot, origin;
  };
  std::vector<Ask> asks;
  AllToAll<Ask>(r, static_cast<int64_t>(edges.size()), batch, [&](int64_t i, auto send) {
    const int q = static_cast<int>(std::upper_bound(first.begin(), first.end(), edges[i].id) - first.begin()) - 1;
    send(q, Ask{edges[i].id, i, r.rank});
  }, &asks);
  std::vector<Answer> answers;
  AllToAll<Answer>(r, static_cast<int64_t>(asks.size()), batch, [&](int64_t i, auto send) {
    send(asks[i].from, Answer{asks[i].slot, held[asks[i].id - first[r.rank]]});
  }, &answers);
  std::vector<int64_t> origin(edges.size(), -1);
  for (const Answer& a : answers) origin[a.slot] = a.origin;
  return origin;
}

Status WriteEdgeRows(const std::string& part_dir, const std::map<std::string, Array>& arrays, const int64_t* origin,
                     int64_t m) {
  if (arrays.empty()) return Status::OK();
  DG_RETURN_IF_ERROR(MakeDir(part_dir + "/edge_data"));
  constexpr int64_t kChunk = 1 << 16;  // rows gathered per append
  std::vector<char> buf;
  for (const auto& [name, a] : arrays) {
    std::vector<int64_t> shape = a.shape;
    shape[0] = m;
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open(part_dir + "/edge_data/" + name + ".npy", a.dtype, shape));
    const size_t rb = a.row_bytes();
    for (int64_t at = 0; at < m; at += kChunk) {
      const int64_t n = std::min(kChunk, m - at);
      buf.resize(static_cast<size_t>(n) * rb);
      GatherRowBytes(a.data, rb, origin + at, static_cast<size_t>(n), 0, buf.data(), nullptr);
      DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size()));
    }
    DG_RETURN_IF_ERROR(w.Finish());
  }
  return Status::OK();
}

}  // namespace dg::mpi
