// distgnn-mpi-partition under a real `mpirun` on 127.0.0.1 (ranks
// oversubscribed on this machine's cores): the output of P = K and P < K runs
// is checked against the input graph in memory (partition_checks.h: every edge
// once in its destination's part, ownership ranges, node rows by orig_nids,
// seed files), each part's aggregation index against the single-machine
// writer's (WriteAggregateIndex over the same CSRs), the cut refinement
// cuts no more than the repair left, `partition verify` finds
// every file matching its recorded checksum, and a run is byte for
// byte the same for the same P, K and seed. `distgnn partition --mpi` runs
// the same binary. User mistakes end every rank with one message and leave
// nothing; a rank killed mid-run ends the run within a bound, the message
// names the rank and host, and nothing is left behind.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "common/storage/partition.h"
#include "roles/partition/source_index.h"
#include "test/partition/mpi_run.h"
#include "test/partition/partition_checks.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

// Every part within 5 % of the mean in nodes, in-edges and train nodes.
void CheckEvenParts(const PartitionConfig& cfg, int k) {
  int64_t nodes = 0, edges = 0, train = 0;
  for (const PartInfo& pi : cfg.parts) nodes += pi.num_nodes, edges += pi.num_edges, train += pi.num_train;
  for (const PartInfo& pi : cfg.parts) {
    CHECK(pi.num_nodes <= 1.05 * nodes / k);
    CHECK(pi.num_edges <= 1.05 * edges / k);
    CHECK(pi.num_train <= 1.05 * train / k);
  }
}

}  // namespace

TEST_CASE("MPI partition of Cora: valid for P = K and P < K, deterministic", "[partition][mpi][cora]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  const test::ReferenceGraph g = test::LoadReference(test::CoraDir(), true);
  test::TempDir tmp;
  for (const std::string method : {"cluster", "scotch", "stream"})
    for (auto [np, k] : std::vector<std::pair<int, int>>{{2, 2}, {3, 3}, {2, 3}, {3, 5}}) {
      const std::string tag = method + std::to_string(np) + "-" + std::to_string(k);
      const std::string out = tmp / ("cora" + tag);
      auto r = RunMpi(np, {"--dataset", test::CoraDir(), "--undirected", "--num-parts", std::to_string(k),
                           "--balance", "train", "--name", "cora", "--out", out, "--seed", "3", "--method", method},
                      tmp / ("log" + tag));
      INFO(method << " P=" << np << " K=" << k << "\n" << r.output);
      REQUIRE(r.exit_code == 0);
      CHECK(r.output.find("partition (MPI, " + std::to_string(np) + " ranks)") != std::string::npos);
      const PartitionConfig cfg = test::CheckPartition(out + "/cora.json", g, k);
      CHECK(cfg.part_method == method);
      CHECK(cfg.num_classes == 7);
      // Every part within 5 % of the mean in nodes and train nodes (the repair's cap is 4 %).
      int64_t train = 0;
      for (const PartInfo& pi : cfg.parts) train += pi.num_train;
      for (const PartInfo& pi : cfg.parts) {
        CHECK(pi.num_nodes <= 1.05 * g.num_nodes / k + 1);
        CHECK(pi.num_train <= 1.05 * train / k + 1);
      }
      // The cut refinement after the repair never cuts more than it found, and
      // the cut it minimizes is the edge cut the partition reports.
      const std::string first = method == "scotch"   ? "PT-Scotch"
                                : method == "stream" ? "the stream"
                                                     : "METIS on the clusters";
      std::smatch cut, reported;
      REQUIRE(std::regex_search(r.output, cut, std::regex("cut: ([0-9]+) edges from " + first + ", ([0-9]+) after "
                                                           "the repair, ([0-9]+) after the refinement")));
      CHECK(std::stoll(cut[3]) <= std::stoll(cut[2]));
      REQUIRE(std::regex_search(r.output, reported, std::regex("edge cut: ([0-9]+) of")));
      CHECK(reported[1] == cut[3]);
      if (method == "cluster") CHECK(r.output.find("arcs between them, partitioned by METIS on rank 0") != std::string::npos);
      CheckAggregateIndex(cfg, tmp / ("agg" + tag));
      CHECK(NoTraceOf(tmp.path(), ".cora" + tag + "."));
      auto v = RunDistgnn({"partition", "verify", out + "/cora.json"});  // NAME.json records every file's SHA-256
      INFO(v.output);
      CHECK(v.exit_code == 0);
      CHECK(v.output.find(std::to_string(k * 11 + 2) + " files match their SHA-256 checksums") != std::string::npos);
    }
  // The same P, K and seed: the same bytes, file for file.
  const std::string again = tmp / "again";
  auto r = RunMpi(3, {"--dataset", test::CoraDir(), "--undirected", "--num-parts", "5", "--balance", "train",
                      "--name", "cora", "--out", again, "--seed", "3", "--method", "cluster"},
                  tmp / "log-again");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // Per part: CSR, seeds, agg index, node arrays; NAME.json, orig_nids, orig_eids.
  test::RequireSameTree(tmp / "coracluster3-5", again, 5 * 9 + 3);
}

