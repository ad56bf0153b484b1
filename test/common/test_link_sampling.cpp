// Link prediction sampling: edge splits, negative sampler
// distributions (chi-square), and the exclusion of a batch's positive edges
// (and their reverses) and of held-out edges from every sampled block, checked
// against brute-force readings of the graph.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "common/sampling/edge_batch.h"
#include "common/sampling/negative_sampler.h"
#include "common/storage/neighbor_sampling.h"
#include "common/sampling/in_memory_graph.h"
#include "common/storage/link_split.h"

namespace dg {
namespace {

// A symmetric random graph (both directions of every pair, no self loops, no
// duplicates) of n nodes with 2-dim features.
EdgeList RandomUndirectedEdges(int64_t n, int64_t pairs, uint64_t seed) {
  Rng rng(seed);
  std::set<std::pair<int64_t, int64_t>> seen;
  EdgeList e;
  while (static_cast<int64_t>(seen.size()) < pairs) {
    int64_t u = static_cast<int64_t>(rng.Uniform(n)), v = static_cast<int64_t>(rng.Uniform(n));
    if (u == v) continue;
    if (u > v) std::swap(u, v);
    if (!seen.insert({u, v}).second) continue;
  }
  for (auto [u, v] : seen) {
    e.src.push_back(u);
    e.dst.push_back(v);
    e.src.push_back(v);
    e.dst.push_back(u);
  }
  e.max_id = n - 1;
  return e;
}

std::unique_ptr<InMemoryGraph> Graph(int64_t n, const EdgeList& e) {
  Array feat = Array::Zeros(DType::kFloat32, {n, 2});
  auto g = InMemoryGraph::FromEdges(n, e.src, e.dst, {{"features", feat}});
  REQUIRE(g.ok());
  return std::move(g).value();
}

// Every (src, dst) global pair of every block of a batch. Block l's sources
// are a prefix of input_nodes (destinations first, DGL's to_block).
std::vector<std::pair<int64_t, int64_t>> BlockEdges(const MiniBatch& mb) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const Block& b : mb.blocks)
    for (int64_t d = 0; d < b.num_dst; ++d)
      for (int64_t e = b.indptr[d]; e < b.indptr[d + 1]; ++e)
        out.emplace_back(mb.input_nodes[b.indices[e]], mb.input_nodes[d]);
  return out;
}

double ChiSquare(const std::vector<int64_t>& observed, const std::vector<double>& p, int64_t draws, int* dof) {
  double chi = 0;
  *dof = -1;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double expected = p[i] * static_cast<double>(draws);
    if (expected == 0) {
      REQUIRE(observed[i] == 0);  // a zero-probability node is never drawn
      continue;
    }
    chi += (observed[i] - expected) * (observed[i] - expected) / expected;
    ++*dof;
  }
  return chi;
}

}  // namespace

TEST_CASE("edge split fractions: one clear error per bad flag value", "[link]") {
  CHECK(ParseEdgeSplit("0.85,0.05,0.10", "--edge-split").ok());
  for (const char* bad : {"0.85,0.05", "0.8,0.1,0.2", "a,0.5,0.5", "0.5,0.5,0,0", "-0.1,0.6,0.5"}) {
    auto r = ParseEdgeSplit(bad, "--edge-split");
    INFO(bad);
    REQUIRE(!r.ok());
    CHECK(r.status().message().find("--edge-split") != std::string::npos);
  }
}

TEST_CASE("edge split: exact counts, an edge and its reverse share the split, order does not matter", "[link]") {
  EdgeList e = RandomUndirectedEdges(200, 1000, 7);
  const auto split = AssignEdgeSplit(e, {0.85, 0.05, 0.10}, 3, /*undirected=*/true);
  std::map<std::pair<int64_t, int64_t>, int> of;
  int64_t count[3] = {0, 0, 0};
  for (size_t i = 0; i < split.size(); ++i) {
    of[{e.src[i], e.dst[i]}] = split[i];
    ++count[split[i]];
  }
  for (size_t i = 0; i < split.size(); ++i) CHECK(of.at({e.dst[i], e.src[i]}) == split[i]);
  CHECK(count[0] == 2 * 850);
  CHECK(count[1] == 2 * 50);
  CHECK(count[2] == 2 * 100);
  // The same edges in another order get the same splits.
  EdgeList r;
  for (size_t i = e.src.size(); i-- > 0;) {
    r.src.push_back(e.src[i]);
    r.dst.push_back(e.dst[i]);
  }
  const auto split_r = AssignEdgeSplit(r, {0.85, 0.05, 0.10}, 3, true);
  for (size_t i = 0; i < r.src.size(); ++i) CHECK(split_r[i] == of.at({r.src[i], r.dst[i]}));
  // Another seed, another split.
  CHECK(AssignEdgeSplit(e, {0.85, 0.05, 0.10}, 4, true) != split);
  // SplitEdgeList keeps exactly the train edges.
  EdgeList train = e;
  std::vector<int64_t> origin(e.src.size());
  for (size_t i = 0; i < origin.size(); ++i) origin[i] = static_cast<int64_t>(i);
  auto held = SplitEdgeList(&train, &origin, split);
  REQUIRE(held.ok());
  CHECK(static_cast<int64_t>(train.src.size()) == count[0]);
  CHECK(static_cast<int64_t>(held->val.src.size()) == count[1]);
  CHECK(static_cast<int64_t>(held->test.src.size()) == count[2]);
  for (size_t i = 0; i < train.src.size(); ++i) {
    CHECK(split[origin[i]] == 0);
    CHECK(e.src[origin[i]] == train.src[i]);
  }
}

