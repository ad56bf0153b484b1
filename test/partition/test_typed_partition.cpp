// Typed (heterogeneous) partitions end to end with the binary, on the
// bundled IMDB graph: the format_version 2 invariants (CheckTypedPartition),
// METIS balance per node type, random per-type balance, the out-of-core path
// writing the same bytes as the in-memory one, homogeneous readers refusing a
// typed partition, and corrupt typed configs named by key.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"
#include "test/partition/partition_checks.h"
#include "test/support/test_support.h"

using namespace dg;
namespace fs = std::filesystem;

namespace {

std::string ImdbDir() { return test::SourceDir() + "/data/imdb-hetero"; }

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void Partition(const std::vector<std::string>& extra, const std::string& out) {
  std::vector<std::string> args = {"partition", "--dataset", ImdbDir(), "--name", "imdb", "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = test::RunDistgnn(args);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

// Largest part's share of each type over the mean share.
std::vector<double> TypeImbalance(const PartitionConfig& cfg) {
  std::vector<double> out;
  for (int t = 0; t < cfg.num_node_types(); ++t) {
    int64_t mx = 0;
    for (int p = 0; p < cfg.num_parts; ++p)
      mx = std::max(mx, cfg.node_type_offsets[p][t + 1] - cfg.node_type_offsets[p][t]);
    out.push_back(static_cast<double>(mx) * cfg.num_parts / cfg.num_nodes_per_type[t]);
  }
  return out;
}

}  // namespace

TEST_CASE("typed partition: IMDB with METIS keeps every type balanced and passes the typed checks", "[typed_partition]") {
  test::TempDir tmp;
  Partition({"--undirected", "--num-parts", "3", "--method", "metis"}, tmp / "m3");
  auto ds = LoadTypedDataset(ImdbDir(), true);
  REQUIRE(ds.ok());
  PartitionConfig cfg = test::CheckTypedPartition(tmp / "m3/imdb.json", *ds, 3);
  CHECK(cfg.format_version == 2);
  CHECK(cfg.num_classes == 3);
  for (double imb : TypeImbalance(cfg)) CHECK(imb < 1.10);  // METIS ubfactor 1.03 per constraint, some slack
  // METIS cuts fewer edges than a random assignment.
  Partition({"--undirected", "--num-parts", "3", "--method", "random"}, tmp / "r3");
  PartitionConfig rnd = test::CheckTypedPartition(tmp / "r3/imdb.json", *ds, 3);
  for (double imb : TypeImbalance(rnd)) CHECK(imb < 1.002);  // dealt per type: +-1 node
  CHECK(cfg.edge_cut < rnd.edge_cut / 2);
}

TEST_CASE("typed partition: out of core writes the same bytes as in memory", "[typed_partition]") {
  test::TempDir tmp;
  for (const char* method : {"random", "metis"}) {
    INFO(method);
    const std::string a = tmp / (std::string(method) + "_mem"), b = tmp / (std::string(method) + "_ooc");
    Partition({"--undirected", "--num-parts", "2", "--method", method}, a);
    Partition({"--undirected", "--num-parts", "2", "--method", method, "--memory-budget", "256M", "--run-size", "64K"},
              b);
    test::RequireSameTree(a, b, 11);
  }
  auto ds = LoadTypedDataset(ImdbDir(), true);
  REQUIRE(ds.ok());
  test::CheckTypedPartition(tmp / "metis_ooc/imdb.json", *ds, 2);
}

TEST_CASE("typed partition: a single part and a directed graph", "[typed_partition]") {
  test::TempDir tmp;
  Partition({"--num-parts", "1"}, tmp / "p1");
  auto ds = LoadTypedDataset(ImdbDir(), false);
  REQUIRE(ds.ok());
  PartitionConfig cfg = test::CheckTypedPartition(tmp / "p1/imdb.json", *ds, 1);
  // One part: global ids are the type-major ids, type_nids is offset + i.
  CHECK(cfg.node_type_offsets[0] == std::vector<int64_t>{0, 4181, 6263, 11520, 14189});
}

TEST_CASE("typed partition: homogeneous readers refuse it naming the file, corrupt typed keys are named",
          "[typed_partition]") {
  test::TempDir tmp;
  Partition({"--undirected", "--num-parts", "2", "--method", "random"}, tmp / "p");
  const std::string json = tmp / "p/imdb.json";
  auto homo = LoadPartitionConfig(json);
  REQUIRE(!homo.ok());
  CHECK(homo.status().ToString().find(json) != std::string::npos);
  CHECK(homo.status().ToString().find("typed") != std::string::npos);
  const std::string text = ReadAll(json);
  auto corrupt = [&](const std::string& from, const std::string& to, const std::string& key) {
    std::string t = text;
    const size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    const std::string path = tmp / "p/bad.json";
    std::ofstream(path) << t;
    auto c = LoadAnyPartitionConfig(path);
    REQUIRE(!c.ok());
    INFO(c.status().ToString());
    CHECK(c.status().ToString().find(key) != std::string::npos);
  };
  corrupt("\"num_nodes_per_type\": [4181", "\"num_nodes_per_type\": [4180", "num_nodes_per_type");
  corrupt("\"node_type_offsets\": [[0, ", "\"node_type_offsets\": [[1, ", "node_type_offsets[0]");
  corrupt("[\"movie\", \"directed_by\", \"director\"]", "[\"movie\", \"directed_by\", \"studio\"]", "edge_types[0]");
  corrupt("\"target\": \"movie\"", "\"target\": \"studio\"", "target");
  corrupt("\"movie/labels\"", "\"labels\"", "node_data.labels");
  // A homogeneous config with typed keys is refused too.
  corrupt("\"format_version\": 2", "\"format_version\": 1", "present in a format_version 1");
  // A part whose edge_types.npy is missing fails naming the file.
  fs::remove(tmp / "p/part1/edge_types.npy");
  auto cfg = LoadAnyPartitionConfig(json);
  REQUIRE(cfg.ok());
  auto lp = OpenLocalPartition(*cfg, 1);
  REQUIRE(!lp.ok());
  CHECK(lp.status().ToString().find("part1/edge_types.npy") != std::string::npos);
}

TEST_CASE("typed partition: --method stream and METIS with --balance train", "[typed_partition]") {
  test::TempDir tmp;
  auto ds = LoadTypedDataset(ImdbDir(), true);
  REQUIRE(ds.ok());
  Partition({"--undirected", "--num-parts", "2", "--method", "stream"}, tmp / "s2");
  test::CheckTypedPartition(tmp / "s2/imdb.json", *ds, 2);
  Partition({"--undirected", "--num-parts", "2", "--method", "metis", "--balance", "train"}, tmp / "b2");
  PartitionConfig cfg = test::CheckTypedPartition(tmp / "b2/imdb.json", *ds, 2);
  // Train movies (836) balanced as an extra constraint, beside every type.
  const int64_t t0 = cfg.parts[0].num_train, t1 = cfg.parts[1].num_train;
  CHECK(t0 + t1 == 836);
  CHECK(std::max(t0, t1) * 2.0 / 836 < 1.10);
  for (double imb : TypeImbalance(cfg)) CHECK(imb < 1.10);
}
