#include "roles/partition/mpi/mpi_repair.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dg::mpi {

namespace {

enum Measure { kNodes, kTrain, kEdges };

int64_t Value(const RepairInput& in, Measure m, int64_t v) {
  switch (m) {
    case kNodes: return 1;
    case kTrain: return in.train->empty() ? 0 : (*in.train)[v];
    case kEdges: return (*in.in_degree)[v];
  }
  return 0;
}

// loads[r * K + p]: rank r's load of part p.
std::vector<int64_t> GatherLoads(const Rank& r, const RepairInput& in, Measure m, int K,
                                 const std::vector<int32_t>& part) {
  std::vector<int64_t> mine(K, 0), all(static_cast<size_t>(K) * r.size);
  for (size_t v = 0; v < part.size(); ++v) mine[part[v]] += Value(in, m, static_cast<int64_t>(v));
  MPI_Allgather(mine.data(), K, MPI_INT64_T, all.data(), K, MPI_INT64_T, r.comm);
  return all;
}

std::vector<int64_t> PartTotals(const std::vector<int64_t>& loads, int K, int P) {
  std::vector<int64_t> g(K, 0);
  for (int q = 0; q < P; ++q)
    for (int p = 0; p < K; ++p) g[p] += loads[static_cast<size_t>(q) * K + p];
  return g;
}

double MaxOverMean(const std::vector<int64_t>& g) {
  const double sum = std::accumulate(g.begin(), g.end(), 0.0);
  if (sum <= 0) return 1.0;
  return *std::max_element(g.begin(), g.end()) / (sum / g.size());
}

struct Move {
  int from, to;
  int64_t amount;  // this rank's share
};

// The plan, identical on every rank; returns this rank's shares.
std::vector<Move> PlanMoves(const Rank& r, const std::vector<int64_t>& loads, int K, double tol) {
  std::vector<int64_t> g = PartTotals(loads, K, r.size);
  const double mean = std::accumulate(g.begin(), g.end(), 0.0) / K;
  const int64_t cap = static_cast<int64_t>(std::floor(mean * (1 + tol)));
  const int64_t goal = static_cast<int64_t>(std::ceil(mean * (1 + tol / 2)));
  std::vector<Move> mine;
  int q = 0;
  for (int p = 0; p < K; ++p) {
    if (g[p] <= cap) continue;
    int64_t excess = g[p] - goal;
    const int64_t source = g[p];
    for (; excess > 0 && q < K; ++q) {
      const int64_t room = static_cast<int64_t>(std::floor(mean)) - g[q];
      if (room <= 0) continue;
      const int64_t amount = std::min(excess, room);
      // Split across ranks by their share of part p (floor; the rest to the lowest ranks).
      int64_t given = 0, share_mine = 0;
      std::vector<int64_t> share(r.size);
      for (int k = 0; k < r.size; ++k) {
        share[k] = static_cast<int64_t>((static_cast<__int128>(amount) * loads[static_cast<size_t>(k) * K + p]) / source);
        given += share[k];
      }
      for (int k = 0; k < r.size && given < amount; ++k)
        if (share[k] < loads[static_cast<size_t>(k) * K + p]) ++share[k], ++given;
      share_mine = share[r.rank];
      if (share_mine > 0) mine.push_back({p, q, share_mine});
      g[p] -= amount;
      g[q] += amount;
      excess -= amount;
      if (g[q] < static_cast<int64_t>(std::floor(mean))) break;  // q has room left for the next part
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

std::vector<Measure> Active(const BalanceOptions& o) {
  std::vector<Measure> m;
  if (o.balance_edges) m.push_back(kEdges);
  if (o.balance_train) m.push_back(kTrain);
  m.push_back(kNodes);
  return m;
}

const char* Name(Measure m) { return m == kNodes ? "nodes" : m == kTrain ? "train" : "edges"; }

}  // namespace

BalanceReport MeasureBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o,
                             const std::vector<int32_t>& part) {
  BalanceReport rep;
  for (Measure m : {kNodes, kTrain, kEdges}) {
    if (m == kTrain && !o.balance_train) continue;
    if (m == kEdges && !o.balance_edges) continue;
    rep.measure.push_back(Name(m));
    rep.max_over_mean.push_back(MaxOverMean(PartTotals(GatherLoads(r, in, m, o.num_parts, part), o.num_parts, r.size)));
  }
  return rep;
}

BalanceReport RepairBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part) {
  const int K = o.num_parts;
  if (K > 1) {
    const std::vector<int64_t> order = CheapestFirst(in);
    for (int sweep = 0; sweep < 2; ++sweep) {
      for (Measure m : Active(o)) {
        const std::vector<Move> moves = PlanMoves(r, GatherLoads(r, in, m, K, *part), K, o.tolerance);
        for (const Move& mv : moves) {
          int64_t moved = 0;
          for (size_t i = 0; i < order.size() && moved < mv.amount; ++i) {
            const int64_t v = order[i];
            const int64_t x = Value(in, m, v);
            if ((*part)[v] != mv.from || x == 0) continue;
            (*part)[v] = mv.to;
            moved += x;
          }
        }
      }
    }
  }
  return MeasureBalance(r, in, o, *part);
}

}  // namespace dg::mpi
