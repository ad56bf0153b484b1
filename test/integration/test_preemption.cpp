// SIGTERM as schedulers send it (scancel, a Slurm time limit, systemctl stop,
// a pod's deletion), on 127.0.0.1 with real processes on Cora: the trainers
// finish their step, all write the step checkpoint of the same step and exit
// kExitPreempted; `launch` reports the preemption with exit code 4 and leaves
// nothing running; --resume then ends bit-identical to a run never stopped.
#include <catch2/catch.hpp>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <regex>

#include "roles/job/role_args.h"
#include "test/integration/dist_job.h"
#include "test/integration/restart_support.h"

using namespace dg::test;

namespace {

namespace fs = std::filesystem;

// The step N of "stopped after step N" (mid-epoch) or "stopped after epoch E
// (step N)" (between epochs) in a log ("" when absent).
std::string StoppedStep(const std::string& log) {
  static const std::regex re("stopped after (step ([0-9]+)|epoch [0-9]+ \\(step ([0-9]+)\\))");
  std::smatch m;
  if (!std::regex_search(log, m, re)) return "";
  return m[2].matched ? m[2].str() : m[3].str();
}

// Starts `launch` of `job`, waits for step checkpoint 3, sends SIGTERM to
// `victim(launch)`, and checks the preemption: exit 4, every trainer stopped
// after the same step, that step's checkpoint complete, nothing left running.
// Returns the step.
int64_t LaunchAndPreempt(const DistJob& job, const std::function<pid_t(Subprocess&)>& victim) {
  Subprocess launch;
  std::vector<std::string> argv{DistgnnBin(), "launch", job.dir() / "job.yaml"};
  argv.insert(argv.end(), kBatch10.begin(), kBatch10.end());
  launch.Start(argv, job.dir() / "launch.log");
  REQUIRE(WaitFor(240, [&] { return fs::exists(job.run_dir() + "/checkpoints/step-3/manifest.json") || !launch.running(); }));
  const pid_t pid = victim(launch);
  REQUIRE(pid > 0);
  const auto t0 = std::chrono::steady_clock::now();
  kill(pid, SIGTERM);
  const int code = launch.Wait(120);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string out = launch.Output();
  INFO(out);
  CHECK(code == dg::kExitPreempted);
  CHECK(out.find("launch: preempted: SIGTERM: stopped after ") != std::string::npos);
  const std::string t0_log = ReadFile(job.run_dir() + "/logs/0-trainer-0.log");
  const std::string t1_log = ReadFile(job.run_dir() + "/logs/1-trainer-0.log");
  INFO(t0_log);
  INFO(t1_log);
  const std::string step = StoppedStep(t0_log);
  REQUIRE(!step.empty());
  CHECK(StoppedStep(t1_log) == step);  // the stop vote: the same step on every trainer
  const std::vector<int64_t> complete = CompleteSteps(job.run_dir());
  REQUIRE(!complete.empty());
  CHECK(complete.back() == std::stoll(step));  // between epochs too: one at the epoch's end
  CHECK(FindProcesses(std::string(job.dir() / "job.yaml")).empty());
  WARN("SIGTERM to launch exit: " << seconds << " s");
  return std::stoll(step);
}

}  // namespace

TEST_CASE("train-local: SIGTERM stops after the current step with a step checkpoint and exit 4, --resume ends "
          "bit-identical",
          "[preemption][checkpoint][cora]") {
  TempDir dir;
  auto ex = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "16", "--classes", "7",
                        "-o", dir / "m.pt"},
                       120);
  REQUIRE(ex.exit_code == 0);
  // 140 training nodes in batches of 16: 9 steps an epoch, no scheduled step checkpoints.
  const std::vector<std::string> common{"--dataset", CoraDir(), "--undirected", "--model", dir / "m.pt",
                                        "--fanouts", "5,10", "--batch-size", "16", "--epochs", "40", "--lr", "0.01",
                                        "--seed", "3", "--threads", "1"};
  auto full = TrainLocalTo(common, dir / "full");
  INFO(full.output);
  REQUIRE(full.exit_code == 0);

  Subprocess p;
  StartTrainLocal(&p, common, dir / "stopped");
  REQUIRE(WaitFor(120, [&] { return fs::exists(dir / "stopped/checkpoint.pt") || !p.running(); }));
  p.Signal(SIGTERM);
  CHECK(p.Wait(60) == dg::kExitPreempted);
  const std::string out = p.Output();
  INFO(out);
  CHECK(out.find("stopped: SIGTERM: stopped after ") != std::string::npos);
  // Mid-epoch or between epochs: a step checkpoint of that step.
  const std::string step = StoppedStep(out);
  REQUIRE(!step.empty());
  CHECK(CompleteSteps(dir / "stopped") == std::vector<int64_t>{std::stoll(step)});

  auto resumed = TrainLocalTo(common, dir / "stopped", {"--resume"});
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CheckSameRun(dir / "full", dir / "stopped", "val_acc");
}

TEST_CASE("launch: SIGTERM to the launcher mid-epoch, every trainer stops after the same step with a checkpoint, "
          "exit 4, launch --resume ends bit-identical",
          "[preemption][launch][embedding][cora]") {
  DistJob full(EmbeddingCheckpointJob(1, 3));
  const std::string reference = RunToCompletion(full, 2, 0.0, kBatch10);
  DistJob job(EmbeddingCheckpointJob(1, 3));
  LaunchAndPreempt(job, [](Subprocess& launch) { return launch.pid(); });
  std::vector<std::string> argv{"launch", job.dir() / "job.yaml", "--resume"};
  argv.insert(argv.end(), kBatch10.begin(), kBatch10.end());
  auto resumed = RunDistgnn(argv, 300);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(ReadSummary(job.run_dir(), 0).fingerprint == reference);
  CHECK(ReadSummary(job.run_dir(), 1).fingerprint == reference);
  for (int p = 0; p < 2; ++p) {
    const std::string table = "parts/part" + std::to_string(p) + "/tensors/embedding.npy";
    CHECK(ReadFile(job.dir() / table) == ReadFile(full.dir() / table));
  }
}

TEST_CASE("a trainer that gets SIGTERM itself (systemd, the kubelet): the other trainer stops after the same step, "
          "launch reports the preemption with exit 4",
          "[preemption][launch][cora]") {
  DistJob job(EmbeddingCheckpointJob(1, 3));
  const std::string yaml = job.dir() / "job.yaml";
  LaunchAndPreempt(job, [&](Subprocess&) { return LaunchedTrainer(yaml, 1); });
}
