// The progress deadline of `partition --mpi` (runtime/watchdog.h): the clock
// runs only while a rank waits inside MPI, so a computation longer than
// --progress-timeout is no stall. PT-Scotch's own MPI calls reach the PMPI
// wrappers of runtime/progress_shim.cpp (on Cora, PT-Scotch's run counts more
// completed MPI calls than --method random's). Every rank held in PT-Scotch's
// stage, and rank 0 held in METIS's computation while the other ranks wait
// (OnRankZero tells them it still runs), for several times the deadline: the
// run completes, `partition verify` passes, and the summary's longest wait
// stays below the deadline. The holds are the test-only hook of
// runtime/test_hold.h (DISTGNN_TEST_HOLD), so each test sets how long a rank
// computes instead of racing the machine with a large graph: Cora, seconds each.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "test/partition/mpi_run.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;

namespace {

// The first number after `label` in the run's output; -1 if absent.
// The count of the summary's "N completed MPI calls"; -1 if absent.
double CompletedCalls(const std::string& output) {
  const size_t at = output.find(" completed MPI calls");
  if (at == std::string::npos) return -1;
  const size_t from = output.rfind(' ', at - 1);
  return std::strtod(output.c_str() + from + 1, nullptr);
}

// A run under a --progress-timeout of `timeout` seconds whose computation
// timed after `label` outlasted it: it completes, no rank took it for a stall,
// and no wait inside MPI came near the deadline. Returns {the computation's
// seconds, the longest wait}.
std::pair<double, double> CheckNoStall(const RunResult& r, const std::string& label, double timeout) {
  CHECK(r.output.find("no progress for") == std::string::npos);
  REQUIRE(r.exit_code == 0);
  const double computed = NumberAfter(r.output, label);
  CHECK(computed > timeout);
  const double wait = NumberAfter(r.output, "longest wait in MPI without progress: ");
  CHECK(wait >= 0);
  CHECK(wait < timeout);
  return {computed, wait};
}

// RunMpi with DISTGNN_TEST_HOLD=hold in every rank's environment.
RunResult RunMpiHeld(int np, const std::vector<std::string>& args, const std::string& hold, const std::string& log,
                     double timeout) {
  return RunMpi(np, args, log, timeout, {"DISTGNN_TEST_HOLD=" + hold});
}

}  // namespace

TEST_CASE("MPI partition: PT-Scotch's MPI calls reach the progress wrappers", "[partition][mpi][liveness]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  double calls[2];
  const char* methods[2] = {"scotch", "random"};
  for (int m = 0; m < 2; ++m) {
    auto r = RunMpi(2, {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "cora", "--method",
                        methods[m], "--out", tmp / methods[m]},
                    tmp / (std::string("log-") + methods[m]), 60);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    calls[m] = CompletedCalls(r.output);
    CHECK(calls[m] > 0);
  }
  // The same exchanges of ours either way; PT-Scotch adds its own calls.
  INFO("completed MPI calls: scotch " << calls[0] << ", random " << calls[1]);
  CHECK(calls[0] > calls[1] + 20);
}

TEST_CASE("MPI partition: PT-Scotch computing for longer than --progress-timeout is no stall",
          "[partition][mpi][liveness]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  // Every rank computes 8 s right before SCOTCH_dgraphPart, under a 3 s deadline.
  const double timeout = 3;
  auto r = RunMpiHeld(2, {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "cora", "--out",
                          tmp / "parts", "--progress-timeout", "3", "--method", "scotch"},
                      "scotch:8", tmp / "log", 90);
  INFO(r.output);
  const auto [assign, wait] = CheckNoStall(r, "  assign: ", timeout);
  CHECK(assign >= 8);
  WARN("liveness: PT-Scotch's stage took " << assign << " s under a " << timeout << " s deadline; longest wait in "
                                           << "MPI " << wait << " s");
  auto v = RunDistgnn({"partition", "verify", tmp / "parts/cora.json"});
  INFO(v.output);
  CHECK(v.exit_code == 0);
}

TEST_CASE("MPI partition: METIS on rank 0 computing for longer than --progress-timeout is no stall",
          "[partition][mpi][liveness]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  // --method cluster with a --cluster-max-arcs above the cluster graph's arcs:
  // rank 0 partitions the cluster graph with METIS, held 8 s, while rank 1
  // waits under a 3 s deadline.
  const double timeout = 3;
  auto r = RunMpiHeld(2, {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "cora", "--out",
                          tmp / "parts", "--progress-timeout", "3", "--cluster-max-arcs", "100000000", "--method",
                          "cluster"},
                      "rank-0:8", tmp / "log", 90);
  INFO(r.output);
  const auto [metis, wait] = CheckNoStall(r, "partitioned by METIS on rank 0 in ", timeout);
  CHECK(metis >= 8);
  WARN("liveness: METIS on rank 0 took " << metis << " s under a " << timeout << " s deadline; longest wait in MPI "
                                         << wait << " s");
  auto v = RunDistgnn({"partition", "verify", tmp / "parts/cora.json"});
  INFO(v.output);
  CHECK(v.exit_code == 0);
}

TEST_CASE("MPI partition: a rank waiting in MPI past --progress-timeout on a rank that computes is a stall",
          "[partition][mpi][liveness]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  // Rank 1 alone computes 30 s before SCOTCH_dgraphPart; rank 0 enters it and
  // waits inside MPI: its watchdog ends the run at the 3 s deadline, naming the
  // stage, and nothing is left behind.
  const auto t0 = std::chrono::steady_clock::now();
  auto r = RunMpiHeld(2, {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "cora", "--out",
                          tmp / "parts", "--progress-timeout", "3", "--method", "scotch"},
                      "scotch:30:1", tmp / "log", 90);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("no progress for 3 s in stage 'assign'") != std::string::npos);
  CHECK(seconds < 30);
  CHECK(!std::filesystem::exists(tmp / "parts"));
  CHECK(NoTraceOf(tmp.path(), "parts"));
}
