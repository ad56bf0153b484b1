// Partitioning under a memory budget, end to end with the binary:
// the out-of-core path with runs small enough to spill many times writes the
// same bytes as the in-memory path (random, metis; Cora and a random graph);
// --method stream passes the partition invariants and keeps nodes, train
// nodes and edges within 5% of the mean with a cut below random's; METIS with
// too small a budget stops before writing anything, saying what it needs;
// per-part seed files give every trainer exactly NodeSplit's seeds.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include <zlib.h>

#include "common/storage/dataset.h"
#include "common/sampling/minibatch.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "common/storage/partition_seeds.h"
#include "test/partition/partition_checks.h"
#include "test/support/test_support.h"

using namespace dg;
namespace fs = std::filesystem;

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

int SortedRuns(const std::string& log) {
  std::smatch m;
  std::regex re("spill: +[0-9.]+ s \\(([0-9]+) sorted runs");
  return std::regex_search(log, m, re) ? std::stoi(m[1]) : -1;
}

std::string MakeRandomGraph(const test::TempDir& tmp) {
  std::string dir = tmp / "rmat";
  auto r = test::RunDistgnn({"generate", "--nodes", "3000", "--edges", "40000", "--feat-dim", "5", "--classes",
                             "4", "--seed", "9", "--out", dir});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return dir;
}

// DIR's files gzipped into a new dataset directory (X.npy -> X.npy.gz).
std::string GzippedCopy(const std::string& dir, const std::string& out) {
  fs::create_directories(out);
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string bytes = ReadAll(e.path().string());
    gzFile gz = gzopen((out + "/" + e.path().filename().string() + ".gz").c_str(), "wb");
    REQUIRE(gz != nullptr);
    REQUIRE(gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size())) == static_cast<int>(bytes.size()));
    REQUIRE(gzclose(gz) == Z_OK);
  }
  return out;
}

}  // namespace

TEST_CASE("out of core with many spills = in memory, byte for byte (Cora, random graph, gzipped inputs)", "[partition][ooc]") {
  test::TempDir tmp;
  const std::string rmat = MakeRandomGraph(tmp);
  const std::string rmat_gz = GzippedCopy(rmat, tmp / "rmat-gz");
  struct Case {
    std::string dataset;
    std::vector<std::string> flags;
    std::string ooc_dataset;  // the out-of-core run's input, if not `dataset`
  };
  std::vector<Case> cases = {
      {test::CoraDir(), {"--undirected", "--normalize-features"}, ""},  // normalization out of core too
      {rmat, {}, ""},                                                   // mmap'd src/dst, duplicates kept
      {rmat, {"--drop-self-loops", "--drop-duplicates"}, ""},
      {rmat, {}, rmat_gz},  // every input .npy.gz: gunzipped to the scratch dir in pieces, then mapped
  };
  int c = 0;
  for (const Case& cs : cases) {
    for (const std::string method : {"random", "metis"}) {
      INFO(cs.dataset << " " << method);
      const std::string mem = tmp / ("mem" + std::to_string(c)), ooc = tmp / ("ooc" + std::to_string(c));
      ++c;
      std::vector<std::string> base = {"partition", "--dataset", cs.dataset, "--num-parts", "3", "--method", method,
                                       "--name", "g", "--seed", "2"};
      base.insert(base.end(), cs.flags.begin(), cs.flags.end());
      std::vector<std::string> a = base, b = base;
      if (!cs.ooc_dataset.empty()) b[2] = cs.ooc_dataset;
      a.insert(a.end(), {"--out", mem});
      b.insert(b.end(), {"--out", ooc, "--memory-budget", "256M", "--run-size", "24K", "--tmp-dir", tmp.path()});
      auto ra = test::RunDistgnn(a);
      INFO(ra.output);
      REQUIRE(ra.exit_code == 0);
      auto rb = test::RunDistgnn(b);
      INFO(rb.output);
      REQUIRE(rb.exit_code == 0);
      CHECK(SortedRuns(rb.output) >= 10);  // 24 KB runs = 1024 edges each
      test::RequireSameTree(mem, ooc, 9);
    }
  }
  // No spill directories left behind.
  for (const auto& e : fs::directory_iterator(tmp.path()))
    CHECK(e.path().filename().string().find("spill") == std::string::npos);
}

