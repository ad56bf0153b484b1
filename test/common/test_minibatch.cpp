// Mini-batch sampling and block building against a brute-force reading of the graph.
#include <catch2/catch.hpp>
#include <random>

#include <algorithm>
#include <map>
#include <set>

#include "common/sampling/in_memory_graph.h"
#include "common/sampling/minibatch.h"
#include "common/storage/dataset.h"
#include "common/storage/neighbor_sampling.h"

namespace dg {
namespace {

// A random graph of n nodes with features row i = [i, 2i] and labels i % 3.
std::unique_ptr<InMemoryGraph> RandomGraph(int64_t n, int64_t m, uint64_t seed) {
  Rng rng(seed);
  std::vector<int64_t> src, dst;
  for (int64_t e = 0; e < m; ++e) {
    src.push_back(static_cast<int64_t>(rng.Uniform(n)));
    dst.push_back(static_cast<int64_t>(rng.Uniform(n)));
  }
  Array feat = Array::Zeros(DType::kFloat32, {n, 2});
  Array labels = Array::Zeros(DType::kInt64, {n});
  for (int64_t i = 0; i < n; ++i) {
    feat.as<float>()[2 * i] = static_cast<float>(i);
    feat.as<float>()[2 * i + 1] = static_cast<float>(2 * i);
    labels.as<int64_t>()[i] = i % 3;
  }
  auto g = InMemoryGraph::FromEdges(n, src, dst, {{"features", feat}, {"labels", labels}});
  REQUIRE(g.ok());
  return std::move(g).value();
}

std::multiset<int64_t> InNeighbors(const InMemoryGraph& g, int64_t v) {
  return std::multiset<int64_t>(g.indices().begin() + g.indptr()[v],
                                g.indices().begin() + g.indptr()[v + 1]);
}

}  // namespace

TEST_CASE("InMemoryGraph builds a sorted in-edge CSR") {
  auto g = InMemoryGraph::FromEdges(4, {0, 2, 1, 3, 0}, {1, 1, 2, 1, 3}, {});
  REQUIRE(g.ok());
  CHECK((*g)->indptr() == std::vector<int64_t>{0, 0, 3, 4, 5});
  CHECK((*g)->indices() == std::vector<int64_t>{0, 2, 3, 1, 0});
  auto bad = InMemoryGraph::FromEdges(3, {0}, {5}, {});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("out of range") != std::string::npos);
}

TEST_CASE("BuildBlock puts destinations first and maps indices to sources") {
  SampledNeighbors s;
  s.indptr = {0, 2, 3, 3};
  s.sources = {7, 5, 9};
  std::vector<int64_t> src;
  Block b = BuildBlock({5, 6, 8}, s, &src);
  CHECK(b.num_dst == 3);
  CHECK(src == std::vector<int64_t>{5, 6, 8, 7, 9});
  CHECK(b.num_src == 5);
  CHECK(b.indptr == std::vector<int64_t>{0, 2, 3, 3});
  CHECK(b.indices == std::vector<int64_t>{3, 0, 4});
}

TEST_CASE("BuildBlock gives the same block through the dense table and the hash map") {
  // Random blocks with repeated sources; the dense path is taken when num_nodes
  // is given, the hash path without it and when an id is out of range.
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Rng rng(seed);
    const int64_t n = 1000;
    std::vector<int64_t> dst;
    for (int i = 0; i < 50; ++i) dst.push_back(static_cast<int64_t>(rng.Uniform(n)));
    std::sort(dst.begin(), dst.end());
    dst.erase(std::unique(dst.begin(), dst.end()), dst.end());
    SampledNeighbors s;
    s.indptr = {0};
    for (size_t d = 0; d < dst.size(); ++d) {
      const int64_t deg = static_cast<int64_t>(rng.Uniform(8));
      for (int64_t k = 0; k < deg; ++k) s.sources.push_back(static_cast<int64_t>(rng.Uniform(n)));
      s.indptr.push_back(static_cast<int64_t>(s.sources.size()));
    }
    std::vector<int64_t> src_hash, src_dense, src_small;
    Block h = BuildBlock(dst, s, &src_hash);
    Block d = BuildBlock(dst, s, &src_dense, n);
    Block again = BuildBlock(dst, s, &src_dense, n);  // a second block on the same thread's table
    Block small = BuildBlock(dst, s, &src_small, 10);  // ids >= 10: falls back to the hash map
    for (const Block* b : {&d, &again, &small}) {
      CHECK(b->indptr == h.indptr);
      CHECK(b->indices == h.indices);
      CHECK(b->num_src == h.num_src);
    }
    CHECK(src_dense == src_hash);
    CHECK(src_small == src_hash);
  }
}