TEST_CASE("negative sampler: uniform and degree^0.75 pass a chi-square test", "[link]") {
  const int64_t n = 40, draws = 400000;
  std::vector<int64_t> degrees(n);
  Rng drng(11);
  for (int64_t i = 0; i < n; ++i) degrees[i] = i % 7 == 3 ? 0 : static_cast<int64_t>(drng.Uniform(50));
  for (NegativeDistribution dist : {NegativeDistribution::kUniform, NegativeDistribution::kDegree}) {
    const bool uniform = dist == NegativeDistribution::kUniform;
    auto s = NegativeSampler::Create(dist, n, degrees);
    REQUIRE(s.ok());
    std::vector<double> p(n);
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
      p[i] = uniform ? 1.0 : std::pow(static_cast<double>(degrees[i]), 0.75);
      total += p[i];
    }
    for (auto& x : p) x /= total;
    for (int64_t i = 0; i < n; ++i) CHECK((*s)->Probability(i) == Approx(p[i]).margin(1e-12));
    std::vector<int64_t> observed(n, 0);
    Rng rng(12345);
    for (int64_t k = 0; k < draws; ++k) ++observed[(*s)->Draw(rng)];
    int dof = 0;
    const double chi = ChiSquare(observed, p, draws, &dof);
    INFO((uniform ? "uniform" : "degree") << ": chi-square " << chi << " with " << dof << " degrees of freedom");
    // 99.9% quantile of chi-square: 39 dof -> 72.1, 33 dof -> 63.9.
    CHECK(chi < (dof >= 39 ? 72.1 : 63.9));
    // A badly wrong distribution fails the same test (the test has power).
    if (!uniform) {
      std::vector<double> u(n, 1.0 / n);
      std::vector<int64_t> obs_u(n, 0);
      for (int64_t i = 0; i < n; ++i) obs_u[i] = observed[i];
      double chi_u = 0;
      for (int64_t i = 0; i < n; ++i) chi_u += (obs_u[i] - u[i] * draws) * (obs_u[i] - u[i] * draws) / (u[i] * draws);
      CHECK(chi_u > 1000);
    }
  }
  // A degree table of the wrong length is refused, naming the setting.
  auto bad = NegativeSampler::Create(NegativeDistribution::kDegree, n + 1, degrees, "train.negative.distribution");
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("train.negative.distribution") != std::string::npos);
}

TEST_CASE("link batch: no positive edge of a batch nor its reverse appears in its blocks", "[link]") {
  const int64_t n = 60;
  EdgeList e = RandomUndirectedEdges(n, 400, 5);
  auto g = Graph(n, e);
  std::vector<int64_t> deg(n, 1);
  auto sampler = NegativeSampler::Create(NegativeDistribution::kUniform, n, deg);
  REQUIRE(sampler.ok());
  EdgeTable table;
  table.AddCsr(0, 0, g->indptr().data(), n, g->indices().data());
  REQUIRE(table.num_edges() == g->num_edges());
  const std::set<std::pair<int64_t, int64_t>> all(
      [&] {
        std::set<std::pair<int64_t, int64_t>> s;
        for (size_t i = 0; i < e.src.size(); ++i) s.insert({e.src[i], e.dst[i]});
        return s;
      }());
  for (std::vector<int> fanouts : {std::vector<int>{-1, -1}, std::vector<int>{3, 5}}) {
    LinkBatchOptions lo;
    lo.fanouts = fanouts;
    lo.negatives = 3;
    lo.sampler = *sampler;
    lo.feature_name = "features";
    LinkBatchProvider provider(g.get(), &table, lo, 2, 2);
    EpochRequest req;
    req.epoch = 1;
    req.seeds = table.EdgeIds();
    req.batch_size = 50;
    req.fanouts = fanouts;
    req.job_seed = 9;
    REQUIRE(provider.BeginEpoch(req).ok());
    MiniBatch mb;
    int64_t batches = 0, positives = 0;
    while (true) {
      auto more = provider.Next(&mb);
      REQUIRE(more.ok());
      if (!*more) break;
      ++batches;
      REQUIRE(mb.labels.shape == std::vector<int64_t>{mb.labels.rows(), 3});
      std::set<std::pair<int64_t, int64_t>> pos;
      const int64_t* l = mb.labels.as<int64_t>();
      int64_t p = 0;
      for (int64_t r = 0; r < mb.labels.rows(); ++r) {
        const int64_t s = mb.seeds[l[3 * r]], d = mb.seeds[l[3 * r + 1]];
        if (l[3 * r + 2] == 1) {
          ++p;
          CHECK(all.count({s, d}) == 1);  // a positive is a graph edge
          pos.insert({s, d});
          pos.insert({d, s});
        }
      }
      CHECK(mb.labels.rows() == p * 4);  // 3 negatives each
      positives += p;
      const auto edges = BlockEdges(mb);
      for (const auto& pe : edges) {
        CHECK(pos.count(pe) == 0);
        CHECK(all.count(pe) == 1);  // every block edge is a graph edge
      }
      if (fanouts[0] < 0) {
        // Full neighbors: exactly the in-edges of the seeds minus the excluded pairs.
        const Block& last = mb.blocks.back();
        for (int64_t d = 0; d < last.num_dst; ++d) {
          const int64_t v = mb.seeds[d];
          int64_t expect = 0;
          for (int64_t k = g->indptr()[v]; k < g->indptr()[v + 1]; ++k) expect += pos.count({g->indices()[k], v}) == 0;
          CHECK(last.indptr[d + 1] - last.indptr[d] == expect);
        }
      }
    }
    CHECK(batches == (g->num_edges() + 49) / 50);
    CHECK(positives == g->num_edges());
  }
}

