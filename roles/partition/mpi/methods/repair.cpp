#include "roles/partition/mpi/methods/repair.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

namespace dg::mpi {

namespace {

struct Move {
  int from, to;
  int64_t amount;  // this rank's share
};

// This rank's share of moving `amount` off part p: split across ranks by
// their share of p's load (floor; the rest to the lowest ranks with room).
int64_t MyShare(const Rank& r, const std::vector<int64_t>& loads, int K, int p, int64_t amount, int64_t source) {
  int64_t given = 0;
  std::vector<int64_t> share(r.size);
  for (int k = 0; k < r.size; ++k) {
    share[k] = static_cast<int64_t>((static_cast<__int128>(amount) * loads[static_cast<size_t>(k) * K + p]) / source);
    given += share[k];
  }
  for (int k = 0; k < r.size && given < amount; ++k)
    if (share[k] < loads[static_cast<size_t>(k) * K + p]) ++share[k], ++given;
  return share[r.rank];
}

// The plan, identical on every rank; returns this rank's shares. First the
// parts above the cap give down to mean * (1 + tol / 2) to parts below the
// mean; then the parts below the floor take up to mean * (1 - tol / 2) from
// the parts above the mean (a part can be short without any being over,
// e.g. K = 3 with loads 1.04, 1.04, 0.92).
std::vector<Move> PlanMoves(const Rank& r, const std::vector<int64_t>& loads, int K, double tol) {
  const std::vector<int64_t> g0 = PartTotals(loads, K, r.size);
  std::vector<int64_t> g = g0;
  const double mean = std::accumulate(g.begin(), g.end(), 0.0) / K;
  const int64_t cap = static_cast<int64_t>(std::floor(mean * (1 + tol)));
  const int64_t goal = static_cast<int64_t>(std::ceil(mean * (1 + tol / 2)));
  const int64_t below = static_cast<int64_t>(std::floor(mean));
  std::vector<Move> mine;
  auto move = [&](int p, int q, int64_t amount) {
    const int64_t share = MyShare(r, loads, K, p, amount, g0[p]);
    if (share > 0) mine.push_back({p, q, share});
    g[p] -= amount;
    g[q] += amount;
  };
  int q = 0;
  for (int p = 0; p < K; ++p) {
    if (g[p] <= cap) continue;
    int64_t excess = g[p] - goal;
    for (; excess > 0 && q < K; ++q) {
      const int64_t room = below - g[q];
      if (room <= 0) continue;
      const int64_t amount = std::min(excess, room);
      move(p, q, amount);
      excess -= amount;
      if (g[q] < below) break;  // q has room left for the next part
    }
  }
  const int64_t floor_ = static_cast<int64_t>(std::ceil(mean * (1 - tol)));
  const int64_t want = static_cast<int64_t>(std::ceil(mean * (1 - tol / 2)));
  const int64_t above = static_cast<int64_t>(std::ceil(mean));
  for (int t = 0; t < K; ++t) {
    if (g[t] >= floor_) continue;
    for (int p = 0; p < K && g[t] < want; ++p) {
      const int64_t spare = g[p] - above;
      if (p == t || spare <= 0 || g0[p] <= 0) continue;
      move(p, t, std::min(want - g[t], spare));
    }
  }
  return mine;
}

// Block vertices, lowest degree first (ties by id).
std::vector<int64_t> CheapestFirst(const RepairInput& in) {
  std::vector<int64_t> order(in.degree->size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return (*in.degree)[a] < (*in.degree)[b]; });
  return order;
}

// Vertices fall into classes by node type and train flag. A move of nodes,
// or of one node type, takes from each class in proportion to its vertices
// in the source part on this rank, so it keeps the other measures' ratios
// (a move of cheap movies would otherwise take mostly train nodes).
int Class(const RepairInput& in, int64_t v) {
  const int train = in.train->empty() ? 0 : (*in.train)[v] != 0;
  return (Typed(in) ? 2 * (*in.node_type)[v] : 0) + train;
}

std::vector<int64_t> ClassQuotas(const RepairInput& in, Measure m, const std::vector<int32_t>& part, int from,
                                 int64_t amount) {
  std::vector<int64_t> have(static_cast<size_t>(2 * std::max(1, NumTypes(in))), 0), quota(have.size(), 0);
  for (size_t v = 0; v < part.size(); ++v)
    if (part[v] == from && MeasureValue(in, m, static_cast<int64_t>(v)) > 0) ++have[Class(in, static_cast<int64_t>(v))];
  const int64_t total = std::accumulate(have.begin(), have.end(), int64_t{0});
  if (total == 0) return quota;
  int64_t given = 0;
  for (size_t c = 0; c < have.size(); ++c)
    given += quota[c] = static_cast<int64_t>((static_cast<__int128>(amount) * have[c]) / total);
  for (size_t c = 0; c < have.size() && given < amount; ++c)
    if (quota[c] < have[c]) ++quota[c], ++given;
  return quota;
}

// What moving block vertex v from part `from` to `to` costs per unit of the
// measure moved: arcs into the source part are cut by the move, arcs into the
// target part stop being cut (2 a_from + a_others = added + degree >= 0).
double MoveCost(const RepairInput& in, Measure m, const std::vector<int64_t>& arcs, int K, int64_t v, int from,
                int to) {
  const int64_t added = arcs[v * K + from] - arcs[v * K + to] + (*in.degree)[v];
  return static_cast<double>(added) / static_cast<double>(MeasureValue(in, m, v));
}

// Moves this rank's share of one planned move: the vertices of the source
// part that count in the measure (node and type moves keep to the class
// quotas). With neighbour counts (arcs), the vertex whose move adds the
// fewest cut arcs per unit moved goes first, and the costs of its neighbours
// in the block follow it, so a move takes connected groups rather than
// scattered vertices; without them, the lowest degree first.
void ApplyMove(const RepairInput& in, Measure m, const Move& mv, std::vector<int64_t> arcs, int K,
               const std::vector<int64_t>& cheapest, std::vector<int32_t>* part) {
  std::vector<int64_t> quota;
  if (m.kind == MeasureKind::kNodes || m.kind == MeasureKind::kType) quota = ClassQuotas(in, m, *part, mv.from, mv.amount);
  int64_t moved = 0;
  auto take = [&](int64_t v) {  // moves v when it counts and its class has quota left
    if ((*part)[v] != mv.from || MeasureValue(in, m, v) == 0) return false;
    if (!quota.empty()) {
      int64_t& left = quota[Class(in, v)];
      if (left == 0) return false;
      --left;
    }
    (*part)[v] = mv.to;
    moved += MeasureValue(in, m, v);
    return true;
  };
  if (arcs.empty() || !in.adjacency) {
    for (size_t i = 0; i < cheapest.size() && moved < mv.amount; ++i) take(cheapest[i]);
    return;
  }
  struct Entry {
    double cost;
    int64_t v;
    bool operator<(const Entry& o) const { return cost != o.cost ? cost > o.cost : v > o.v; }  // cheapest on top
  };
  std::priority_queue<Entry> heap;
  for (size_t v = 0; v < part->size(); ++v)
    if ((*part)[v] == mv.from && MeasureValue(in, m, static_cast<int64_t>(v)) > 0)
      heap.push({MoveCost(in, m, arcs, K, static_cast<int64_t>(v), mv.from, mv.to), static_cast<int64_t>(v)});
  while (!heap.empty() && moved < mv.amount) {
    const Entry e = heap.top();
    heap.pop();
    if ((*part)[e.v] != mv.from || e.cost != MoveCost(in, m, arcs, K, e.v, mv.from, mv.to)) continue;  // stale
    if (!take(e.v)) continue;
    ShiftArcs(*in.adjacency, e.v, mv.from, mv.to, K, &arcs, [&](int64_t u) {
      if ((*part)[u] == mv.from && MeasureValue(in, m, u) > 0) heap.push({MoveCost(in, m, arcs, K, u, mv.from, mv.to), u});
    });
  }
}

// Repair order: in-edges and train nodes first, then each node type, and the
// node count last (its moves keep the types' proportions).
std::vector<Measure> Active(const RepairInput& in, const BalanceOptions& o) {
  std::vector<Measure> m;
  if (o.balance.edges) m.push_back({MeasureKind::kEdges});
  if (o.balance.train) m.push_back({MeasureKind::kTrain});
  for (int t = 0; t < NumTypes(in); ++t) m.push_back({MeasureKind::kType, t});
  m.push_back({MeasureKind::kNodes});
  return m;
}

}  // namespace

BalanceReport MeasureBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o,
                             const std::vector<int32_t>& part) {
  BalanceReport rep;
  for (Measure m : CheckedMeasures(in, o)) {
    rep.measure.push_back(MeasureName(in, m));
    rep.max_over_mean.push_back(MaxOverMean(PartTotals(GatherLoads(r, in, m, o.num_parts, part), o.num_parts, r.size)));
  }
  return rep;
}

void RepairBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part) {
  const int K = o.num_parts;
  if (K < 2) return;
  const std::vector<int64_t> cheapest = in.arcs_to_parts ? std::vector<int64_t>() : CheapestFirst(in);
  for (int sweep = 0; sweep < 3; ++sweep) {
    for (Measure m : Active(in, o)) {
      const std::vector<Move> moves = PlanMoves(r, GatherLoads(r, in, m, K, *part), K, Tolerance(o, m));
      // Collective: every rank counts, whether or not it has a share to move.
      const std::vector<int64_t> arcs = in.arcs_to_parts ? in.arcs_to_parts(*part) : std::vector<int64_t>();
      for (const Move& mv : moves) ApplyMove(in, m, mv, arcs, K, cheapest, part);
    }
  }
}

}  // namespace dg::mpi
