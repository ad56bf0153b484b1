// `distgnn partition` and `distgnn generate` end to end with the real binary:
// Cora into 2 parts read back with OpenLocalPartition; every bad input gives a
// non-zero exit, a one-line message, and no output directory.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/storage/dataset.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "test/partition/partition_checks.h"
#include "test/support/test_support.h"

using namespace dg;
namespace fs = std::filesystem;

namespace {

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

Array Int64s(std::vector<int64_t> v) {
  Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.as<int64_t>());
  return a;
}

// Nothing named like the output (no temp or old siblings) exists in dir.
bool NoTraceOf(const std::string& dir, const std::string& name) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(name) != std::string::npos) return false;
  return true;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("CLI: partition bundled Cora into 2 parts and read it back", "[partition][cli][cora]") {
  test::TempDir tmp;
  std::string out = tmp / "cora2";
  auto r = test::RunDistgnn({"partition", "--dataset", test::CoraDir(), "--undirected", "--num-parts", "2",
                             "--method", "metis", "--name", "cora", "--out", out});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("edge cut") != std::string::npos);
  CHECK(r.output.find("halo") != std::string::npos);
  CHECK(r.output.find("peak RSS") != std::string::npos);
  auto cfg = LoadPartitionConfig(out + "/cora.json");
  REQUIRE(cfg.ok());
  CHECK(cfg->num_nodes == 2708);
  CHECK(cfg->num_edges == 10556);
  CHECK(cfg->part_method == "metis");
  CHECK(cfg->node_data.at("features").shape == std::vector<int64_t>{2708, 1433});
  int64_t edges = 0;
  for (int p = 0; p < 2; ++p) {
    auto lp = OpenLocalPartition(*cfg, p);
    REQUIRE(lp.ok());
    edges += lp->num_edges();
    CHECK(lp->node_data.at("features").shape[1] == 1433);
  }
  CHECK(edges == 10556);
  // Full invariants against the in-memory reference.
  EdgeListOptions o;
  o.undirected = true;
  auto ds = LoadDataset(test::CoraDir(), o);
  REQUIRE(ds.ok());
  test::ReferenceGraph g;
  g.num_nodes = ds->num_nodes;
  g.src = ds->edges.src;
  g.dst = ds->edges.dst;
  g.node_data = ds->node_data;
  test::CheckPartition(out + "/cora.json", g, 2);
  CHECK(NoTraceOf(tmp.path(), ".cora2."));
}