// On a skewed graph, in-edges sit on few hubs: METIS's constraints on the
// cluster graph (or PT-Scotch's folded weight), the repair and the cut
// refinement keep nodes, train nodes and in-edges within 5 % of the mean at a
// cut within 1.15x METIS's multi-constraint cut of the same graph.
TEST_CASE("MPI partition: balancing train nodes and in-edges of an R-MAT graph evens every measure at METIS cut",
          "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  test::TempDir tmp;
  const std::string ds = tmp / "ds";
  auto gen = RunDistgnn({"generate", "--model", "rmat", "--nodes", "20000", "--edges", "200000", "--feat-dim", "4",
                         "--classes", "4", "--seed", "1", "--out", ds});
  INFO(gen.output);
  REQUIRE(gen.exit_code == 0);
  const test::ReferenceGraph g = test::LoadReference(ds, false);
  for (const std::string method : {"cluster", "scotch"})
  for (auto [np, k] : std::vector<std::pair<int, int>>{{2, 2}, {3, 3}}) {
    const std::string tag = method + std::to_string(np) + "-" + std::to_string(k);
    auto metis = RunDistgnn({"partition", "--dataset", ds, "--num-parts", std::to_string(k), "--method", "metis",
                             "--balance", "train,edges", "--name", "m", "--out", tmp / ("metis" + tag)});
    INFO(metis.output);
    REQUIRE(metis.exit_code == 0);
    auto r = RunMpi(np, {"--dataset", ds, "--num-parts", std::to_string(k), "--balance", "train,edges", "--name", "g",
                         "--out", tmp / ("mpi" + tag), "--method", method},
                    tmp / ("log" + tag));
    INFO(method << " P=" << np << " K=" << k << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    const PartitionConfig cfg = test::CheckPartition(tmp / ("mpi" + tag + "/g.json"), g, k);
    CheckEvenParts(cfg, k);
    const double cut = NumberAfter(r.output, "edge cut: "), metis_cut = NumberAfter(metis.output, "edge cut: ");
    CHECK(cut > 0);
    CHECK(cut <= 1.15 * metis_cut);
  }
}

// Past --cluster-max-arcs the default plan clusters the graph, and a cluster
// graph larger than the limit too is not gathered: PT-Scotch partitions the
// graph instead, the log says so, and the parts are those of --method scotch
// with the same seed, byte for byte (NAME.json aside, which records the
// cluster plan).
TEST_CASE("MPI partition: a cluster graph over --cluster-max-arcs goes to PT-Scotch", "[partition][mpi][cora]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  test::TempDir tmp;
  auto run = [&](const std::vector<std::string>& extra, const std::string& out) {
    std::vector<std::string> args = {"--dataset", test::CoraDir(), "--undirected", "--num-parts", "2", "--balance",
                                     "train", "--name", "cora", "--out", tmp / out, "--seed", "5"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunMpi(2, args, tmp / ("log-" + out));
  };
  auto fallback = run({"--cluster-max-arcs", "1000"}, "fallback");
  INFO(fallback.output);
  REQUIRE(fallback.exit_code == 0);
  CHECK(fallback.output.find("plan: the graph's 10556 arcs are more than rank 0 partitions (limit 1000, "
                             "--cluster-max-arcs): clusters") != std::string::npos);
  CHECK(fallback.output.find("arcs between them: more than rank 0 partitions (1000, --cluster-max-arcs); PT-Scotch "
                             "partitions the graph instead") != std::string::npos);
  CHECK(fallback.output.find("cut: ") != std::string::npos);
  CHECK(fallback.output.find(" edges from PT-Scotch, ") != std::string::npos);
  const PartitionConfig cfg =
      test::CheckPartition(tmp / "fallback/cora.json", test::LoadReference(test::CoraDir(), true), 2);
  CHECK(cfg.part_method == "cluster");
  auto scotch = run({"--method", "scotch"}, "scotch");
  INFO(scotch.output);
  REQUIRE(scotch.exit_code == 0);
  test::RequireSameTree(tmp / "scotch", tmp / "fallback", 2 * 9 + 3, "cora.json");
}

// A graph without communities hardly clusters: when its cluster graph is
// over --cluster-max-arcs and keeps more than half the graph's arcs, every
// rank streams its own vertices (methods/stream.h). The parts are valid, within
// 5 % of the mean in every measure, cut within 1.15x METIS's, and the same
// bytes as --method stream with the same P, K and seed (NAME.json aside,
// which records the cluster plan the default ran).
TEST_CASE("MPI partition: a uniform graph whose clusters are too many is streamed", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  test::TempDir tmp;
  const std::string ds = tmp / "ds";
  auto gen = RunDistgnn({"generate", "--model", "uniform", "--nodes", "20000", "--edges", "200000", "--feat-dim",
                         "4", "--classes", "4", "--seed", "2", "--out", ds});
  INFO(gen.output);
  REQUIRE(gen.exit_code == 0);
  const test::ReferenceGraph g = test::LoadReference(ds, false);
  for (auto [np, k] : std::vector<std::pair<int, int>>{{2, 2}, {3, 2}, {2, 3}}) {
    const std::string tag = std::to_string(np) + "-" + std::to_string(k);
    auto metis = RunDistgnn({"partition", "--dataset", ds, "--num-parts", std::to_string(k), "--method", "metis",
                             "--balance", "train,edges", "--name", "m", "--out", tmp / ("metis" + tag)});
    INFO(metis.output);
    REQUIRE(metis.exit_code == 0);
    auto run = [&](const std::string& out, const std::vector<std::string>& method) {
      std::vector<std::string> args = {"--dataset", ds, "--num-parts", std::to_string(k), "--balance", "train,edges",
                                       "--name", "g", "--out", tmp / out, "--seed", "4"};
      args.insert(args.end(), method.begin(), method.end());
      return RunMpi(np, args, tmp / ("log" + out));
    };
    auto r = run("mpi" + tag, {"--cluster-max-arcs", "1000"});
    INFO("P=" << np << " K=" << k << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("more than rank 0 partitions (1000, --cluster-max-arcs), and the graph hardly clusters: "
                        "each rank streams its vertices into parts") != std::string::npos);
    std::smatch cut;
    REQUIRE(std::regex_search(r.output, cut, std::regex("cut: ([0-9]+) edges from the stream, ([0-9]+) after the "
                                                        "repair, ([0-9]+) after the refinement")));
    CHECK(std::stoll(cut[3]) <= std::stoll(cut[2]));
    const PartitionConfig cfg = test::CheckPartition(tmp / ("mpi" + tag + "/g.json"), g, k);
    CHECK(cfg.part_method == "cluster");
    CheckEvenParts(cfg, k);
    CHECK(NumberAfter(r.output, "edge cut: ") <= 1.15 * NumberAfter(metis.output, "edge cut: "));
    auto stream = run("stream" + tag, {"--method", "stream"});
    INFO(stream.output);
    REQUIRE(stream.exit_code == 0);
    CHECK(test::CheckPartition(tmp / ("stream" + tag + "/g.json"), g, k).part_method == "stream");
    test::RequireSameTree(tmp / ("mpi" + tag), tmp / ("stream" + tag), static_cast<size_t>(k) * 9 + 3, "g.json");
  }
}

TEST_CASE("MPI partition: random method and --drop-self-loops on an edge list with loops", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  test::TempDir tmp;
  fs::create_directories(tmp / "ds");
  std::vector<int64_t> src, dst, labels(500);
  std::mt19937_64 rng(5);
  for (int e = 0; e < 4000; ++e) {
    src.push_back(static_cast<int64_t>(rng() % 500));
    dst.push_back(e % 97 == 0 ? src.back() : static_cast<int64_t>(rng() % 500));
  }
  for (int v = 0; v < 500; ++v) labels[v] = v % 4;
  auto column = [](const std::vector<int64_t>& v) {
    Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), a.as<int64_t>());
    return a;
  };
  REQUIRE(NpyWrite(tmp / "ds/src.npy", column(src)).ok());
  REQUIRE(NpyWrite(tmp / "ds/dst.npy", column(dst)).ok());
  REQUIRE(NpyWrite(tmp / "ds/labels.npy", column(labels)).ok());
  for (const char* method : {"random", "cluster", "scotch"}) {
    const std::string out = tmp / (std::string("g-") + method);
    auto r = RunMpi(3, {"--dataset", tmp / "ds", "--drop-self-loops", "--num-parts", "4", "--method", method,
                        "--name", "g", "--out", out},
                    tmp / (std::string("log-") + method));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    test::ReferenceGraph g;  // the input list without its loops, in input order
    g.num_nodes = 500;
    for (size_t e = 0; e < src.size(); ++e)
      if (src[e] != dst[e]) g.src.push_back(src[e]), g.dst.push_back(dst[e]);
    g.node_data["labels"] = *NpyMap(tmp / "ds/labels.npy");
    const PartitionConfig cfg = test::CheckPartition(out + "/g.json", g, 4);
    CheckAggregateIndex(cfg, tmp / (std::string("agg-") + method));
  }
}

