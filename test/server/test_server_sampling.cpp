// SAMPLE_NEIGHBORS through the client against real servers: full neighborhoods,
// no repeats without replacement, uniformity and weight-proportionality
// (chi-square), determinism, and identical results via the mmap shortcut.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <map>

#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

// Each returned (src, eid) must be a real in-edge of seed v.
void CheckEdgesValid(const TestGraph& tg, const std::vector<int64_t>& seeds, const SampledEdges& s) {
  REQUIRE(s.offsets.size() == seeds.size() + 1);
  for (size_t i = 0; i < seeds.size(); ++i) {
    for (int64_t k = s.offsets[i]; k < s.offsets[i + 1]; ++k) {
      int64_t orig = tg.orig_eid[s.eids[k]];
      REQUIRE(tg.g.dst[orig] == seeds[i]);
      REQUIRE(tg.g.src[orig] == s.src[k]);
    }
  }
}

// Chi-square critical value, generous (about p = 1e-4) for dof >= 5.
double Critical(int dof) { return dof + 5.0 * std::sqrt(2.0 * dof); }

}  // namespace

TEST_CASE("sampling returns valid, complete, non-repeating and deterministic neighbors", "[server][sampling]") {
  auto tg = MakeTestGraph(2000, 40000, 4, 3, 41, /*power_law=*/true);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 1);
  auto client = ConnectClient(*tg, cluster);
  std::vector<int64_t> seeds;
  for (int64_t v = 0; v < 2000; v += 3) seeds.push_back(v);
  seeds.push_back(seeds[0]);  // a duplicate seed

  // fanout -1 and fanout >= degree: every in-edge exactly once.
  for (int64_t fanout : {int64_t(-1), int64_t(100000)}) {
    auto s = client->SampleNeighbors(seeds, Hop(fanout, false, 1));
    REQUIRE(s.ok());
    CheckEdgesValid(*tg, seeds, *s);
    for (size_t i = 0; i < seeds.size(); ++i) {
      std::vector<int64_t> got(s->eids.begin() + s->offsets[i], s->eids.begin() + s->offsets[i + 1]);
      std::vector<int64_t> want;
      for (int64_t e : tg->in_edges[seeds[i]]) want.push_back(e);
      std::vector<int64_t> got_orig;
      for (int64_t e : got) got_orig.push_back(tg->orig_eid[e]);
      std::sort(got_orig.begin(), got_orig.end());
      REQUIRE(got_orig == want);
    }
  }
  // fanout 5 without replacement: min(5, degree) distinct edges.
  auto s5 = client->SampleNeighbors(seeds, Hop(5, false, 2));
  REQUIRE(s5.ok());
  CheckEdgesValid(*tg, seeds, *s5);
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::vector<int64_t> got(s5->eids.begin() + s5->offsets[i], s5->eids.begin() + s5->offsets[i + 1]);
    REQUIRE(got.size() == std::min<size_t>(5, tg->in_edges[seeds[i]].size()));
    std::sort(got.begin(), got.end());
    REQUIRE(std::adjacent_find(got.begin(), got.end()) == got.end());
  }
  // With replacement: exactly fanout draws for every seed with neighbors.
  auto sr = client->SampleNeighbors(seeds, Hop(7, true, 3));
  REQUIRE(sr.ok());
  CheckEdgesValid(*tg, seeds, *sr);
  for (size_t i = 0; i < seeds.size(); ++i)
    REQUIRE(sr->offsets[i + 1] - sr->offsets[i] == (tg->in_edges[seeds[i]].empty() ? 0 : 7));

  // Same seed, same sample; another seed, another sample; the mmap path agrees.
  auto again = client->SampleNeighbors(seeds, Hop(5, false, 2));
  REQUIRE(again.ok());
  CHECK(again->eids == s5->eids);
  auto other = client->SampleNeighbors(seeds, Hop(5, false, 99));
  REQUIRE(other.ok());
  CHECK(other->eids != s5->eids);
  ClientOptions o = FastClientOptions();
  o.local_partitions = {0, 2};
  auto local = ConnectClient(*tg, cluster, o);
  auto via_mmap = local->SampleNeighbors(seeds, Hop(5, false, 2));
  REQUIRE(via_mmap.ok());
  CHECK(via_mmap->offsets == s5->offsets);
  CHECK(via_mmap->eids == s5->eids);
  CHECK(via_mmap->src == s5->src);
  auto w1 = client->SampleNeighbors(seeds, Hop(4, false, 5, "weight"));
  auto w2 = local->SampleNeighbors(seeds, Hop(4, false, 5, "weight"));
  REQUIRE(w1.ok());
  REQUIRE(w2.ok());
  CHECK(w1->eids == w2->eids);
  // Without edge ids (node classification): the same sources, no eids, over
  // the socket and via the mmap.
  for (DistGraphClient* c : {client.get(), local.get()}) {
    auto bare = c->SampleNeighbors(seeds, Hop(5, false, 2, "", /*edge_ids=*/false));
    REQUIRE(bare.ok());
    CHECK(bare->offsets == s5->offsets);
    CHECK(bare->src == s5->src);
    CHECK(bare->eids.empty());
  }

  CHECK(client->SampleNeighbors(seeds, Hop(4, false, 5, "nope")).status().code() == Status::Code::kNotFound);
}

