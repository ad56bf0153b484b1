// The progress deadline of distgnn-mpi-partition (runtime/watchdog.h) against
// PT-Scotch: a run whose SCOTCH_dgraphPart computes for several times
// --progress-timeout completes and `partition verify` passes, since the clock runs
// only while a rank waits inside MPI and PT-Scotch's own calls reach the
// PMPI wrappers of runtime/progress_shim.cpp (on Cora, PT-Scotch's run counts
// more completed MPI calls than --method random's). The summary's longest
// wait stays below the deadline. Likewise METIS on rank 0 partitioning a
// cluster graph for longer than the deadline while the other ranks wait
// (OnRankZero tells them it still runs).
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
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

// Held by each test that times a long computation against the deadline, so
// that two of them never share the cores under `ctest -j` (each runs 2 ranks
// flat out; together they starve a rank into a wait past the deadline).
class TimedComputationLock {
 public:
  TimedComputationLock() {
    const char* dir = std::getenv("TMPDIR");
    fd_ = ::open((std::string(dir ? dir : "/tmp") + "/distgnn-test-timed-computation.lock").c_str(),
                 O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~TimedComputationLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  TimedComputationLock(const TimedComputationLock&) = delete;
  TimedComputationLock& operator=(const TimedComputationLock&) = delete;

 private:
  int fd_ = -1;
};

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
  TimedComputationLock alone;
  TempDir tmp;
  // The assignment takes about 20 s here on 2 ranks on an idle machine, longer
  // when the cores are shared; PT-Scotch's own waits between its ranks reach
  // 1.5 s idle, so the deadline leaves room for a loaded machine.
  auto gen = RunDistgnn({"generate", "--nodes", "300000", "--edges", "3000000", "--feat-dim", "4", "--classes", "4",
                         "--seed", "1", "--out", tmp / "ds"});
  INFO(gen.output);
  REQUIRE(gen.exit_code == 0);
  const double timeout = 6;
  auto r = RunMpi(2, {"--dataset", tmp / "ds", "--undirected", "--num-parts", "2", "--name", "g", "--out",
                      tmp / "parts", "--progress-timeout", "6", "--method", "scotch"},
                  tmp / "log", 120);
  INFO(r.output);
  // The assignment alone outlasts the deadline (several times over here).
  const auto [assign, wait] = CheckNoStall(r, "  assign: ", timeout);
  WARN("liveness: PT-Scotch's stage took " << assign << " s under a " << timeout << " s deadline; longest wait in "
                                           << "MPI " << wait << " s, longest gap between marks "
                                           << NumberAfter(r.output, "longest gap between progress marks: ") << " s");
  auto v = RunDistgnn({"partition", "verify", tmp / "parts/g.json"});
  INFO(v.output);
  CHECK(v.exit_code == 0);
}

TEST_CASE("MPI partition: METIS on rank 0 computing for longer than --progress-timeout is no stall",
          "[partition][mpi][liveness]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TimedComputationLock alone;
  TempDir tmp;
  // A uniform graph hardly clusters: its cluster graph keeps 95 % of its 40M
  // arcs, and with --method cluster (the default plan would take the whole
  // graph under this limit) a --cluster-max-arcs above that has rank 0 partition it with
  // METIS (about 9 s here) while rank 1 waits. The other waits of the run
  // (the ranks' label propagation ending apart) stay near 0.5 s idle; the
  // deadline leaves room for a loaded machine.
  auto gen = RunDistgnn({"generate", "--model", "uniform", "--nodes", "1000000", "--edges", "20000000", "--feat-dim",
                         "4", "--classes", "4", "--seed", "1", "--out", tmp / "ds"});
  INFO(gen.output);
  REQUIRE(gen.exit_code == 0);
  const double timeout = 5;
  auto r = RunMpi(2, {"--dataset", tmp / "ds", "--num-parts", "2", "--name", "g", "--out", tmp / "parts",
                      "--progress-timeout", "5", "--cluster-max-arcs", "100000000", "--method", "cluster"},
                  tmp / "log", 400);
  INFO(r.output);
  const auto [metis, wait] = CheckNoStall(r, "partitioned by METIS on rank 0 in ", timeout);
  WARN("liveness: METIS on rank 0 took " << metis << " s under a " << timeout << " s deadline; longest wait in MPI "
                                         << wait << " s");
}