TEST_CASE("MPI partition: mistakes end every rank with one message and leave nothing", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  test::TempDir tmp;
  auto r = RunMpi(2, {"--dataset", tmp / "missing", "--num-parts", "2", "--name", "x", "--out", tmp / "x"},
                  tmp / "log1", 60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("missing") != std::string::npos);
  CHECK(r.output.find("rank 0 on ") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "x"));

  fs::create_directories(tmp / "taken");
  r = RunMpi(2, {"--dataset", test::CoraDir(), "--num-parts", "2", "--name", "x", "--out", tmp / "taken"},
             tmp / "log2", 60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("exists (use --force to replace it)") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "taken", "taken"));
  CHECK(fs::is_empty(tmp / "taken"));

  // A bad flag value: one message naming the flag, nothing written.
  for (const auto& [flag, value, message] : std::vector<std::array<std::string, 3>>{
           {"--method", "metis", "--method 'metis': expected auto, cluster, scotch, stream or random"},
           {"--cluster-max-arcs", "-1", "--cluster-max-arcs must be >= 0 (0 = automatic)"}}) {
    r = RunMpi(2, {"--dataset", test::CoraDir(), "--num-parts", "2", flag, value, "--name", "x", "--out", tmp / "y"},
               tmp / ("log" + flag), 60);
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find(message) != std::string::npos);
    CHECK(NoTraceOf(tmp.path(), "y"));
  }

  // `distgnn partition --mpi` is this binary.
  test::Subprocess p;
  std::vector<std::string> argv = Mpirun(2);
  for (const std::string& a : {test::DistgnnBin(), std::string("partition"), std::string("--mpi"),
                               std::string("--dataset"), test::CoraDir(), std::string("--undirected"),
                               std::string("--num-parts"), std::string("2"), std::string("--name"),
                               std::string("cora"), std::string("--out"), tmp / "via-distgnn"})
    argv.push_back(a);
  p.Start(argv, tmp / "log4");
  CHECK(p.Wait(120) == 0);
  INFO(p.Output());
  CHECK(LoadPartitionConfig(tmp / "via-distgnn/cora.json").ok());
}