TEST_CASE("partition --method stream: invariants, balance within 5%, cut below random", "[partition][ooc][stream]") {
  test::TempDir tmp;
  const std::string rmat = MakeRandomGraph(tmp);
  for (const auto& [dataset, undirected] : std::vector<std::pair<std::string, bool>>{{test::CoraDir(), true},
                                                                                       {rmat, false}}) {
    test::ReferenceGraph g = test::LoadReference(dataset, undirected);
    for (int k : {2, 3, 4}) {
      for (bool ooc : {false, true}) {
        INFO(dataset << " K=" << k << " ooc=" << ooc);
        std::string out = tmp / ("s" + std::to_string(k) + (ooc ? "o" : "m") + (undirected ? "c" : "r"));
        std::vector<std::string> args = {"partition", "--dataset", dataset, "--num-parts", std::to_string(k),
                                         "--method", "stream", "--name", "g", "--out", out};
        if (undirected) args.push_back("--undirected");
        if (ooc) args.insert(args.end(), {"--memory-budget", "128M", "--run-size", "16K"});
        auto r = test::RunDistgnn(args);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        PartitionConfig cfg = test::CheckPartition(out + "/g.json", g, k);
        int64_t train = 0;
        for (const PartInfo& p : cfg.parts) train += p.num_train;
        for (const PartInfo& p : cfg.parts) {
          CHECK(p.num_nodes <= 1.05 * cfg.num_nodes / k + 1);
          CHECK(p.num_edges <= 1.05 * cfg.num_edges / k + 1);
          CHECK(p.num_train <= 1.05 * train / k + 1);
        }
        // A random assignment cuts about (k-1)/k of the edges.
        CHECK(cfg.edge_cut < 0.75 * cfg.num_edges * (k - 1) / k);
      }
    }
  }
}

TEST_CASE("METIS over the budget: the need and the alternative, nothing written", "[partition][ooc]") {
  test::TempDir tmp;
  std::string dir = tmp / "big";
  auto g = test::RunDistgnn({"generate", "--nodes", "20000", "--edges", "1000000", "--feat-dim", "2", "--classes",
                             "2", "--out", dir});
  REQUIRE(g.exit_code == 0);
  fs::create_directory(tmp / "outs");
  auto r = test::RunDistgnn({"partition", "--dataset", dir, "--num-parts", "2", "--method", "metis", "--name", "g",
                             "--out", tmp / "outs/p", "--memory-budget", "60M"});
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--method metis needs about") != std::string::npos);
  CHECK(r.output.find("--memory-budget 60.0 MB") != std::string::npos);
  CHECK(r.output.find("--method stream") != std::string::npos);
  CHECK(fs::is_empty(tmp / "outs"));
  for (const auto& e : fs::directory_iterator(tmp.path()))
    CHECK(e.path().filename().string().find("spill") == std::string::npos);
  // Too small for the per-node arrays: its own message.
  auto r2 = test::RunDistgnn({"partition", "--dataset", dir, "--num-parts", "2", "--method", "random", "--name", "g",
                              "--out", tmp / "outs/p", "--memory-budget", "1M"});
  CHECK(r2.exit_code != 0);
  CHECK(r2.output.find("is too small for 20000 nodes") != std::string::npos);
  CHECK(fs::is_empty(tmp / "outs"));
  auto r3 = test::RunDistgnn({"partition", "--dataset", dir, "--num-parts", "2", "--name", "g", "--out",
                              tmp / "outs/p", "--memory-budget", "lots"});
  CHECK(r3.exit_code != 0);
  CHECK(r3.output.find("--memory-budget 'lots'") != std::string::npos);
}

TEST_CASE("per-part seed files give exactly NodeSplit's seeds, also through pull", "[partition][ooc][seeds]") {
  test::TempDir tmp;
  std::string out = tmp / "cora3";
  auto r = test::RunDistgnn({"partition", "--dataset", test::CoraDir(), "--undirected", "--num-parts", "3",
                             "--method", "metis", "--name", "cora", "--out", out});
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadPartitionConfig(out + "/cora.json");
  REQUIRE(cfg.ok());
  REQUIRE(HasPartSeeds(*cfg));
  CHECK(cfg->num_classes == 7);
  auto split = NpyLoad(test::CoraDir() + "/split.npy");
  REQUIRE(split.ok());
  // The split column in new-id order (what the servers serve).
  auto orig = NpyMap(out + "/orig_nids.npy");
  REQUIRE(orig.ok());
  Array by_gid = Array::Zeros(DType::kInt8, {cfg->num_nodes});
  for (int64_t g = 0; g < cfg->num_nodes; ++g) by_gid.as<int8_t>()[g] = split->as<int8_t>()[orig->as<int64_t>()[g]];
  int pulls = 0;
  PullSplitFn pull = [&](int64_t b, int64_t e) -> Result<Array> {
    ++pulls;
    Array a = Array::Zeros(DType::kInt8, {e - b});
    std::copy(by_gid.as<int8_t>() + b, by_gid.as<int8_t>() + e, a.as<int8_t>());
    return a;
  };
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) fs::remove(out + "/part1/train_nids.npy"), fs::remove(out + "/part1/val_nids.npy"),
        fs::remove(out + "/part1/test_nids.npy");  // as on a machine that holds only its own part
    for (int value = 0; value < 3; ++value) {
      auto all = NodesWithSplit(by_gid, value);
      REQUIRE(all.ok());
      for (int world = 1; world <= 5; ++world)
        for (int rank = 0; rank < world; ++rank) {
          INFO("pass " << pass << " value " << value << " world " << world << " rank " << rank);
          auto got = PartSeedSlice(*cfg, value, world, rank, value == 0, pull);
          REQUIRE(got.ok());
          CHECK(*got == NodeSplit(*all, world, rank, value == 0));
        }
    }
  }
  CHECK(pulls > 0);
}
