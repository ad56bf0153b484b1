#include "roles/partition/mpi/methods/linked_graph.h"

namespace dg::mpi {

LinkedGraph LinkVertices(const Rank& r, const BlockAdjacency& adj, const std::vector<int32_t>& weights,
                         int64_t batch) {
  const int64_t n = adj.num_vertices;
  LinkedGraph g;
  for (int64_t v = 0; v < n; ++v)
    if (adj.index[v + 1] > adj.index[v]) g.local.push_back(v);
  const int64_t mine = static_cast<int64_t>(g.local.size());
  const int64_t first = ExclusiveScan(r, mine);
  std::vector<int32_t> id(static_cast<size_t>(n), -1);  // new global id of each block vertex
  for (int64_t i = 0; i < mine; ++i) id[g.local[i]] = static_cast<int32_t>(first + i);
  const NeighborValues new_id(r, adj, id, batch);
  g.vertloctab.reserve(static_cast<size_t>(mine) + 1);
  g.vertloctab.push_back(0);
  g.edgeloctab.reserve(static_cast<size_t>(adj.index[n]));
  g.edge_weights.reserve(static_cast<size_t>(adj.index[n]));
  g.weights.reserve(static_cast<size_t>(mine));
  for (int64_t v : g.local) {
    for (int64_t k = adj.index[v]; k < adj.index[v + 1]; ++k) {
      g.edgeloctab.push_back(new_id(adj.nbr[k]));
      g.edge_weights.push_back(ArcWeight(adj, k));
    }
    g.vertloctab.push_back(static_cast<int32_t>(g.edgeloctab.size()));
    g.weights.push_back(weights[v]);
  }
  return g;
}

std::vector<int32_t> PlaceAll(const LinkedGraph& g, const std::vector<int32_t>& linked_part,
                              const BlockAdjacency& adj, int K) {
  std::vector<int32_t> part(static_cast<size_t>(adj.num_vertices));
  for (int64_t v = 0; v < adj.num_vertices; ++v) part[v] = static_cast<int32_t>((adj.first + v) % K);
  for (size_t i = 0; i < g.local.size(); ++i) part[g.local[i]] = linked_part[i];
  return part;
}

}  // namespace dg::mpi