TEST_CASE("BuildBlock with owner offsets groups new sources by owner and keeps every edge") {
  const std::vector<int64_t> offsets{0, 300, 700, 1000};
  auto owner = [&](int64_t gid) {
    return std::upper_bound(offsets.begin(), offsets.end(), gid) - offsets.begin() - 1;
  };
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Rng rng(seed);
    std::vector<int64_t> dst;
    for (int i = 0; i < 60; ++i) dst.push_back(static_cast<int64_t>(rng.Uniform(1000)));
    std::sort(dst.begin(), dst.end());
    dst.erase(std::unique(dst.begin(), dst.end()), dst.end());
    std::shuffle(dst.begin(), dst.end(), std::mt19937_64(seed));  // destinations keep their (mixed) order
    SampledNeighbors s;
    s.indptr = {0};
    for (size_t d = 0; d < dst.size(); ++d) {
      const int64_t deg = static_cast<int64_t>(rng.Uniform(9));
      for (int64_t k = 0; k < deg; ++k) s.sources.push_back(static_cast<int64_t>(rng.Uniform(1000)));
      s.indptr.push_back(static_cast<int64_t>(s.sources.size()));
    }
    for (int64_t num_nodes : {int64_t{1000}, int64_t{0}}) {  // dense table and hash map
      std::vector<int64_t> plain_src, grouped_src;
      Block plain = BuildBlock(dst, s, &plain_src, num_nodes);
      Block grouped = BuildBlock(dst, s, &grouped_src, num_nodes, &offsets);
      REQUIRE(grouped.num_dst == plain.num_dst);
      REQUIRE(grouped.num_src == plain.num_src);
      REQUIRE(grouped_src.size() == plain_src.size());
      CHECK(grouped.indptr == plain.indptr);
      CHECK(std::equal(dst.begin(), dst.end(), grouped_src.begin()));
      for (int64_t e = 0; e < grouped.num_edges(); ++e)
        REQUIRE(grouped_src[grouped.indices[e]] == plain_src[plain.indices[e]]);
      // After the destinations: owners never decrease, and within an owner the
      // order of first appearance is kept.
      const size_t nd = dst.size();
      for (size_t i = nd + 1; i < grouped_src.size(); ++i) REQUIRE(owner(grouped_src[i - 1]) <= owner(grouped_src[i]));
      for (int p = 0; p < 3; ++p) {
        std::vector<int64_t> want, got;
        for (size_t i = nd; i < plain_src.size(); ++i)
          if (owner(plain_src[i]) == p) want.push_back(plain_src[i]);
        for (size_t i = nd; i < grouped_src.size(); ++i)
          if (owner(grouped_src[i]) == p) got.push_back(grouped_src[i]);
        CHECK(got == want);
      }
    }
  }
}

TEST_CASE("SampleMiniBatch: blocks chain, edges are real in-edges, fanouts hold") {
  auto g = RandomGraph(500, 4000, 1);
  MiniBatchOptions opts;
  opts.fanouts = {3, 5};
  std::vector<int64_t> seeds{1, 17, 42, 99, 250, 499};
  auto r = SampleMiniBatch(g.get(), seeds, opts, 7, 2, 3);
  REQUIRE(r.ok());
  const MiniBatch& mb = *r;
  REQUIRE(mb.blocks.size() == 2);
  CHECK(mb.blocks[1].num_dst == static_cast<int64_t>(seeds.size()));
  CHECK(mb.blocks[0].num_dst == mb.blocks[1].num_src);
  CHECK(mb.blocks[0].num_src == static_cast<int64_t>(mb.input_nodes.size()));
  // Reconstruct node ids of every layer: dst ids are a prefix of src ids.
  std::vector<std::vector<int64_t>> src_ids(2);
  src_ids[0] = mb.input_nodes;
  src_ids[1].assign(mb.input_nodes.begin(), mb.input_nodes.begin() + mb.blocks[0].num_dst);
  std::vector<int64_t> dst1(src_ids[1].begin(), src_ids[1].begin() + mb.blocks[1].num_dst);
  CHECK(dst1 == seeds);
  for (int l = 0; l < 2; ++l) {
    const Block& b = mb.blocks[l];
    const int fanout = opts.fanouts[l];
    std::set<int64_t> uniq(src_ids[l].begin(), src_ids[l].end());
    CHECK(uniq.size() == src_ids[l].size());  // sources are unique
    for (int64_t d = 0; d < b.num_dst; ++d) {
      const int64_t v = src_ids[l][d];
      auto all = InNeighbors(*g, v);
      const int64_t deg = static_cast<int64_t>(all.size());
      const int64_t got = b.indptr[d + 1] - b.indptr[d];
      CHECK(got == std::min<int64_t>(deg, fanout));
      for (int64_t e = b.indptr[d]; e < b.indptr[d + 1]; ++e) {
        REQUIRE(b.indices[e] >= 0);
        REQUIRE(b.indices[e] < b.num_src);
        int64_t u = src_ids[l][b.indices[e]];
        auto it = all.find(u);
        REQUIRE(it != all.end());  // a real in-edge, used at most as often as it exists
        all.erase(it);
      }
    }
  }
  // Features and labels are the rows of input nodes and seeds.
  REQUIRE(mb.features.rows() == static_cast<int64_t>(mb.input_nodes.size()));
  for (size_t i = 0; i < mb.input_nodes.size(); ++i)
    CHECK(mb.features.as<float>()[2 * i + 1] == 2.0f * mb.input_nodes[i]);
  for (size_t i = 0; i < seeds.size(); ++i) CHECK(mb.labels.as<int64_t>()[i] == seeds[i] % 3);
}

