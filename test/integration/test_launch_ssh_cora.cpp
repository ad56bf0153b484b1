// `distgnn copy` + `distgnn launch` of bundled Cora with the real binary on two
// "machines" reached through a real sshd on 127.0.0.1 (test/integration/
// sshd_fixture.h), each with its own workspace: training reaches the accuracy
// bar, and a remote trainer killed mid-run is named and everything is stopped.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>

#include "test/integration/cora_launch_job.h"
#include "test/integration/sshd_fixture.h"
#include "test/support/skip.h"

using namespace dg::test;

namespace {

// Cora prepared in dir and copied to one workspace per machine; returns them.
std::vector<std::string> PrepareRemoteCora(const Sshd& sshd, const TempDir& dir, const TempDir& remote) {
  std::vector<std::string> ws = {remote / "ws0", remote / "ws1"}, extra;
  for (const auto& w : ws) extra.push_back(sshd.MachineYaml(w) + "    binary: " + DistgnnBin() + "\n");
  PrepareCoraLaunch(dir, extra, "s3cret");
  auto r = RunDistgnn({"copy", dir / "job.yaml"}, 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(std::filesystem::exists(ws[0] + "/parts/part0/indptr.npy"));
  CHECK(!std::filesystem::exists(ws[0] + "/parts/part1"));
  CHECK(std::filesystem::exists(ws[1] + "/parts/part1/indptr.npy"));
  return ws;
}

}  // namespace

TEST_CASE("launch over ssh with the real binary trains Cora to >= 0.78 in the workspaces", "[launch][ssh][cora]") {
  Sshd sshd;
  if (!sshd.skip_reason.empty()) DG_SKIP_OR_FAIL("no test sshd: " << sshd.skip_reason);
  TempDir dir, remote;
  auto ws = PrepareRemoteCora(sshd, dir, remote);
  auto r = RunDistgnn({"launch", dir / "job.yaml"}, 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // Trainer 0 ran in machine 0's workspace; the launcher collected every log.
  CHECK(FinalTestAcc(ws[0] + "/runs/cora/metrics.jsonl") >= 0.78);
  CHECK(std::filesystem::exists(ws[0] + "/runs/cora/model.pt"));
  for (const char* f : {"0-server-0.log", "1-server-0.log", "0-trainer-0.log", "1-trainer-0.log", "1-sampler-1.log"})
    CHECK(std::filesystem::exists(dir / ("runs/cora/logs/" + std::string(f))));
  CHECK(WaitFor(10, [&] { return FindProcesses("--job-id " + JobId(r.output)).empty(); }));
}

TEST_CASE("a real remote trainer killed mid-run over ssh: launch names it within 15 s and stops everything",
          "[launch][ssh][cora]") {
  Sshd sshd;
  if (!sshd.skip_reason.empty()) DG_SKIP_OR_FAIL("no test sshd: " << sshd.skip_reason);
  TempDir dir, remote;
  auto ws = PrepareRemoteCora(sshd, dir, remote);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "train.epochs=500"}, dir / "launch.log");
  std::string id;
  REQUIRE(WaitFor(60, [&] { return !(id = JobId(launch.Output())).empty(); }));
  INFO(launch.Output());
  REQUIRE(WaitFor(120, [&] { return EpochLines(ws[0] + "/runs/cora/metrics.jsonl") > 0; }));  // training runs
  std::vector<pid_t> trainer = RoleProcesses(id, "trainer", 1);  // the remote process, not its ssh client
  REQUIRE(trainer.size() == 1);
  auto t0 = std::chrono::steady_clock::now();
  kill(trainer[0], SIGKILL);
  int rc = launch.Wait(60);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(launch.Output());
  CHECK(rc != 0);
  CHECK(rc != -1);
  CHECK(took < 15);
  CHECK(launch.Output().find("[1/trainer/1]") != std::string::npos);
  CHECK(WaitFor(10, [&] { return FindProcesses("--job-id " + id).empty(); }));
}
