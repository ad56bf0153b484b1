// `distgnn launch` with the real roles: bundled Cora, 2 machines on 127.0.0.1.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

TEST_CASE("launch trains bundled Cora on 2 machines of 127.0.0.1 to >= 0.78", "[launch][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml"}, dir / "launch.log");
  int rc = launch.Wait(300);
  std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(FinalTestAcc(dir / "runs/cora/metrics.jsonl") >= 0.78);
  for (const char* f : {"0-server-0.log", "1-server-0.log", "0-trainer-0.log", "1-trainer-0.log", "0-sampler-1.log"})
    CHECK(std::filesystem::exists(dir / ("runs/cora/logs/" + std::string(f))));
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
  // Both trainers measure the same rows (config/default_lr.h) and take the same rate.
  for (const char* f : {"0-trainer-0.log", "1-trainer-0.log"})
    CHECK(ReadFile(dir / ("runs/cora/logs/" + std::string(f)))
              .find("lr 0.01 (the default for sage on feature rows of mean L1 size 18.2 <= 64") != std::string::npos);
}

TEST_CASE("killing one real trainer mid-run: launch names it within 15 s and leaves nothing", "[launch][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "train.epochs=200"}, dir / "launch.log");
  std::string id;
  REQUIRE(WaitFor(60, [&] { return !(id = JobId(launch.Output())).empty(); }));
  // Training runs: trainer 0 has written the metrics of a finished epoch.
  INFO(launch.Output());
  REQUIRE(WaitFor(120, [&] { return EpochLines(dir / "runs/cora/metrics.jsonl") > 0; }));
  std::vector<pid_t> trainer = RoleProcesses(id, "trainer", 1);
  REQUIRE(trainer.size() == 1);
  auto t0 = std::chrono::steady_clock::now();
  kill(trainer[0], SIGKILL);
  int rc = launch.Wait(30);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(launch.Output());
  CHECK(rc != 0);
  CHECK(rc != -1);
  CHECK(took < 15);
  CHECK(launch.Output().find("[1/trainer/1]") != std::string::npos);
  CHECK(WaitFor(5, [&] { return FindProcesses("--job-id " + id).empty(); }));
}