TEST_CASE("SampleMiniBatch is deterministic and depends only on (seed, epoch, batch)") {
  auto g = RandomGraph(300, 3000, 2);
  MiniBatchOptions opts;
  opts.fanouts = {4, 4};
  auto a = SampleMiniBatch(g.get(), {3, 4, 5}, opts, 11, 1, 0);
  auto b = SampleMiniBatch(g.get(), {3, 4, 5}, opts, 11, 1, 0);
  auto c = SampleMiniBatch(g.get(), {3, 4, 5}, opts, 11, 2, 0);
  REQUIRE((a.ok() && b.ok() && c.ok()));
  CHECK(a->input_nodes == b->input_nodes);
  CHECK(a->blocks[0].indices == b->blocks[0].indices);
  CHECK(a->input_nodes != c->input_nodes);
  // Full fanout (-1) takes every in-neighbor.
  opts.fanouts = {-1};
  auto f = SampleMiniBatch(g.get(), {10}, opts, 0, 0, 0);
  REQUIRE(f.ok());
  CHECK(f->blocks[0].num_edges() == static_cast<int64_t>(InNeighbors(*g, 10).size()));
  // The layer's request seed reaches the kernel as MixSeed(request, gid).
  SampledNeighbors s;
  SampleSpec spec;
  spec.fanout = 2;
  spec.seed = SamplingSeed(5, 0, 0, 0);
  REQUIRE(g->SampleNeighbors({10}, spec, &s).ok());
  std::vector<int64_t> pos;
  SampleRowUniform(g->indptr()[11] - g->indptr()[10], 2, false,
                   MixSeed(SamplingSeed(5, 0, 0, 0), 10), &pos);
  REQUIRE(s.sources.size() == pos.size());
  for (size_t i = 0; i < pos.size(); ++i) CHECK(s.sources[i] == g->indices()[g->indptr()[10] + pos[i]]);
}

TEST_CASE("SampleMiniBatch errors: empty fanouts, unknown array, bad seed") {
  auto g = RandomGraph(50, 200, 3);
  MiniBatchOptions opts;
  CHECK_FALSE(SampleMiniBatch(g.get(), {1}, opts, 0, 0, 0).ok());
  opts.fanouts = {2};
  opts.label_name = "nope";
  auto r = SampleMiniBatch(g.get(), {1}, opts, 0, 0, 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("'nope' not found") != std::string::npos);
  opts.label_name = "labels";
  CHECK_FALSE(SampleMiniBatch(g.get(), {50}, opts, 0, 0, 0).ok());
}

TEST_CASE("EpochOrder, batches and NodeSplit") {
  std::vector<int64_t> ids(103);
  for (int i = 0; i < 103; ++i) ids[i] = 2 * i;
  auto o1 = EpochOrder(ids, true, 9, 1), o2 = EpochOrder(ids, true, 9, 1), o3 = EpochOrder(ids, true, 9, 2);
  CHECK(o1 == o2);
  CHECK(o1 != o3);
  auto sorted = o1;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == ids);
  CHECK(NumBatches(103, 10) == 11);
  CHECK(BatchSeeds(o1, 10, 10).size() == 3);
  // force_even: equal counts, contiguous chunks in id order, remainder dropped.
  std::set<int64_t> seen;
  for (int r = 0; r < 4; ++r) {
    auto part = NodeSplit(ids, 4, r, true);
    CHECK(part.size() == 25);
    CHECK(std::is_sorted(part.begin(), part.end()));
    seen.insert(part.begin(), part.end());
  }
  CHECK(seen.size() == 100);
  size_t total = 0;
  for (int r = 0; r < 4; ++r) total += NodeSplit(ids, 4, r, false).size();
  CHECK(total == 103);
  Array split = Array::Zeros(DType::kInt8, {5});
  split.as<int8_t>()[1] = 1;
  split.as<int8_t>()[4] = -1;
  auto train = NodesWithSplit(split, 0);
  REQUIRE(train.ok());
  CHECK(*train == std::vector<int64_t>{0, 2, 3});
}

}  // namespace dg