TEST_CASE("held-out (val/test) edges never appear in any sampled block", "[link]") {
  const int64_t n = 80;
  EdgeList e = RandomUndirectedEdges(n, 600, 21);
  const auto split = AssignEdgeSplit(e, {0.7, 0.1, 0.2}, 1, true);
  EdgeList train = e;
  std::vector<int64_t> no_origin;
  auto held = SplitEdgeList(&train, &no_origin, split);
  REQUIRE(held.ok());
  std::set<std::pair<int64_t, int64_t>> out;
  for (const EdgeList* h : {&held->val, &held->test})
    for (size_t i = 0; i < h->src.size(); ++i) out.insert({h->src[i], h->dst[i]});
  REQUIRE(out.size() == held->val.src.size() + held->test.src.size());
  auto g = Graph(n, train);
  EdgeTable table;
  table.AddCsr(0, 0, g->indptr().data(), n, g->indices().data());
  std::vector<int64_t> deg(n);
  for (int64_t i = 0; i < n; ++i) deg[i] = g->indptr()[i + 1] - g->indptr()[i];
  auto sampler = NegativeSampler::Create(NegativeDistribution::kDegree, n, deg);
  REQUIRE(sampler.ok());
  LinkBatchOptions lo;
  lo.negatives = 2;
  lo.sampler = *sampler;
  LinkBatchProvider edges(g.get(), &table, lo, 1, 2);
  LocalBatchProvider nodes(g.get(), 1, 2, "features", "");
  int64_t checked = 0;
  for (int64_t epoch = 1; epoch <= 2; ++epoch) {
    for (BatchProvider* p : {static_cast<BatchProvider*>(&edges), static_cast<BatchProvider*>(&nodes)}) {
      EpochRequest req;
      req.epoch = epoch;
      req.seeds = p == &edges ? table.EdgeIds() : std::vector<int64_t>();
      if (p == &nodes)
        for (int64_t i = 0; i < n; ++i) req.seeds.push_back(i);
      req.batch_size = 64;
      req.fanouts = {-1, 4};
      req.labels = false;
      REQUIRE(p->BeginEpoch(req).ok());
      MiniBatch mb;
      while (true) {
        auto more = p->Next(&mb);
        REQUIRE(more.ok());
        if (!*more) break;
        for (const auto& pe : BlockEdges(mb)) {
          CHECK(out.count(pe) == 0);
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 1000);
}

TEST_CASE("negative ranges: a draw is the i-th id of the ranges in order", "[link]") {
  const IdRanges ranges = {{10, 3}, {100, 0}, {50, 2}};  // a typed partition's type: one range per part
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 5; ++i) got.push_back(NthInRanges(ranges, i));
  CHECK(got == std::vector<int64_t>{10, 11, 12, 50, 51});
  // In a link batch every negative is one of the ranges' ids, and every id is drawn.
  const int64_t n = 60;
  auto g = Graph(n, RandomUndirectedEdges(n, 400, 5));
  auto sampler = NegativeSampler::Create(NegativeDistribution::kUniform, 5, {});
  REQUIRE(sampler.ok());
  LinkBatchOptions lo;
  lo.fanouts = {2};
  lo.sampler = *sampler;
  lo.negatives = 40;
  lo.negative_ranges = ranges;
  lo.negative_offset = 1000;  // unused with ranges
  lo.feature_name = "";
  auto mb = SampleLinkBatch(g.get(), {0, 1, 2}, {3, 4, 5}, lo, 7, 1, 0);
  REQUIRE(mb.ok());
  std::set<int64_t> drawn;
  const int64_t* l = mb->labels.as<int64_t>();
  for (int64_t r = 0; r < mb->labels.rows(); ++r)
    if (l[3 * r + 2] == 0) drawn.insert(mb->seeds[l[3 * r + 1]]);
  CHECK(drawn == std::set<int64_t>{10, 11, 12, 50, 51});
}

}  // namespace dg
