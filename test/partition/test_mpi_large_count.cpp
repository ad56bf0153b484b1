// `partition --mpi` moves any count through MPI: its gathers, scatters and
// all-to-all rounds pass at most MaxCallCount() elements to one MPI call
// (runtime/exchange.h), in as many calls as a transfer needs, so no int count
// or displacement stops a graph past 2^31 elements. The test hook
// DISTGNN_TEST_MPI_MAX_COUNT narrows the per-call limit so that Cora crosses
// it: its 10,556 arcs, its edges gathered for METIS, its cluster graph and
// every exchange's rounds go in many calls, and every method writes the same
// bytes as without the hook.
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

// One run of Cora (--undirected) with `extra` flags into tmp/out, with `env` in every rank.
RunResult RunCora(int ranks, const std::vector<std::string>& extra, const fs::path& out, const std::string& env) {
  std::vector<std::string> args = {"--dataset", CoraDir(), "--undirected", "--name", "cora", "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunMpi(ranks, args, out.string() + ".log", 170, env.empty() ? std::vector<std::string>() : std::vector<std::string>{env});
}

}  // namespace

TEST_CASE("MPI partition: past MPI's per-call count every method writes the same bytes", "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  struct Case {
    std::string name;
    int ranks;
    std::string limit;  // DISTGNN_TEST_MPI_MAX_COUNT
    std::vector<std::string> flags;
  };
  const std::vector<Case> cases = {
      {"auto", 2, "1000", {"--num-parts", "2", "--balance", "train,edges"}},  // the whole graph gathered on rank 0
      {"cluster", 3, "1000", {"--num-parts", "2", "--method", "cluster", "--cluster-max-arcs", "100000"}},
      {"cluster-split", 2, "100", {"--num-parts", "3", "--method", "cluster", "--edge-split", "0.8,0.1,0.1"}},
      {"stream", 2, "1000", {"--num-parts", "3", "--method", "stream"}},
      {"scotch", 2, "1000", {"--num-parts", "2", "--method", "scotch", "--balance", "train"}},
      {"random", 3, "300", {"--num-parts", "4", "--method", "random"}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const RunResult plain = RunCora(c.ranks, c.flags, tmp / (c.name + "-plain"), "");
    INFO(plain.output);
    REQUIRE(plain.exit_code == 0);
    const RunResult narrowed =
        RunCora(c.ranks, c.flags, tmp / (c.name + "-narrowed"), "DISTGNN_TEST_MPI_MAX_COUNT=" + c.limit);
    INFO(narrowed.output);
    REQUIRE(narrowed.exit_code == 0);
    RequireSameTree(tmp / (c.name + "-plain"), tmp / (c.name + "-narrowed"), 2 * 9 + 3);
  }
}