TEST_CASE("sampling is uniform without replacement and weight-proportional (chi-square)", "[server][sampling]") {
  auto tg = MakeTestGraph(2000, 40000, 4, 3, 43, /*power_law=*/true);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 1);
  auto client = ConnectClient(*tg, cluster);
  // A node with a moderate in-degree.
  int64_t v = -1;
  for (int64_t u = 0; u < 2000 && v < 0; ++u) {
    size_t d = tg->in_edges[u].size();
    if (d >= 20 && d <= 40) v = u;
  }
  REQUIRE(v >= 0);
  const int64_t d = static_cast<int64_t>(tg->in_edges[v].size());
  // Many trials in one request: the same node repeated with distinct request
  // seeds is not possible (row seed = MixSeed(seed, gid)), so one request per seed.
  const int trials = 1500, fanout = 5;
  std::map<int64_t, int64_t> hits, weighted_hits;
  for (int t = 0; t < trials; ++t) {
    auto s = client->SampleNeighbors(std::vector<int64_t>{v}, Hop(fanout, false, 1000 + t));
    REQUIRE(s.ok());
    REQUIRE(s->eids.size() == static_cast<size_t>(fanout));
    for (int64_t e : s->eids) hits[e]++;
    auto w = client->SampleNeighbors(std::vector<int64_t>{v}, Hop(4, true, 5000 + t, "weight"));
    REQUIRE(w.ok());
    for (int64_t e : w->eids) weighted_hits[e]++;
  }
  // Uniform: each edge expected trials * fanout / d times.
  double expected = double(trials) * fanout / d, chi = 0;
  int64_t seen = 0;
  for (auto& [e, c] : hits) seen += c;
  REQUIRE(seen == int64_t(trials) * fanout);
  // Every in-edge of v, as a new edge id.
  std::vector<int64_t> new_ids;
  for (int64_t k = 0; k < static_cast<int64_t>(tg->orig_eid.size()); ++k)
    if (tg->g.dst[tg->orig_eid[k]] == v) new_ids.push_back(k);
  REQUIRE(static_cast<int64_t>(new_ids.size()) == d);
  for (int64_t e : new_ids) {
    double c = static_cast<double>(hits.count(e) ? hits[e] : 0);
    chi += (c - expected) * (c - expected) / expected;
  }
  INFO("uniform chi-square " << chi << " with " << d - 1 << " dof");
  CHECK(chi < Critical(d - 1));

  // Weighted with replacement: expected draws * w / sum(w).
  double wsum = 0;
  for (int64_t e : new_ids) wsum += tg->g.edge_weight.as<float>()[tg->orig_eid[e]];
  double draws = trials * 4.0, wchi = 0;
  for (int64_t e : new_ids) {
    double ex = draws * tg->g.edge_weight.as<float>()[tg->orig_eid[e]] / wsum;
    double c = static_cast<double>(weighted_hits.count(e) ? weighted_hits[e] : 0);
    wchi += (c - ex) * (c - ex) / ex;
  }
  INFO("weighted chi-square " << wchi << " with " << d - 1 << " dof");
  CHECK(wchi < Critical(d - 1));
}
