// `distgnn generate --model uniform`: G(n, m) with distinct pairs (as
// dgl.rand_graph), N(0, 1) features, random labels, --all-train; deterministic
// by seed and independent of threads; chunk counts sum to m and fit their rows.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/storage/dataset.h"
#include "common/io/npy.h"
#include "roles/generate/synthetic_edges.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("uniform chunk counts sum to m and fit their chunks", "[partition][generate]") {
  for (auto [n, m] : std::vector<std::pair<int64_t, int64_t>>{
           {100000, 2000000}, {20000000, 400000000}, {1000, 999000}, {50, 2500}, {7, 0}}) {
    std::vector<int64_t> rows, counts;
    UniformChunkCounts(n, m, 5, &rows, &counts);
    REQUIRE(rows.size() == counts.size() + 1);
    REQUIRE(rows.front() == 0);
    REQUIRE(rows.back() == n);
    int64_t sum = 0;
    for (size_t c = 0; c < counts.size(); ++c) {
      REQUIRE(counts[c] >= 0);
      REQUIRE(counts[c] <= (rows[c + 1] - rows[c]) * n);
      sum += counts[c];
    }
    REQUIRE(sum == m);
    if (m >= 100000000) {  // many chunks, each close to its expected share
      REQUIRE(counts.size() > 100);
      double expect = static_cast<double>(m) * (rows[1] - rows[0]) / n;
      CHECK(std::abs(counts[0] - expect) < 6 * std::sqrt(expect));
    }
  }
}

TEST_CASE("CLI: generate --model uniform: distinct uniform pairs, N(0,1), deterministic", "[partition][cli][generate]") {
  test::TempDir tmp;
  // 2.2M edges over 100k nodes: 3 chunks of ~2^20 edges.
  for (const char* name : {"a", "b"}) {
    auto r = test::RunDistgnn({"generate", "--model", "uniform", "--nodes", "100000", "--edges", "2200000",
                               "--feat-dim", "4", "--classes", "10", "--seed", "3", "--all-train", "--out",
                               tmp / name, "--threads", name[0] == 'a' ? "1" : "2"});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  for (const char* f : {"src.npy", "dst.npy", "features.npy", "labels.npy", "split.npy"})
    CHECK(ReadAll(tmp / (std::string("a/") + f)) == ReadAll(tmp / (std::string("b/") + f)));
  auto ds = LoadDataset(tmp / "a", EdgeListOptions{});
  REQUIRE(ds.ok());
  REQUIRE(ds->num_nodes == 100000);
  const auto& src = ds->edges.src;
  const auto& dst = ds->edges.dst;
  REQUIRE(src.size() == 2200000);
  // Sorted by (dst, src) and strictly increasing: every pair distinct.
  for (size_t e = 1; e < src.size(); ++e)
    REQUIRE((dst[e - 1] < dst[e] || (dst[e - 1] == dst[e] && src[e - 1] < src[e])));
  // Uniform: in-degree of each tenth of the nodes and out-degree of each tenth near m / 10.
  std::vector<int64_t> in10(10), out10(10);
  for (size_t e = 0; e < src.size(); ++e) {
    ++in10[dst[e] / 10000];
    ++out10[src[e] / 10000];
  }
  for (int i = 0; i < 10; ++i) {
    CHECK(std::abs(in10[i] - 220000) < 3000);
    CHECK(std::abs(out10[i] - 220000) < 3000);
  }
  const Array& feat = ds->node_data.at("features");
  REQUIRE(feat.shape == std::vector<int64_t>{100000, 4});
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < feat.numel(); ++i) {
    sum += feat.as<float>()[i];
    sq += double(feat.as<float>()[i]) * feat.as<float>()[i];
  }
  CHECK(std::abs(sum / feat.numel()) < 0.02);
  CHECK(std::abs(sq / feat.numel() - 1.0) < 0.02);
  const int64_t* lab = ds->node_data.at("labels").as<int64_t>();
  std::vector<int64_t> per_class(10);
  for (int64_t v = 0; v < 100000; ++v) {
    REQUIRE(lab[v] >= 0);
    REQUIRE(lab[v] < 10);
    ++per_class[lab[v]];
  }
  for (int64_t c : per_class) CHECK(std::abs(c - 10000) < 500);
  const int8_t* split = ds->node_data.at("split").as<int8_t>();
  for (int64_t v = 0; v < 100000; ++v) REQUIRE(split[v] == 0);

  // Another seed, another graph; a dense request takes the complement path.
  auto r = test::RunDistgnn({"generate", "--model", "uniform", "--nodes", "50", "--edges", "2400", "--feat-dim", "2",
                             "--classes", "3", "--seed", "4", "--out", tmp / "dense"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto dense = LoadDataset(tmp / "dense", EdgeListOptions{});
  REQUIRE(dense.ok());
  REQUIRE(dense->edges.src.size() == 2400);
  std::set<std::pair<int64_t, int64_t>> pairs;
  for (size_t e = 0; e < 2400; ++e) pairs.insert({dense->edges.src[e], dense->edges.dst[e]});
  CHECK(pairs.size() == 2400);
  auto too_many = test::RunDistgnn({"generate", "--model", "uniform", "--nodes", "50", "--edges", "2501",
                                    "--feat-dim", "2", "--classes", "3", "--out", tmp / "bad"});
  CHECK(too_many.exit_code != 0);
  CHECK(too_many.output.find("2501") != std::string::npos);
  CHECK(!std::filesystem::exists(tmp / "bad"));
}
