// The partitioner library: docs/formats.md invariants on Cora and random graphs for
// K in {1,2,3,4} and both methods, METIS quality vs random, train balance,
// edge arrays through normalization, and output replacement rules.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/storage/dataset.h"
#include "common/storage/neighbor_sampling.h"
#include "config/partition_spec.h"
#include "roles/partition/partitioner.h"
#include "test/partition/partition_checks.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

test::ReferenceGraph CoraReference() {
  EdgeListOptions o;
  o.undirected = true;
  auto ds = LoadDataset(test::CoraDir(), o);
  REQUIRE(ds.ok());
  test::ReferenceGraph g;
  g.num_nodes = ds->num_nodes;
  g.src = ds->edges.src;
  g.dst = ds->edges.dst;
  g.node_data = ds->node_data;
  return g;
}

GraphInput ToInput(const test::ReferenceGraph& g) {
  GraphInput in;
  in.num_nodes = g.num_nodes;
  in.edges.src = g.src;
  in.edges.dst = g.dst;
  in.node_data = g.node_data;
  in.edge_data = g.edge_data;
  return in;
}

// A random multigraph with self loops and duplicates (the partitioner must not
// care), a 2-D int32 node array, a bool node array and a float32 edge array.
test::ReferenceGraph RandomReference(int64_t n, int64_t m, uint64_t seed) {
  Rng rng(seed);
  test::ReferenceGraph g;
  g.num_nodes = n;
  for (int64_t e = 0; e < m; ++e) {
    g.src.push_back(static_cast<int64_t>(rng.Uniform(n)));
    g.dst.push_back(static_cast<int64_t>(rng.Uniform(n)));
  }
  Array x = Array::Zeros(DType::kInt32, {n, 3});
  for (int64_t i = 0; i < 3 * n; ++i) x.as<int32_t>()[i] = static_cast<int32_t>(rng.Next());
  Array mask = Array::Zeros(DType::kBool, {n});
  for (int64_t i = 0; i < n; ++i) mask.as<uint8_t>()[i] = rng.Uniform(3) == 0;
  Array w = Array::Zeros(DType::kFloat32, {m, 2});
  for (int64_t i = 0; i < 2 * m; ++i) w.as<float>()[i] = static_cast<float>(rng.UniformDouble());
  g.node_data["x"] = x;
  g.node_data["train_mask"] = mask;
  g.edge_data["w"] = w;
  return g;
}

PartitionOptions Opts(const std::string& out, int k, PartitionMethod method) {
  PartitionOptions o;
  o.spec.name = "g";
  o.spec.out = out;
  o.spec.method = method;
  o.spec.num_parts = k;
  o.spec.seed = 1;
  return o;
}

}  // namespace

TEST_CASE("partition Cora: invariants for K=1..4, metis and random", "[partition][cora]") {
  test::ReferenceGraph g = CoraReference();
  REQUIRE(g.src.size() == 10556);
  test::TempDir tmp;
  for (PartitionMethod method : {PartitionMethod::kMetis, PartitionMethod::kRandom}) {
    for (int k = 1; k <= 4; ++k) {
      INFO(Name(method) << " K=" << k);
      std::string out = tmp / (Name(method) + std::to_string(k));
      GraphInput in = ToInput(g);
      auto cfg = PartitionGraph(&in, Opts(out, k, method));
      REQUIRE(cfg.ok());
      PartitionConfig read = test::CheckPartition(out + "/g.json", g, k);
      int64_t train = 0;
      for (const PartInfo& p : read.parts) train += p.num_train;
      CHECK(train == 140);
      if (k == 1) CHECK(read.edge_cut == 0);
    }
  }
}

