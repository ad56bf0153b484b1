// The only 32-bit limit on arcs of `partition --mpi` is PT-Scotch's (Debian's
// SCOTCH_Num): the adjacency's offsets are 64-bit, so the cluster and stream
// methods take a graph past 2^31 - 1 arcs, and PT-Scotch gets the cluster
// graph of such a graph. The test hook DISTGNN_TEST_SCOTCH_MAX_ARCS
// (methods/scotch.cpp) narrows the limit so that Cora (10,556 arcs) crosses
// it: the methods that do not call PT-Scotch write the same bytes as without
// the hook; PT-Scotch partitions Cora's cluster graph (about 4,700 arcs) into
// a valid, balanced partition, the same bytes by --method scotch and by the
// cluster method's fallback; and with a limit below the cluster graph too
// PT-Scotch is refused with both counts named and nothing left behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "test/partition/mpi_run.h"
#include "test/partition/partition_checks.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

RunResult RunMpiWith(const std::string& env, const std::vector<std::string>& args, const std::string& log) {
  return RunMpi(2, args, log, 120, env.empty() ? std::vector<std::string>() : std::vector<std::string>{env});
}

}  // namespace

TEST_CASE("MPI partition: past PT-Scotch's arc limit the other methods write the same bytes and PT-Scotch is refused",
          "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  const std::string narrowed = "DISTGNN_TEST_SCOTCH_MAX_ARCS=1000";  // Cora's symmetric graph has 10,556 arcs
  for (const char* method : {"cluster", "stream"}) {
    std::vector<std::string> args = {"--dataset", CoraDir(), "--undirected", "--num-parts", "3", "--name", "cora",
                                     "--method", method, "--cluster-max-arcs", "100000", "--out"};
    auto plain = RunMpiWith("", [&] { auto a = args; a.push_back(tmp / (std::string(method) + "-plain")); return a; }(),
                            tmp / (std::string("log-plain-") + method));
    INFO(plain.output);
    REQUIRE(plain.exit_code == 0);
    auto past = RunMpiWith(narrowed, [&] { auto a = args; a.push_back(tmp / (std::string(method) + "-past")); return a; }(),
                           tmp / (std::string("log-past-") + method));
    INFO(past.output);
    REQUIRE(past.exit_code == 0);
    RequireSameTree(tmp / (std::string(method) + "-plain"), tmp / (std::string(method) + "-past"), 3 * 9 + 3);
  }
  auto refused = RunMpiWith(narrowed, {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "cora",
                                       "--method", "scotch", "--out", tmp / "scotch"},
                            tmp / "log-scotch");
  INFO(refused.output);
  CHECK(refused.exit_code != 0);
  CHECK(refused.output.find("PT-Scotch (Debian's build counts in a 32-bit SCOTCH_Num) takes at most 1000 arcs; this "
                            "symmetric graph has 10556 and its cluster graph still ") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "scotch", "log-scotch"));
}

TEST_CASE("MPI partition: past PT-Scotch's arc limit PT-Scotch partitions the cluster graph", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  const std::string narrowed = "DISTGNN_TEST_SCOTCH_MAX_ARCS=6000";
  const ReferenceGraph g = LoadReference(CoraDir(), true);
  auto run = [&](const std::string& name, const std::vector<std::string>& flags) {
    std::vector<std::string> args = {"--dataset", CoraDir(), "--undirected", "--num-parts", "3", "--balance", "train",
                                     "--seed", "3", "--name", "cora", "--out", tmp / name};
    args.insert(args.end(), flags.begin(), flags.end());
    RunResult r = RunMpiWith(narrowed, args, tmp / ("log-" + name));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("PT-Scotch: the graph's 10556 arcs are more than it takes (6000, a 32-bit SCOTCH_Num): it "
                        "partitions the ") != std::string::npos);
    CHECK(r.output.find(" edges from PT-Scotch on the clusters, ") != std::string::npos);
    const PartitionConfig cfg = CheckPartition(tmp / (name + "/cora.json"), g, 3);
    int64_t train = 0;
    for (const PartInfo& pi : cfg.parts) train += pi.num_train;
    for (const PartInfo& pi : cfg.parts) {  // the repair's cap is 4 %
      CHECK(pi.num_nodes <= 1.05 * g.num_nodes / 3 + 1);
      CHECK(pi.num_train <= 1.05 * train / 3 + 1);
    }
    CHECK(cfg.edge_cut < static_cast<int64_t>(g.src.size()) / 5);  // Cora's communities: far below a random cut's 2/3
    return r;
  };
  run("scotch", {"--method", "scotch"});
  const RunResult fallback = run("fallback", {"--method", "cluster", "--cluster-max-arcs", "1000"});
  CHECK(fallback.output.find("--cluster-max-arcs); PT-Scotch partitions them instead") != std::string::npos);
  RequireSameTree(tmp / "scotch", tmp / "fallback", 3 * 9 + 3, "cora.json");  // NAME.json names the method
  run("again", {"--method", "scotch"});
  RequireSameTree(tmp / "scotch", tmp / "again", 3 * 9 + 3);
}
