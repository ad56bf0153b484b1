// Edge streams of the synthetic models, written straight to src.npy/dst.npy in
// bounded memory (a few blocks of edges per thread, never the whole list).
//
// R-MAT: blocks of 2^18 edges, each from its own MixSeed(seed, 1000 + block)
// stream (see synthetic_graph.h for the model); `perm` relabels R-MAT ids.
//
// Uniform G(n, m) (like dgl.rand_graph): m distinct (src, dst) pairs drawn
// uniformly from all N x N pairs (self loops possible, as in DGL). Destination
// nodes are cut into chunks of ~2^20 expected edges; chunk c's edge count is a
// binomial split of the edges still to place (clamped so the rest still fits),
// then its edges are distinct positions drawn in its rows x N cells. Output is
// sorted by (dst, src). No global dedup set: memory is one chunk per thread.
//
// Both are deterministic by seed and independent of the number of threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/base/status.h"
#include "roles/generate/synthetic_options.h"

namespace dg {

// Runs fn(block) for block in [0, blocks) on up to `threads` threads.
template <typename Fn>
void ParallelBlocks(int64_t blocks, int threads, Fn fn) {
  threads = std::max(1, std::min<int>(threads, static_cast<int>(std::max<int64_t>(blocks, 1))));
  if (threads == 1) {
    for (int64_t b = 0; b < blocks; ++b) fn(b);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int64_t b = t; b < blocks; b += threads) fn(b);
    });
  for (auto& th : pool) th.join();
}

Status WriteRmatEdges(const SyntheticOptions& opts, const std::vector<int64_t>& perm, const std::string& dir);
Status WriteUniformEdges(const SyntheticOptions& opts, const std::string& dir);

// Edge count of each uniform chunk and the chunk's first destination row
// (chunk_rows.size() == counts.size() + 1). Exposed for tests.
void UniformChunkCounts(int64_t num_nodes, int64_t num_edges, uint64_t seed, std::vector<int64_t>* chunk_rows,
                        std::vector<int64_t>* counts);

}  // namespace dg