TEST_CASE("CLI: --edges with node and edge data, random method, K=3", "[partition][cli]") {
  test::TempDir tmp;
  WriteText(tmp / "e.csv", "# src,dst\n0,1\n1,2\n2,3\n3,4\n4,5\n5,0\n0,3\n");
  REQUIRE(NpyWrite(tmp / "lab.npy", Int64s({0, 1, 2, 3, 4, 5})).ok());
  REQUIRE(NpyWrite(tmp / "w.npy", Int64s({10, 11, 12, 13, 14, 15, 16})).ok());
  auto r = test::RunDistgnn({"partition", "--edges", tmp / "e.csv", "--node-data", "labels=" + (tmp / "lab.npy"),
                             "--edge-data", "w=" + (tmp / "w.npy"), "--num-parts", "3", "--method", "random",
                             "--name", "tiny", "--out", tmp / "out"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  test::ReferenceGraph g;
  g.num_nodes = 6;
  g.src = {0, 1, 2, 3, 4, 5, 0};
  g.dst = {1, 2, 3, 4, 5, 0, 3};
  g.node_data["labels"] = *NpyMap(tmp / "lab.npy");
  g.edge_data["w"] = *NpyMap(tmp / "w.npy");
  test::CheckPartition(tmp / "out/tiny.json", g, 3);
}

TEST_CASE("CLI: bad input gives one clear error, non-zero exit, no output", "[partition][cli]") {
  test::TempDir tmp;
  WriteText(tmp / "good.tsv", "0\t1\n1\t2\n2\t0\n");
  WriteText(tmp / "malformed.tsv", "0\t1\n1\tx\n");
  WriteText(tmp / "negative.tsv", "0\t1\n-3\t2\n");
  REQUIRE(NpyWrite(tmp / "rows2.npy", Int64s({0, 1})).ok());
  fs::create_directories(tmp / "exists");
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::string expect;
  };
  auto base = [&](std::string edges) {
    return std::vector<std::string>{"partition", "--edges", edges, "--name", "g", "--out", tmp / "out"};
  };
  auto with = [](std::vector<std::string> a, std::vector<std::string> more) {
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  std::vector<Case> cases = {
      {"malformed line", with(base(tmp / "malformed.tsv"), {"--num-parts", "2"}), "malformed.tsv:2:"},
      {"negative id", with(base(tmp / "negative.tsv"), {"--num-parts", "2"}), "negative.tsv:2: negative node id"},
      {"id beyond --num-nodes", with(base(tmp / "good.tsv"), {"--num-parts", "2", "--num-nodes", "2"}),
       "good.tsv:2: node id 2 is out of range"},
      {"node array rows", with(base(tmp / "good.tsv"), {"--num-parts", "2", "--num-nodes", "3", "--node-data",
                                                        "x=" + (tmp / "rows2.npy")}),
       "rows2.npy"},
      {"unknown method", with(base(tmp / "good.tsv"), {"--num-parts", "2", "--method", "kahip"}), "--method 'kahip': expected metis, random or stream"},
      {"K < 1", with(base(tmp / "good.tsv"), {"--num-parts", "0"}), "--num-parts must be >= 1"},
      {"K > nodes", with(base(tmp / "good.tsv"), {"--num-parts", "4"}), "exceeds the 3 nodes"},
      {"unreadable file", with(base(tmp / "missing.tsv"), {"--num-parts", "2"}), "missing.tsv"},
      {"unreadable dataset", {"partition", "--dataset", tmp / "nodir", "--num-parts", "2", "--name", "g", "--out",
                              tmp / "out"}, "nodir"},
      {"output exists", {"partition", "--edges", tmp / "good.tsv", "--num-parts", "2", "--name", "g", "--out",
                         tmp / "exists"}, "--force"},
      {"edge array rows", with(base(tmp / "good.tsv"), {"--num-parts", "2", "--edge-data", "w=" + (tmp / "rows2.npy")}),
       "rows2.npy"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    auto r = test::RunDistgnn(c.args, 60);
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("error") != std::string::npos);
    CHECK(r.output.find(c.expect) != std::string::npos);
    CHECK(!fs::exists(tmp / "out"));
    CHECK(NoTraceOf(tmp.path(), ".out."));
  }
  CHECK(fs::is_empty(tmp / "exists"));
}

TEST_CASE("CLI: one flag table with and without --mpi, a flag of the other mode is one error naming it",
          "[partition][cli]") {
  test::TempDir tmp;
  const std::vector<std::string> base = {"partition", "--dataset", test::CoraDir(), "--name", "g", "--out", tmp / "out"};
  struct Case {
    bool mpi;
    std::vector<std::string> more;
    std::string expect;
  };
  const bool mpi_built = fs::exists(fs::path(test::DistgnnBin()).parent_path() / "distgnn-mpi-partition");
  const std::vector<Case> cases = {
      {false, {"--batch-edges", "100"}, "--batch-edges goes with --mpi"},
      {false, {"--cluster-max-arcs", "5"}, "--cluster-max-arcs goes with --mpi"},
      {false, {"--method", "scotch"}, "--method 'scotch': expected metis, random or stream"},
      {false, {"--num-parts", "0"}, "--num-parts must be >= 1, got 0"},
      {false, {"--balance", "nodes"}, "--balance 'nodes': expected train or edges"},
      {false, {"--format", "csv"}, "--format 'csv': expected plain or ogb"},
      {false, {"--edge-data", "a/b=x.npy"}, "--edge-data 'a/b=x.npy': NAME must be"},
      {true, {"--memory-budget", "1G"}, "--memory-budget does not go with --mpi"},
      {true, {"--stream-passes", "2"}, "--stream-passes does not go with --mpi"},
      {true, {"--method", "metis"}, "--method 'metis': expected auto, cluster, scotch, stream or random (with --mpi)"},
      {true, {"--num-parts", "0"}, "--num-parts must be >= 1, got 0"},
      {true, {"--balance", "nodes"}, "--balance 'nodes': expected train or edges"},
      {true, {"--batch-edges", "0"}, "--batch-edges must be in [1, 16777216]"},
  };
  for (const Case& c : cases) {
    if (c.mpi && !mpi_built) continue;
    std::vector<std::string> args = base;
    if (c.mpi) args.insert(args.begin() + 1, "--mpi");  // a singleton MPI run: the flags fail before any work
    args.insert(args.end(), c.more.begin(), c.more.end());
    if (c.more[0] != "--num-parts") args.insert(args.end(), {"--num-parts", "2"});
    INFO(c.expect);
    auto r = test::RunDistgnn(args, 60);
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find(c.expect) != std::string::npos);
    CHECK(!fs::exists(tmp / "out"));
  }
}

TEST_CASE("CLI: generate is deterministic, homophilous, and partitions", "[partition][cli][generate]") {
  test::TempDir tmp;
  for (const char* name : {"a", "b"}) {
    auto r = test::RunDistgnn({"generate", "--nodes", "5000", "--edges", "60000", "--feat-dim", "8", "--classes",
                               "4", "--seed", "11", "--out", tmp / name, "--threads", name[0] == 'a' ? "1" : "2"});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  for (const char* f : {"src.npy", "dst.npy", "features.npy", "labels.npy", "split.npy"})
    CHECK(ReadAll(tmp / (std::string("a/") + f)) == ReadAll(tmp / (std::string("b/") + f)));
  auto ds = LoadDataset(tmp / "a", EdgeListOptions{});
  REQUIRE(ds.ok());
  REQUIRE(ds->num_nodes == 5000);
  REQUIRE(ds->edges.src.size() == 60000);
  const int64_t* lab = ds->node_data.at("labels").as<int64_t>();
  int64_t same = 0;
  for (size_t e = 0; e < ds->edges.src.size(); ++e) {
    REQUIRE(ds->edges.src[e] != ds->edges.dst[e]);
    same += lab[ds->edges.src[e]] == lab[ds->edges.dst[e]];
  }
  CHECK(same > 0.7 * 60000);  // homophily 0.8 (+ chance)
  const int8_t* split = ds->node_data.at("split").as<int8_t>();
  int64_t train = 0;
  for (int64_t v = 0; v < 5000; ++v) train += split[v] == 0;
  CHECK(std::abs(train - 3000) < 200);
  auto r = test::RunDistgnn({"partition", "--dataset", tmp / "a", "--num-parts", "3", "--balance", "train",
                             "--name", "syn", "--out", tmp / "p"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  REQUIRE(LoadPartitionConfig(tmp / "p/syn.json").ok());
  auto other = test::RunDistgnn({"generate", "--nodes", "5000", "--edges", "60000", "--feat-dim", "8", "--classes",
                                 "4", "--seed", "12", "--out", tmp / "c"});
  REQUIRE(other.exit_code == 0);
  CHECK(ReadAll(tmp / "a/src.npy") != ReadAll(tmp / "c/src.npy"));
}

TEST_CASE("CLI: --normalize-features stores each feature row divided by its sum", "[partition][cli][cora]") {
  test::TempDir tmp;
  std::string out = tmp / "cora2n";
  auto r = test::RunDistgnn({"partition", "--dataset", test::CoraDir(), "--undirected", "--num-parts", "2",
                             "--method", "metis", "--name", "cora", "--out", out, "--normalize-features"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  EdgeListOptions o;
  o.undirected = true;
  auto ds = LoadDataset(test::CoraDir(), o);
  REQUIRE(ds.ok());
  // The reference: Cora's binary bag-of-words rows divided by their word counts.
  const Array& raw = ds->node_data.at("features");
  Array want = Array::Zeros(DType::kFloat32, raw.shape);
  const int64_t f = raw.shape[1];
  for (int64_t i = 0; i < raw.shape[0]; ++i) {
    double words = 0;
    for (int64_t j = 0; j < f; ++j) words += raw.as<float>()[i * f + j];
    for (int64_t j = 0; j < f; ++j)
      want.as<float>()[i * f + j] = raw.as<float>()[i * f + j] * (words > 0 ? static_cast<float>(1.0 / words) : 1.f);
  }
  test::ReferenceGraph g;
  g.num_nodes = ds->num_nodes;
  g.src = ds->edges.src;
  g.dst = ds->edges.dst;
  g.node_data = ds->node_data;
  g.node_data["features"] = want;
  test::CheckPartition(out + "/cora.json", g, 2);

  WriteText(tmp / "e.tsv", "0 1\n1 2\n");
  auto bad = test::RunDistgnn({"partition", "--edges", tmp / "e.tsv", "--num-parts", "1", "--method", "random",
                               "--name", "x", "--out", tmp / "x", "--normalize-features"});
  INFO(bad.output);
  CHECK(bad.exit_code != 0);
  CHECK(bad.output.find("--normalize-features: the input has no node array 'features'") != std::string::npos);
}