TEST_CASE("partition random multigraphs: invariants incl. edge arrays, K=1..4", "[partition]") {
  test::TempDir tmp;
  for (uint64_t seed : {1u, 2u}) {
    test::ReferenceGraph g = RandomReference(1500, 9000, seed);
    for (PartitionMethod method : {PartitionMethod::kMetis, PartitionMethod::kRandom}) {
      for (int k = 1; k <= 4; ++k) {
        INFO(Name(method) << " K=" << k << " seed " << seed);
        std::string out = tmp / (Name(method) + std::to_string(k) + "_" + std::to_string(seed));
        GraphInput in = ToInput(g);
        auto cfg = PartitionGraph(&in, Opts(out, k, method));
        REQUIRE(cfg.ok());
        test::CheckPartition(out + "/g.json", g, k);
      }
    }
  }
}

TEST_CASE("edge arrays follow edges through undirected normalization", "[partition]") {
  test::ReferenceGraph raw = RandomReference(300, 1200, 9);
  GraphInput in = ToInput(raw);
  EdgeListOptions eo;
  eo.undirected = true;
  eo.drop_self_loops = true;
  NormalizeEdges(&in.edges, eo, &in.edge_origin);
  // Reference: normalized edges with their origin's edge row.
  test::ReferenceGraph g = raw;
  g.src = in.edges.src;
  g.dst = in.edges.dst;
  const Array& w = raw.edge_data.at("w");
  Array wn = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(g.src.size()), 2});
  for (size_t k = 0; k < g.src.size(); ++k)
    std::memcpy(wn.as<float>() + 2 * k, w.as<float>() + 2 * in.edge_origin[k], 8);
  g.edge_data["w"] = wn;
  test::TempDir tmp;
  auto cfg = PartitionGraph(&in, Opts(tmp / "out", 3, PartitionMethod::kMetis));
  REQUIRE(cfg.ok());
  test::CheckPartition(tmp / "out/g.json", g, 3);
}

TEST_CASE("METIS cuts fewer Cora edges than random", "[partition][cora]") {
  test::ReferenceGraph g = CoraReference();
  test::TempDir tmp;
  for (int k : {2, 4}) {
    GraphInput a = ToInput(g), b = ToInput(g);
    auto metis = PartitionGraph(&a, Opts(tmp / ("m" + std::to_string(k)), k, PartitionMethod::kMetis));
    auto random = PartitionGraph(&b, Opts(tmp / ("r" + std::to_string(k)), k, PartitionMethod::kRandom));
    REQUIRE(metis.ok());
    REQUIRE(random.ok());
    INFO("K=" << k << " metis cut " << metis->edge_cut << " random cut " << random->edge_cut);
    CHECK(metis->edge_cut * 3 < random->edge_cut);
  }
}

TEST_CASE("balance by train (--balance train) keeps train counts within 10% of the mean", "[partition][cora]") {
  test::ReferenceGraph g = CoraReference();
  test::TempDir tmp;
  for (int k : {2, 3, 4}) {
    GraphInput in = ToInput(g);
    PartitionOptions o = Opts(tmp / ("bt" + std::to_string(k)), k, PartitionMethod::kMetis);
    o.spec.balance.train = true;
    auto cfg = PartitionGraph(&in, o);
    REQUIRE(cfg.ok());
    double mean = 140.0 / k;
    for (const PartInfo& p : cfg->parts) {
      INFO("K=" << k << " part train " << p.num_train << " mean " << mean);
      CHECK(std::abs(p.num_train - mean) <= 0.1 * mean);
    }
    test::CheckPartition(tmp / ("bt" + std::to_string(k)) + "/g.json", g, k);
  }
  // Balancing in-edges as well still yields a valid partition.
  GraphInput in = ToInput(g);
  PartitionOptions o = Opts(tmp / "be", 4, PartitionMethod::kMetis);
  o.spec.balance.train = o.spec.balance.edges = true;
  REQUIRE(PartitionGraph(&in, o).ok());
  test::CheckPartition(tmp / "be/g.json", g, 4);
}