TEST_CASE("MPI partition: a killed rank ends the run, names it, and leaves nothing", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  test::TempDir tmp;
  fs::create_directories(tmp / "ds");
  // Large enough that the ranks are still at work when one is killed.
  const int64_t n = 400000, m = 6000000;
  Array src = Array::Zeros(DType::kInt64, {m}), dst = Array::Zeros(DType::kInt64, {m});
  std::mt19937_64 rng(9);
  for (int64_t e = 0; e < m; ++e) {
    src.as<int64_t>()[e] = static_cast<int64_t>(rng() % n);
    dst.as<int64_t>()[e] = static_cast<int64_t>(rng() % n);
  }
  REQUIRE(NpyWrite(tmp / "ds/src.npy", src).ok());
  REQUIRE(NpyWrite(tmp / "ds/dst.npy", dst).ok());
  std::vector<std::string> argv = Mpirun(2);
  for (const std::string& a : {MpiBin(), std::string("--dataset"), tmp / "ds", std::string("--num-parts"),
                               std::string("2"), std::string("--name"), std::string("big"), std::string("--out"),
                               tmp / "big", std::string("--batch-edges"), std::string("100000")})
    argv.push_back(a);
  test::Subprocess run;
  run.Start(argv, tmp / "log");
  // Wait for the staging directory (every rank is past its start), then kill rank 1.
  pid_t victim = -1;
  const auto t0 = std::chrono::steady_clock::now();
  while (victim < 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bool staged = !NoTraceOf(tmp.path(), ".big.tmp-mpi-");
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string env = ReadAll(e.path().string() + "/environ");
      if (!staged || env.find("OMPI_COMM_WORLD_RANK=1") == std::string::npos) continue;
      if (ReadAll(e.path().string() + "/cmdline").find(tmp / "big") == std::string::npos) continue;
      victim = std::stoi(e.path().filename().string());
    }
  }
  REQUIRE(victim > 0);
  ::kill(victim, SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  const int rc = run.Wait(30);
  INFO(run.Output());
  REQUIRE(rc != -1);  // ended within the bound
  CHECK(rc != 0);
  CHECK(std::chrono::steady_clock::now() - killed < std::chrono::seconds(30));
  CHECK(run.Output().find("rank 1") != std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(NoTraceOf(tmp.path(), "big"));  // no output, no staging directory
  CHECK(NoTraceOf(tmp.path(), ".distgnn-spill"));  // no scratch directory
  CHECK(!test::ProcessAlive(victim));
  for (const auto& e : fs::directory_iterator("/proc"))
    CHECK(ReadAll(e.path().string() + "/cmdline").find(tmp / "big") == std::string::npos);  // no rank left
}
