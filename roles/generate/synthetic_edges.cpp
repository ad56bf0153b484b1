#include "roles/generate/synthetic_edges.h"

#include <limits>
#include <random>

#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"

namespace dg {

namespace {

constexpr int64_t kEdgeBlock = 1 << 18;       // R-MAT edges per independently seeded block
constexpr int64_t kUniformChunk = 1 << 20;    // expected uniform edges per chunk

struct EdgeBuf {
  std::vector<int64_t> src, dst;
};

// Generates blocks [0, blocks) with gen(b, &buf) on `threads` threads, a group of
// `threads` blocks at a time, and appends them in block order to src/dst.npy.
template <typename Gen>
Status StreamBlocks(int64_t blocks, int threads, int64_t num_edges, const std::string& dir, Gen gen) {
  NpyWriter ws, wd;
  DG_RETURN_IF_ERROR(ws.Open(dir + "/src.npy", DType::kInt64, {num_edges}));
  DG_RETURN_IF_ERROR(wd.Open(dir + "/dst.npy", DType::kInt64, {num_edges}));
  threads = std::max(1, threads);
  std::vector<EdgeBuf> bufs(static_cast<size_t>(threads));
  for (int64_t b0 = 0; b0 < blocks; b0 += threads) {
    const int64_t nb = std::min<int64_t>(threads, blocks - b0);
    ParallelBlocks(nb, threads, [&](int64_t i) { gen(b0 + i, &bufs[i]); });
    for (int64_t i = 0; i < nb; ++i) {
      DG_RETURN_IF_ERROR(ws.Append(bufs[i].src.data(), bufs[i].src.size() * sizeof(int64_t)));
      DG_RETURN_IF_ERROR(wd.Append(bufs[i].dst.data(), bufs[i].dst.size() * sizeof(int64_t)));
    }
  }
  DG_RETURN_IF_ERROR(ws.Finish());
  return wd.Finish();
}

// Our Rng as a standard UniformRandomBitGenerator (for std::binomial_distribution).
struct StdRng {
  using result_type = uint64_t;
  Rng rng;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() { return rng.Next(); }
};

// k distinct values of [0, cells), sorted, into *out (k <= cells).
void DistinctSorted(uint64_t k, uint64_t cells, Rng* rng, std::vector<uint64_t>* out) {
  out->clear();
  if (k == 0) return;
  if (k * 2 <= cells) {
    while (out->size() < k) {
      for (uint64_t need = k - out->size(); need > 0; --need) out->push_back(rng->Uniform(cells));
      std::sort(out->begin(), out->end());
      out->erase(std::unique(out->begin(), out->end()), out->end());
    }
    // Too many is impossible: we only ever add what is missing.
    return;
  }
  // Dense: choose the complement (cells - k < cells / 2) and list the rest.
  std::vector<uint64_t> skip;
  DistinctSorted(cells - k, cells, rng, &skip);
  out->reserve(k);
  size_t j = 0;
  for (uint64_t c = 0; c < cells; ++c) {
    if (j < skip.size() && skip[j] == c) {
      ++j;
      continue;
    }
    out->push_back(c);
  }
}

}  // namespace

Status WriteRmatEdges(const SyntheticOptions& o, const std::vector<int64_t>& perm, const std::string& dir) {
  const int64_t N = o.num_nodes, E = o.num_edges;
  const int C = o.num_classes;
  int scale = 1;
  while ((int64_t{1} << scale) < N) ++scale;
  const uint32_t ta = static_cast<uint32_t>(0.57 * 65536), tb = static_cast<uint32_t>(0.76 * 65536),
                 tc = static_cast<uint32_t>(0.95 * 65536);
  const uint64_t h = static_cast<uint64_t>(o.homophily * 18446744073709551615.0);
  const int64_t blocks = (E + kEdgeBlock - 1) / kEdgeBlock;
  return StreamBlocks(blocks, o.threads, E, dir, [&](int64_t b, EdgeBuf* buf) {
    Rng rng(MixSeed(o.seed, 1000 + b));
    const int64_t n = std::min(E, (b + 1) * kEdgeBlock) - b * kEdgeBlock;
    buf->src.resize(static_cast<size_t>(n));
    buf->dst.resize(static_cast<size_t>(n));
    for (int64_t e = 0; e < n;) {
      int64_t s = 0, d = 0;
      uint64_t bits = 0;
      for (int l = 0; l < scale; ++l) {
        if ((l & 3) == 0) bits = rng.Next();
        uint32_t r = static_cast<uint32_t>(bits & 0xffff);
        bits >>= 16;
        int qs = r >= tb, qd = (r >= ta && r < tb) || r >= tc;
        s = (s << 1) | qs;
        d = (d << 1) | qd;
      }
      if (s >= N || d >= N) continue;
      if (C > 1 && rng.Next() < h) {  // homophily: move d to s's class, nearby id
        d = d - d % C + s % C;
        if (d >= N) d -= C;
      }
      if (d < 0 || s == d) continue;
      buf->src[e] = perm[s];
      buf->dst[e] = perm[d];
      ++e;
    }
  });
}

void UniformChunkCounts(int64_t N, int64_t E, uint64_t seed, std::vector<int64_t>* chunk_rows,
                        std::vector<int64_t>* counts) {
  // Rows per chunk: ~kUniformChunk expected edges (E / N per row).
  const double per_row = N > 0 ? static_cast<double>(E) / N : 0;
  int64_t rows = per_row > 0 ? static_cast<int64_t>(kUniformChunk / per_row) : N;
  rows = std::max<int64_t>(1, std::min<int64_t>(rows, N));
  chunk_rows->clear();
  counts->clear();
  for (int64_t r = 0; r < N; r += rows) chunk_rows->push_back(r);
  chunk_rows->push_back(N);
  StdRng g{Rng(MixSeed(seed, 3))};
  long double cells_left = static_cast<long double>(N) * N;
  int64_t left = E;
  for (size_t c = 0; c + 1 < chunk_rows->size(); ++c) {
    const long double cells = static_cast<long double>((*chunk_rows)[c + 1] - (*chunk_rows)[c]) * N;
    int64_t k;
    if (c + 2 == chunk_rows->size()) {
      k = left;
    } else {
      double p = static_cast<double>(cells / cells_left);
      k = left > 0 ? std::binomial_distribution<int64_t>(left, std::min(1.0, p))(g) : 0;
      // The rest must fit in the cells after this chunk, and this chunk holds at most its cells.
      const long double after = cells_left - cells;
      if (static_cast<long double>(left - k) > after) k = left - static_cast<int64_t>(after);
      if (static_cast<long double>(k) > cells) k = static_cast<int64_t>(cells);
    }
    counts->push_back(k);
    left -= k;
    cells_left -= cells;
  }
}

Status WriteUniformEdges(const SyntheticOptions& o, const std::string& dir) {
  const int64_t N = o.num_nodes, E = o.num_edges;
  std::vector<int64_t> chunk_rows, counts;
  UniformChunkCounts(N, E, o.seed, &chunk_rows, &counts);
  std::vector<std::vector<uint64_t>> pos(static_cast<size_t>(std::max(1, o.threads)));
  return StreamBlocks(static_cast<int64_t>(counts.size()), o.threads, E, dir, [&](int64_t c, EdgeBuf* buf) {
    std::vector<uint64_t>& p = pos[c % pos.size()];
    Rng rng(MixSeed(o.seed, 2000000 + c));
    const int64_t row0 = chunk_rows[c];
    const uint64_t cells = static_cast<uint64_t>(chunk_rows[c + 1] - row0) * static_cast<uint64_t>(N);
    DistinctSorted(static_cast<uint64_t>(counts[c]), cells, &rng, &p);
    buf->src.resize(p.size());
    buf->dst.resize(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      buf->dst[i] = row0 + static_cast<int64_t>(p[i] / static_cast<uint64_t>(N));
      buf->src[i] = static_cast<int64_t>(p[i] % static_cast<uint64_t>(N));
    }
  });
}

}  // namespace dg