TEST_CASE("existing output is refused without force and replaced with it", "[partition]") {
  test::ReferenceGraph g = RandomReference(100, 300, 3);
  test::TempDir tmp;
  std::string out = tmp / "out";
  std::filesystem::create_directories(out);
  { std::ofstream(out + "/keep.txt") << "x"; }
  GraphInput in = ToInput(g);
  auto r = PartitionGraph(&in, Opts(out, 2, PartitionMethod::kMetis));
  REQUIRE(!r.ok());
  CHECK(r.status().code() == Status::Code::kAlreadyExists);
  CHECK(std::filesystem::exists(out + "/keep.txt"));
  PartitionOptions o = Opts(out, 2, PartitionMethod::kMetis);
  o.spec.force = true;
  GraphInput in2 = ToInput(g);
  REQUIRE(PartitionGraph(&in2, o).ok());
  CHECK(!std::filesystem::exists(out + "/keep.txt"));
  test::CheckPartition(out + "/g.json", g, 2);
  // Nothing but the output itself is left in the parent.
  int entries = 0;
  for (auto it = std::filesystem::directory_iterator(tmp.path()); it != std::filesystem::directory_iterator(); ++it) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("bad requests are refused before anything is written", "[partition]") {
  test::ReferenceGraph g = RandomReference(50, 100, 4);
  test::TempDir tmp;
  auto expect_fail = [&](PartitionOptions o, const std::string& what) {
    GraphInput in = ToInput(g);
    auto r = PartitionGraph(&in, o);
    REQUIRE(!r.ok());
    CHECK(r.status().message().find(what) != std::string::npos);
    CHECK(!std::filesystem::exists(o.spec.out));
  };
  expect_fail(Opts(tmp / "b", 0, PartitionMethod::kMetis), ">= 1");
  expect_fail(Opts(tmp / "c", 51, PartitionMethod::kMetis), "exceeds");
  PartitionOptions bad_name = Opts(tmp / "d", 2, PartitionMethod::kMetis);
  bad_name.spec.name = "../x";
  expect_fail(bad_name, "--name");
}

TEST_CASE("partition methods and formats: each word parses to its value and Name gives the word back", "[partition]") {
  for (PartitionMethod m : {PartitionMethod::kMetis, PartitionMethod::kRandom, PartitionMethod::kStream,
                            PartitionMethod::kAuto, PartitionMethod::kCluster, PartitionMethod::kScotch}) {
    PartitionMethod back = m == PartitionMethod::kMetis ? PartitionMethod::kStream : PartitionMethod::kMetis;
    REQUIRE(Parse(Name(m), &back));
    CHECK(back == m);
  }
  for (InputFormat f : {InputFormat::kPlain, InputFormat::kOgb}) {
    InputFormat back = f == InputFormat::kPlain ? InputFormat::kOgb : InputFormat::kPlain;
    REQUIRE(Parse(Name(f), &back));
    CHECK(back == f);
  }
  CHECK(std::string(Name(PartitionMethod::kMetis)) == "metis");
  CHECK(std::string(Name(PartitionMethod::kStream)) == "stream");
  CHECK(std::string(Name(PartitionMethod::kScotch)) == "scotch");
  // Which words each mode takes: metis alone, auto, cluster and scotch with --mpi only.
  CHECK(MethodRunsWith(PartitionMethod::kMetis, false));
  CHECK(!MethodRunsWith(PartitionMethod::kMetis, true));
  CHECK(MethodRunsWith(PartitionMethod::kStream, true));
  CHECK(MethodRunsWith(PartitionMethod::kRandom, false));
  CHECK(!MethodRunsWith(PartitionMethod::kScotch, false));
  CHECK(MethodRunsWith(PartitionMethod::kAuto, true));
  // An unknown word (the flag parser's "--method 'X': expected ...") leaves the value as it was.
  PartitionMethod m = PartitionMethod::kRandom;
  CHECK(!Parse("kahip", &m));
  CHECK(!Parse("METIS", &m));
  CHECK(m == PartitionMethod::kRandom);
  InputFormat f = InputFormat::kOgb;
  CHECK(!Parse("csv", &f));
  CHECK(f == InputFormat::kOgb);
}
