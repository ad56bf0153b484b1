#include "roles/partition/mpi/graph/adjacency.h"

#include <algorithm>

namespace dg::mpi {

namespace {

// Arc v -> u as one 64-bit key: v's offset in its owner's block in the high
// half, u in the low half (both below 2^31: the node count is checked against
// kMaxId first), so sorting the keys sorts the arcs by (v, u) at 8 bytes an
// arc.
uint64_t ArcKey(int64_t v_offset, int64_t u) { return (static_cast<uint64_t>(v_offset) << 32) | static_cast<uint64_t>(u); }

}  // namespace

std::vector<int64_t> InDegrees(const Rank& r, const VertexBlocks& blocks, const std::vector<Edge>& edges,
                               int64_t batch) {
  std::vector<int64_t> got;
  AllToAll<int64_t>(r, static_cast<int64_t>(edges.size()), batch,
                    [&](int64_t i, auto send) { send(blocks.Owner(edges[i].dst), edges[i].dst); }, &got);
  std::vector<int64_t> deg(static_cast<size_t>(blocks.Count(r.rank)), 0);
  for (int64_t v : got) ++deg[v - blocks.First(r.rank)];
  return deg;
}

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
    adj.edgeweights.push_back(static_cast<int32_t>(std::min<size_t>(end - k, kMaxId)));
    ++distinct;
    k = end;
  }
  got.resize(distinct);
  const int64_t n = blocks.Count(r.rank);
  adj.vertloctab.assign(static_cast<size_t>(n) + 1, 0);
  adj.edgeloctab.resize(got.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ++adj.vertloctab[(got[k] >> 32) + 1];
    adj.edgeloctab[k] = static_cast<int32_t>(got[k] & 0xffffffffu);
  }
  for (int64_t v = 0; v < n; ++v) adj.vertloctab[v + 1] += adj.vertloctab[v];
  return adj;
}

BlockAdjacency View(const LocalAdjacency& adj, int64_t first, const std::vector<int64_t>* starts) {
  return BlockAdjacency{adj.vertloctab.data(), adj.edgeloctab.data(), static_cast<int64_t>(adj.vertloctab.size()) - 1,
                        first, starts, adj.edgeweights.data()};
}

}  // namespace dg::mpi
