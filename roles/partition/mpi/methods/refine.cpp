#include "roles/partition/mpi/methods/refine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <queue>

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
                 const std::vector<int64_t>& arcs, int K) {
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

// A pass of Fiduccia-Mattheyses moves between the two sides of one round
// over this rank's block, with the neighbours on other ranks held where they
// are. Each side keeps its vertices that have a neighbour across in a queue
// by gain (the arcs the move uncuts less those it cuts, which may be
// negative); the pass takes the better of the two queues' best moves that
// stays within the budget plus its slack, so a move one way can wait for the
// moves the other way that make room for it. Once past the budget itself,
// moves go only the way that leads back into it. The gains of a moved
// vertex's neighbours in the block follow it; each vertex moves once. The
// pass stops after `patience` moves without a better prefix within the
// budget, and undoes the moves after the best one. Returns the moves kept.
class FmPass {
 public:
  FmPass(const RepairInput& in, const BlockAdjacency& adj, const std::vector<Measure>& measures, int K, int round,
         int bits, const Budget& b, std::vector<int64_t> arcs, std::vector<int32_t>* part)
      : in_(in), adj_(adj), measures_(measures), K_(K), round_(round), bits_(bits), b_(b), arcs_(std::move(arcs)),
        part_(*part), net_(measures.size() * K, 0), x_(measures.size()), out_(K, 0), locked_(part->size(), 0) {}

  int64_t Run(int64_t patience) {
    for (int64_t v = 0; v < adj_.num_vertices; ++v) Push(v);
    while (static_cast<int64_t>(moves_.size()) - best_len_ <= patience) {
      const int only = outside_ > 0 ? (Pressure(0) >= Pressure(1) ? 0 : 1) : -1;  // the way back into the budget
      int d = -1;
      for (int side : {0, 1}) {
        Drop(side);
        if (heap_[side].empty() || (only >= 0 && side != only) || !Fits(heap_[side].top())) continue;
        if (d < 0 || heap_[d].top() < heap_[side].top()) d = side;
      }
      if (d < 0) {  // no move fits: give up the best one that does not
        const int skip = only >= 0 ? only : Best();
        if (skip < 0 || heap_[skip].empty()) break;
        heap_[skip].pop();
        continue;
      }
      const Entry e = heap_[d].top();
      heap_[d].pop();
      Move(e.v, e.to, e.gain);
    }
    for (size_t k = moves_.size(); k > static_cast<size_t>(best_len_); --k) part_[moves_[k - 1].v] = moves_[k - 1].from;
    return best_len_;
  }

 private:
  struct Entry {
    int64_t gain;
    int32_t to;
    int64_t v;
    bool operator<(const Entry& o) const { return gain != o.gain ? gain < o.gain : v > o.v; }
  };
  struct Done {
    int64_t v;
    int32_t from;
  };

  int64_t Gain(int64_t v, int q) const { return arcs_[v * K_ + q] - arcs_[v * K_ + part_[v]]; }

  // Queues v's move to its best part across, when v has a neighbour there.
  void Push(int64_t v) {
    const int p = part_[v];
    int best = -1;
    for (int q = 0; q < K_; ++q)
      if (Side(q, round_, bits_) != Side(p, round_, bits_) && (best < 0 || arcs_[v * K_ + q] > arcs_[v * K_ + best]))
        best = q;
    if (best >= 0 && arcs_[v * K_ + best] > 0) heap_[Side(p, round_, bits_)].push({Gain(v, best), best, v});
  }

  // The side whose queue holds the better move (-1: both are empty).
  int Best() const {
    if (heap_[0].empty()) return heap_[1].empty() ? -1 : 1;
    return heap_[1].empty() || heap_[1].top() < heap_[0].top() ? 0 : 1;
  }

  // Pops moved vertices and stale gains off the top of a side's queue.
  void Drop(int side) {
    while (!heap_[side].empty()) {
      const Entry& e = heap_[side].top();
      if (!locked_[e.v] && e.gain == Gain(e.v, e.to)) return;
      heap_[side].pop();
    }
  }

  bool Within(int p, bool with_slack) const {
    for (size_t i = 0; i < measures_.size(); ++i) {
      const int64_t s = with_slack ? b_.slack[i] : 0, n = net_[i * K_ + p];
      if (n > b_.room[i * K_ + p] + s || -n > b_.give[i * K_ + p] + s) return false;
    }
    return true;
  }

  // How far the parts are past the budget in ways that moves out of `side`
  // mend: over the room on that side, or over the give on the other.
  double Pressure(int side) const {
    double out = 0;
    for (int p = 0; p < K_; ++p)
      for (size_t i = 0; i < measures_.size(); ++i) {
        const double n = static_cast<double>(net_[i * K_ + p]), s = std::max<double>(1, b_.slack[i]);
        out += Side(p, round_, bits_) == side ? std::max(0.0, n - b_.room[i * K_ + p]) / s
                                               : std::max(0.0, -n - b_.give[i * K_ + p]) / s;
      }
    return out;
  }

  void Count(int64_t v, int from, int to) {
    for (size_t i = 0; i < measures_.size(); ++i) x_[i] = MeasureValue(in_, measures_[i], v);
    for (size_t i = 0; i < measures_.size(); ++i) net_[i * K_ + from] -= x_[i], net_[i * K_ + to] += x_[i];
  }

  // Whether e's move keeps both parts within budget and slack.
  bool Fits(const Entry& e) {
    const int p = part_[e.v];
    Count(e.v, p, e.to);
    const bool fits = Within(p, true) && Within(e.to, true);
    Count(e.v, e.to, p);
    return fits;
  }

  void Move(int64_t v, int q, int64_t gain) {
    const int p = part_[v];
    Count(v, p, q);
    part_[v] = q;
    locked_[v] = 1;
    moves_.push_back({v, p});
    gain_ += gain;
    for (int part : {p, q}) {
      const char now = !Within(part, false);
      outside_ += now - out_[part];
      out_[part] = now;
    }
    if (outside_ == 0 && gain_ > best_gain_) best_gain_ = gain_, best_len_ = static_cast<int64_t>(moves_.size());
    ShiftArcs(adj_, v, p, q, K_, &arcs_, [&](int64_t u) {
      if (!locked_[u]) Push(u);
    });
  }

  const RepairInput& in_;
  const BlockAdjacency& adj_;
  const std::vector<Measure>& measures_;
  const int K_, round_, bits_;
  const Budget& b_;
  std::vector<int64_t> arcs_;
  std::vector<int32_t>& part_;
  std::vector<int64_t> net_, x_;
  std::vector<char> out_, locked_;
  int outside_ = 0;  // parts outside the budget itself
  std::priority_queue<Entry> heap_[2];  // by the side moved from
  std::vector<Done> moves_;
  int64_t gain_ = 0, best_gain_ = 0, best_len_ = 0;
};

}  // namespace

