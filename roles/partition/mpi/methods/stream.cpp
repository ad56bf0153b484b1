#include "roles/partition/mpi/methods/stream.h"

#include <mpi.h>

#include <algorithm>

#include "common/storage/neighbor_sampling.h"
#include "roles/partition/permutation.h"

namespace dg::mpi {
namespace {

// The parts' loads as a rank sees them within a slice: every rank's at the
// slice's start, and this rank's own additions since, counted P times.
class PartLoads {
 public:
  PartLoads(const Rank& r, const BlockLoads& x, int K, double tolerance)
      : r_(r), M_(x.M()), K_(K), mine_(static_cast<size_t>(M_) * K_, 0), start_(mine_), all_(mine_) {
    for (int64_t total : x.total) capacity_.push_back(std::max(1.0, static_cast<double>(total) / K_ * (1 + tolerance)));
  }

  // Sums every rank's loads: the start of a slice (collective).
  void Exchange() {
    MPI_Allreduce(mine_.data(), all_.data(), M_ * K_, MPI_INT64_T, MPI_SUM, r_.comm);
    start_ = mine_;
  }

  // How full part q would be with `add` in it: its fullest measure's load over capacity.
  double Fullness(int q, const int64_t* add) const {
    double most = 0;
    for (int i = 0; i < M_; ++i) {
      const size_t j = static_cast<size_t>(i) * K_ + q;
      const int64_t seen = all_[j] + static_cast<int64_t>(r_.size) * (mine_[j] - start_[j]);
      most = std::max(most, static_cast<double>(seen + add[i]) / capacity_[i]);
    }
    return most;
  }

  void Add(int q, const int64_t* add, int sign = 1) {
    for (int i = 0; i < M_; ++i) mine_[static_cast<size_t>(i) * K_ + q] += sign * add[i];
  }

 private:
  const Rank& r_;
  const int M_, K_;
  std::vector<int64_t> mine_, start_, all_;  // [i * K + q]
  std::vector<double> capacity_;
};

// LDG's choice for vertex v: the most arcs into a part times its room left,
// among the parts it fits; the least full part when it fits none (or has no
// arcs into any part that has room).
int Choose(const BlockAdjacency& g, int64_t v, const NeighborValues& part_of, const PartLoads& loads,
           const int64_t* add, std::vector<int64_t>* arcs) {
  const int K = static_cast<int>(arcs->size());
  std::fill(arcs->begin(), arcs->end(), 0);
  for (int64_t k = g.index[v]; k < g.index[v + 1]; ++k) {
    const int32_t p = part_of(g.nbr[k]);
    if (p >= 0) (*arcs)[p] += ArcWeight(g, k);
  }
  int best = 0;
  double best_score = -1, best_full = 0;
  for (int q = 0; q < K; ++q) {
    const double full = loads.Fullness(q, add);
    const double score = full <= 1 ? static_cast<double>((*arcs)[q]) * (1 - full) : -1;
    if (q == 0 || score > best_score || (score == best_score && full < best_full))
      best = q, best_score = score, best_full = full;
  }
  return best;
}

}  // namespace

std::vector<int32_t> StreamParts(const Rank& r, const RepairInput& in, const BlockLoads& x,
                                 const BalanceOptions& bo, const VertexStreamOptions& o) {
  const BlockAdjacency& g = *in.adjacency;
  const int64_t n = g.num_vertices, M = x.M();
  std::vector<int32_t> part(static_cast<size_t>(n), -1);
  const std::vector<int64_t> order = Permutation(n, MixSeed(o.seed, static_cast<uint64_t>(g.first) ^ 0x57EA));
  PartLoads loads(r, x, bo.num_parts, 0.75 * bo.tolerance);
  NeighborValues part_of(r, g, part, o.batch);  // reads `part` live for this rank's block
  std::vector<int64_t> arcs(static_cast<size_t>(bo.num_parts));
  for (int pass = 0; pass < o.passes; ++pass)
    for (int t = 0; t < o.rounds; ++t) {
      if (pass + t > 0) part_of.Refresh(r, o.batch);
      loads.Exchange();
      const int64_t lo = n * t / o.rounds, hi = n * (t + 1) / o.rounds;
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t v = order[i];
        const int64_t* add = &x.value[static_cast<size_t>(v) * M];
        if (part[v] >= 0) loads.Add(part[v], add, -1);  // a later pass: out of its part, then placed again
        part[v] = Choose(g, v, part_of, loads, add, &arcs);
        loads.Add(part[v], add);
      }
    }
  return part;
}

}  // namespace dg::mpi
