#include "roles/partition/mpi/graph/neighbor_parts.h"

#include <algorithm>

namespace dg::mpi {

namespace {

int OwnerOf(const std::vector<int64_t>& starts, int64_t v) {
  return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), v) - starts.begin()) - 1;
}

// Distinct neighbours of the block that other ranks own, sorted.
std::vector<int64_t> Ghosts(const BlockAdjacency& adj) {
  const int64_t end = adj.first + adj.num_vertices;
  std::vector<int64_t> g;
  for (int64_t k = 0; k < adj.index[adj.num_vertices]; ++k)
    if (adj.nbr[k] < adj.first || adj.nbr[k] >= end) g.push_back(adj.nbr[k]);
  std::sort(g.begin(), g.end());
  g.erase(std::unique(g.begin(), g.end()), g.end());
  return g;
}

}  // namespace

// Which of the block's vertices each other rank asks for (collective).
std::vector<NeighborValues::Ask> NeighborValues::AskOwners(const Rank& r, int64_t batch) const {
  std::vector<Ask> asks;
  AllToAll<Ask>(r, static_cast<int64_t>(ghosts_.size()), batch, [&](int64_t i, auto send) {
    send(OwnerOf(*adj_.block_starts, ghosts_[i]), Ask{ghosts_[i], i, r.rank});
  }, &asks);
  return asks;
}

// values[v] of each ghost, answered by its owner (collective).
std::vector<int32_t> NeighborValues::Answers(const Rank& r, int64_t batch) const {
  struct Answer {
    int32_t slot;  // ghosts are fewer than the block's arcs, which count in 32 bits
    int32_t value;
  };
  std::vector<Answer> answers;
  AllToAll<Answer>(r, static_cast<int64_t>(asks_.size()), batch, [&](int64_t i, auto send) {
    send(asks_[i].from, Answer{static_cast<int32_t>(asks_[i].slot), values_[asks_[i].vertex - adj_.first]});
  }, &answers);
  std::vector<int32_t> out(ghosts_.size(), 0);
  for (const Answer& a : answers) out[a.slot] = a.value;
  return out;
}

NeighborValues::NeighborValues(const Rank& r, const BlockAdjacency& adj, const std::vector<int32_t>& values,
                               int64_t batch)
    : adj_(adj), values_(values), ghosts_(Ghosts(adj)), asks_(AskOwners(r, batch)), ghost_values_(Answers(r, batch)) {}

void NeighborValues::Refresh(const Rank& r, int64_t batch) { ghost_values_ = Answers(r, batch); }

std::vector<int64_t> ArcsToParts(const Rank& r, const BlockAdjacency& adj, const std::vector<int32_t>& part, int K,
                                 int64_t batch) {
  const NeighborValues part_of(r, adj, part, batch);
  std::vector<int64_t> out(static_cast<size_t>(adj.num_vertices) * K, 0);
  for (int64_t v = 0; v < adj.num_vertices; ++v)
    for (int64_t k = adj.index[v]; k < adj.index[v + 1]; ++k)
      out[static_cast<size_t>(v) * K + part_of(adj.nbr[k])] += ArcWeight(adj, k);
  return out;
}

}  // namespace dg::mpi
