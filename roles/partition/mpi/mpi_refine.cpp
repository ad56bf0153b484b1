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

// Round t pairs the parts whose bit t % bits is 0 with those whose bit is 1.
int Side(int p, int round, int bits) { return (p >> (round % bits)) & 1; }

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
// above the floor), and how far a pass may run past them before it must come
// back (slack[m], 1/P of the tolerance band). Collective.
struct Budget {
  std::vector<int64_t> room, give, slack;
};

Budget RankBudget(const Rank& r, const RepairInput& in, const BalanceOptions& o, const std::vector<Measure>& measures,
                  const std::vector<int32_t>& part) {
  const int K = o.num_parts;
  Budget b;
  b.room.assign(measures.size() * K, 0);
  b.give.assign(measures.size() * K, 0);
  b.slack.assign(measures.size(), 0);
  for (size_t i = 0; i < measures.size(); ++i) {
    const std::vector<int64_t> g = PartTotals(GatherLoads(r, in, measures[i], K, part), K, r.size);
    const double mean = std::accumulate(g.begin(), g.end(), 0.0) / K, tol = Tolerance(o, measures[i]);
    const int64_t cap = static_cast<int64_t>(std::floor(mean * (1 + tol)));
    const int64_t floor_ = static_cast<int64_t>(std::ceil(mean * (1 - tol)));
    for (int p = 0; p < K; ++p) {
      b.room[i * K + p] = std::max<int64_t>(0, cap - g[p]) / r.size;
      b.give[i * K + p] = std::max<int64_t>(0, g[p] - floor_) / r.size;
    }
    b.slack[i] = static_cast<int64_t>(mean * tol) / r.size;
  }
  return b;
}

struct Candidate {
  int32_t gain, from, to;
  int64_t v;
};

// Vertices whose move to a part on the other side of this round cuts fewer
// arcs (to the part holding most of their neighbours), best gain first, ties by id.
std::vector<Candidate> Candidates(const std::vector<int32_t>& part, const std::vector<int32_t>& arcs, int K, int round,
                                  int bits) {
  std::vector<Candidate> c;
  for (size_t v = 0; v < part.size(); ++v) {
    const int p = part[v];
    int best = -1;
    for (int q = 0; q < K; ++q)
      if (Side(q, round, bits) != Side(p, round, bits) && (best < 0 || arcs[v * K + q] > arcs[v * K + best])) best = q;
    if (best < 0) continue;
    const int32_t gain = arcs[v * K + best] - arcs[v * K + p];
    if (gain > 0) c.push_back({gain, p, best, static_cast<int64_t>(v)});
  }
  std::sort(c.begin(), c.end(),
            [](const Candidate& a, const Candidate& b) { return a.gain != b.gain ? a.gain > b.gain : a.v < b.v; });
  return c;
}

// One pass over the candidates, FM-style: a move is taken while every part's
// net inflow of every measure stays within the budget plus its slack (so a
// move one way can wait for the moves the other way that make room for it);
// then the moves after the best prefix within the budget itself are undone.
// Returns the moves kept.
int64_t MoveWithinBudget(const RepairInput& in, const std::vector<Measure>& measures, int K,
                         const std::vector<Candidate>& candidates, const Budget& b, std::vector<int32_t>* part) {
  const size_t M = measures.size();
  std::vector<int64_t> net(M * K, 0), x(M);
  auto within = [&](int p, bool with_slack) {
    for (size_t i = 0; i < M; ++i) {
      const int64_t s = with_slack ? b.slack[i] : 0;
      if (net[i * K + p] > b.room[i * K + p] + s || -net[i * K + p] > b.give[i * K + p] + s) return false;
    }
    return true;
  };
  std::vector<const Candidate*> taken;
  size_t best_len = 0;
  int64_t gain = 0, best_gain = 0;
  int outside = 0;  // parts outside the budget itself
  std::vector<char> out(K, 0);
  for (const Candidate& c : candidates) {
    for (size_t i = 0; i < M; ++i) x[i] = MeasureValue(in, measures[i], c.v);
    for (size_t i = 0; i < M; ++i) net[i * K + c.from] -= x[i], net[i * K + c.to] += x[i];
    if (!within(c.from, true) || !within(c.to, true)) {
      for (size_t i = 0; i < M; ++i) net[i * K + c.from] += x[i], net[i * K + c.to] -= x[i];
      continue;
    }
    taken.push_back(&c);
    gain += c.gain;
    for (int p : {c.from, c.to}) {
      const char now = !within(p, false);
      outside += now - out[p];
      out[p] = now;
    }
    if (outside == 0 && gain > best_gain) best_gain = gain, best_len = taken.size();
  }
  for (size_t k = 0; k < best_len; ++k) (*part)[taken[k]->v] = taken[k]->to;
  return static_cast<int64_t>(best_len);
}

}  // namespace

RefineReport RefineCut(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part,
                       int max_rounds) {
  RefineReport rep;
  const int K = o.num_parts;
  if (K < 2 || !in.arcs_to_parts) return rep;
  const std::vector<Measure> measures = CheckedMeasures(in, o);
  const int bits = PartBits(K);
  int64_t cycle_start_cut = 0;
  std::vector<int32_t> before;  // the parts before the last round's moves
  int64_t last_moves = 0;
  for (int round = 0;; ++round) {
    const std::vector<int32_t> arcs = in.arcs_to_parts(*part);  // collective, as is every step below
    const int64_t cut = CutEdges(r, in, *part, arcs, K);
    if (round == 0) rep.cut_before = cycle_start_cut = cut;
    if (round > 0 && cut > rep.cut_after) {  // moves both ways can meet across an arc: undo a round that lost
      *part = std::move(before);
      rep.moved -= last_moves;
      break;
    }
    rep.cut_after = cut;
    if (round > 0 && round % bits == 0) {
      if (static_cast<double>(cycle_start_cut - cut) < 0.005 * static_cast<double>(cycle_start_cut)) break;
      cycle_start_cut = cut;
    }
    if (round == max_rounds) break;
    const Budget budget = RankBudget(r, in, o, measures, *part);
    before = *part;
    const int64_t mine = MoveWithinBudget(in, measures, K, Candidates(*part, arcs, K, round, bits), budget, part);
    int64_t moves = 0;
    MPI_Allreduce(&mine, &moves, 1, MPI_INT64_T, MPI_SUM, r.comm);
    rep.moved += moves;
    last_moves = moves;
    rep.rounds = round + 1;
  }
  return rep;
}

}  // namespace dg::mpi
