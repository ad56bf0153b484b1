#include "roles/partition/mpi/mpi_refine.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dg::mpi {
namespace {

// Bits that tell parts 0 .. K-1 apart.
int PartBits(int K) {
  int bits = 0;
  while ((1 << bits) < K) ++bits;
  return bits;
}

// Round t moves from the parts whose bit (t / 2) % bits equals t % 2 to the others.
bool IsSource(int p, int round, int bits) { return ((p >> ((round / 2) % bits)) & 1) == (round % 2); }

// Cut edges under the assignment whose neighbour counts are `arcs` (collective).
int64_t CutEdges(const Rank& r, const RepairInput& in, const std::vector<int32_t>& part,
                 const std::vector<int32_t>& arcs, int K) {
  int64_t mine = 0, all = 0;
  for (size_t v = 0; v < part.size(); ++v) mine += (*in.degree)[v] - arcs[v * K + part[v]];
  MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, r.comm);
  return all / 2;
}

// This rank's room under each measure: into part q (room[m * K + q], 1/P of
// the room below the cap) and out of part p (give[m * K + p], 1/P of the load
// above the floor). Collective.
struct Budget {
  std::vector<int64_t> room, give;
};

Budget RankBudget(const Rank& r, const RepairInput& in, const BalanceOptions& o, const std::vector<Measure>& measures,
                  const std::vector<int32_t>& part) {
  const int K = o.num_parts;
  Budget b;
  b.room.assign(measures.size() * K, 0);
  b.give.assign(measures.size() * K, 0);
  for (size_t i = 0; i < measures.size(); ++i) {
    const std::vector<int64_t> g = PartTotals(GatherLoads(r, in, measures[i], K, part), K, r.size);
    const double mean = std::accumulate(g.begin(), g.end(), 0.0) / K, tol = Tolerance(o, measures[i]);
    const int64_t cap = static_cast<int64_t>(std::floor(mean * (1 + tol)));
    const int64_t floor_ = static_cast<int64_t>(std::ceil(mean * (1 - tol)));
    for (int p = 0; p < K; ++p) {
      b.room[i * K + p] = std::max<int64_t>(0, cap - g[p]) / r.size;
      b.give[i * K + p] = std::max<int64_t>(0, g[p] - floor_) / r.size;
    }
  }
  return b;
}

struct Candidate {
  int32_t gain, to;
  int64_t v;
};

// Vertices of this round's source parts whose move to a sink part cuts fewer
// arcs, best gain first (ties by id).
std::vector<Candidate> Candidates(const std::vector<int32_t>& part, const std::vector<int32_t>& arcs, int K, int round,
                                  int bits) {
  std::vector<Candidate> c;
  for (size_t v = 0; v < part.size(); ++v) {
    const int p = part[v];
    if (!IsSource(p, round, bits)) continue;
    int best = -1;
    for (int q = 0; q < K; ++q)
      if (!IsSource(q, round, bits) && (best < 0 || arcs[v * K + q] > arcs[v * K + best])) best = q;
    if (best < 0) continue;
    const int32_t gain = arcs[v * K + best] - arcs[v * K + p];
    if (gain > 0) c.push_back({gain, best, static_cast<int64_t>(v)});
  }
  std::sort(c.begin(), c.end(),
            [](const Candidate& a, const Candidate& b) { return a.gain != b.gain ? a.gain > b.gain : a.v < b.v; });
  return c;
}

// Moves the candidates that fit the budget under every measure; returns the moves.
int64_t MoveWithinBudget(const RepairInput& in, const std::vector<Measure>& measures, int K,
                         const std::vector<Candidate>& candidates, Budget* b, std::vector<int32_t>* part) {
  int64_t moves = 0;
  std::vector<int64_t> x(measures.size());
  for (const Candidate& c : candidates) {
    const int p = (*part)[c.v];
    bool fits = true;
    for (size_t i = 0; i < measures.size() && fits; ++i) {
      x[i] = MeasureValue(in, measures[i], c.v);
      fits = x[i] <= b->room[i * K + c.to] && x[i] <= b->give[i * K + p];
    }
    if (!fits) continue;
    for (size_t i = 0; i < measures.size(); ++i) {
      b->room[i * K + c.to] -= x[i];
      b->give[i * K + p] -= x[i];
    }
    (*part)[c.v] = c.to;
    ++moves;
  }
  return moves;
}

}  // namespace

RefineReport RefineCut(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part,
                       int max_rounds) {
  RefineReport rep;
  const int K = o.num_parts;
  if (K < 2 || !in.arcs_to_parts) return rep;
  const std::vector<Measure> measures = CheckedMeasures(in, o);
  const int bits = PartBits(K), cycle = 2 * bits;
  int64_t cycle_start_cut = 0;
  for (int round = 0;; ++round) {
    const std::vector<int32_t> arcs = in.arcs_to_parts(*part);  // collective, as is every step below
    const int64_t cut = CutEdges(r, in, *part, arcs, K);
    if (round == 0) rep.cut_before = cycle_start_cut = cut;
    rep.cut_after = cut;
    if (round > 0 && round % cycle == 0) {
      if (static_cast<double>(cycle_start_cut - cut) < 0.005 * static_cast<double>(cycle_start_cut)) break;
      cycle_start_cut = cut;
    }
    if (round == max_rounds) break;
    Budget budget = RankBudget(r, in, o, measures, *part);
    const int64_t mine = MoveWithinBudget(in, measures, K, Candidates(*part, arcs, K, round, bits), &budget, part);
    int64_t moves = 0;
    MPI_Allreduce(&mine, &moves, 1, MPI_INT64_T, MPI_SUM, r.comm);
    rep.moved += moves;
    rep.rounds = round + 1;
  }
  return rep;
}

}  // namespace dg::mpi
