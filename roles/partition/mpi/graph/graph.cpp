#include "roles/partition/mpi/graph/graph.h"

#include <mpi.h>

#include <algorithm>

#include "common/storage/neighbor_sampling.h"

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

void SortUnique(std::vector<Pair>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

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

}  // namespace dg::mpi