int64_t EdgeCut(const Rank& r, const RepairInput& in, const std::vector<int32_t>& part, int K) {
  return CutEdges(r, in, part, in.arcs_to_parts(part), K);
}

RefineReport RefineCut(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part,
                       int max_rounds) {
  RefineReport rep;
  const int K = o.num_parts;
  if (K < 2 || !in.arcs_to_parts || !in.adjacency) return rep;
  const BlockAdjacency& adj = *in.adjacency;
  const std::vector<Measure> measures = CheckedMeasures(in, o);
  const int bits = PartBits(K);
  int64_t cycle_start_cut = 0;
  std::vector<int32_t> before;  // the parts before the last round's moves
  int64_t last_moves = 0;
  for (int round = 0;; ++round) {
    const std::vector<int64_t> arcs = in.arcs_to_parts(*part);  // collective, as is every step below
    const int64_t cut = CutEdges(r, in, *part, arcs, K);
    if (round == 0) rep.cut_before = cycle_start_cut = cut;
    if (round > 0 && cut > rep.cut_after) {  // moves on two ranks can meet across an arc: undo a round that lost
      *part = std::move(before);
      rep.moved -= last_moves;
      rep.rounds = round - 1;
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
    const int64_t patience = std::clamp<int64_t>(adj.num_vertices / 100, 64, 4096);
    const int64_t mine = FmPass(in, adj, measures, K, round, bits, budget, arcs, part).Run(patience);
    int64_t moves = 0;
    MPI_Allreduce(&mine, &moves, 1, MPI_INT64_T, MPI_SUM, r.comm);
    rep.moved += moves;
    last_moves = moves;
    rep.rounds = round + 1;
  }
  return rep;
}

}  // namespace dg::mpi
