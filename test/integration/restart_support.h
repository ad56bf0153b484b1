// What the recovery tests of every task share (test_step_checkpoint.cpp,
// test_task_restart.cpp): the complete step checkpoints of a run directory,
// the trainer process `launch` started for a machine, and the train-local
// run that is SIGKILLed after a step checkpoint and resumed, compared with
// the same run uninterrupted.
#pragma once

#include <catch2/catch.hpp>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "roles/trainer/model/model_facts.h"
#include "test/integration/dist_job.h"

namespace dg::test {

// Step numbers of the complete step checkpoints under run_dir.
inline std::vector<int64_t> CompleteSteps(const std::string& run_dir) {
  namespace fs = std::filesystem;
  std::vector<int64_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(run_dir + "/checkpoints", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("step-", 0) == 0 && n.find('.') == std::string::npos && fs::exists(e.path() / "manifest.json"))
      out.push_back(std::stoll(n.substr(5)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The trainer `launch` started for machine m of the job whose job.yaml is
// `job_yaml` (0 = none yet).
inline pid_t LaunchedTrainer(const std::string& job_yaml, int machine) {
  for (pid_t pid : FindProcesses(job_yaml)) {
    std::string cmd = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find("--role trainer") != std::string::npos &&
        cmd.find("--machine " + std::to_string(machine) + " ") != std::string::npos)
      return pid;
  }
  return 0;
}

// The number after `"key": ` in every epoch line of a metrics.jsonl ("" where absent).
inline std::vector<std::string> EpochValues(const std::string& metrics_path, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in(ReadFile(metrics_path));
  for (std::string line; std::getline(in, line);)
    if (line.find("\"final\"") == std::string::npos) out.push_back(JsonField(line, key));
  return out;
}

// Two runs' model.pt and epoch lines agree bit for bit: the parameters, and
// per epoch the loss, the evaluation (`eval_key`, computed with the epoch's
// last parameters) and the learning rate (with a schedule).
inline void CheckSameRun(const std::string& run_a, const std::string& run_b, const std::string& eval_key) {
  auto a = dg::ModelParameterVector(run_a + "/model.pt"), b = dg::ModelParameterVector(run_b + "/model.pt");
  REQUIRE((a.ok() && b.ok()));
  CHECK(*a == *b);
  const std::vector<double> la = EpochLosses(run_a + "/metrics.jsonl"), lb = EpochLosses(run_b + "/metrics.jsonl");
  CHECK(!la.empty());
  CHECK(la == lb);
  CHECK(EpochValues(run_a + "/metrics.jsonl", eval_key) == EpochValues(run_b + "/metrics.jsonl", eval_key));
  CHECK(EpochValues(run_a + "/metrics.jsonl", "lr") == EpochValues(run_b + "/metrics.jsonl", "lr"));
}

// Cora, 2 partitions, batch 10 (kBatch10): 7 steps per trainer per epoch, a
// step checkpoint every 3 steps, a persistent 16-dim DistEmbedding beside the
// features, `samplers` sampler processes per trainer.
inline DistJobOptions EmbeddingCheckpointJob(int samplers, int epochs) {
  DistJobOptions o;
  o.parts = 2;
  o.samplers = samplers;
  o.epochs = epochs;
  o.peer_timeout_seconds = 3;
  o.extra_train_yaml =
      "checkpoint_every_steps: 3, embedding: {dim: 16, optimizer: sparse_adam, lr: 0.05, persistent: true}";
  o.model = {"--arch", "sage", "--in-dim", "1449", "--hidden", "32", "--classes", "7", "--layers", "2"};
  return o;
}
inline const std::vector<std::string> kBatch10 = {"--set", "train.batch_size=10"};

// `train-local COMMON --out OUT EXTRA...` to its end.
inline RunResult TrainLocalTo(const std::vector<std::string>& common, const std::string& out,
                              const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"train-local"};
  args.insert(args.end(), common.begin(), common.end());
  args.insert(args.end(), {"--out", out});
  args.insert(args.end(), extra.begin(), extra.end());
  return RunDistgnn(args, 300);
}

// `train-local COMMON --out OUT` started in the background (log OUT.log).
inline void StartTrainLocal(Subprocess* p, const std::vector<std::string>& common, const std::string& out) {
  std::vector<std::string> args{DistgnnBin(), "train-local"};
  args.insert(args.end(), common.begin(), common.end());
  args.insert(args.end(), {"--out", out});
  p->Start(args, out + ".log");
}

// `train-local ARGS --out DIR/full` to the end, and `train-local ARGS --out
// DIR/killed` SIGKILLed once step checkpoint `kill_at` is complete, then run
// again with --resume: both end with the same parameters (model.pt) and the
// same epoch losses, bit for bit. `last_step` is the run's last step (no
// "resuming at step" line is expected when the kill came after it).
inline void CheckTrainLocalResumeExact(const TempDir& dir, const std::vector<std::string>& common, int64_t kill_at,
                                       int64_t last_step, const std::string& eval_key) {
  namespace fs = std::filesystem;
  auto full = TrainLocalTo(common, dir / "full");
  INFO(full.output);
  REQUIRE(full.exit_code == 0);

  Subprocess p;
  StartTrainLocal(&p, common, dir / "killed");
  const std::string manifest = dir / ("killed/checkpoints/step-" + std::to_string(kill_at) + "/manifest.json");
  REQUIRE(WaitFor(240, [&] { return fs::exists(manifest) || !p.running(); }));
  p.Signal(SIGKILL);
  p.Wait(10);
  const std::vector<int64_t> left = CompleteSteps(dir / "killed");
  REQUIRE(!left.empty());
  auto resumed = TrainLocalTo(common, dir / "killed", {"--resume"});
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  if (left.back() < last_step)
    CHECK(resumed.output.find("resuming at step " + std::to_string(left.back())) != std::string::npos);
  CheckSameRun(dir / "full", dir / "killed", eval_key);
}

// `launch JOB --max-restarts 1` of `job` with its trainer of `machine`
// SIGKILLed once step checkpoint `kill_at` is complete: the launch restarts
// the job and succeeds; returns its output.
inline std::string LaunchKillRestart(const DistJob& job, const std::vector<std::string>& launch_args, int64_t kill_at,
                                     int machine) {
  namespace fs = std::filesystem;
  Subprocess launch;
  std::vector<std::string> argv{DistgnnBin(), "launch", job.dir() / "job.yaml", "--max-restarts", "1"};
  argv.insert(argv.end(), launch_args.begin(), launch_args.end());
  launch.Start(argv, job.dir() / "launch.log");
  const std::string manifest = job.run_dir() + "/checkpoints/step-" + std::to_string(kill_at) + "/manifest.json";
  REQUIRE(WaitFor(240, [&] { return fs::exists(manifest); }));
  const pid_t victim = LaunchedTrainer(job.dir() / "job.yaml", machine);
  REQUIRE(victim > 0);
  kill(victim, SIGKILL);
  const int code = launch.Wait(300);
  const std::string out = launch.Output();
  INFO(out);
  REQUIRE(code == 0);
  CHECK(out.find("launch: restart 1 of 1") != std::string::npos);
  CHECK(FindProcesses(std::string(job.dir() / "job.yaml")).empty());
  return out;
}

// The same job run uninterrupted and with its trainer of `machine` SIGKILLed
// at step checkpoint `kill_at` and restarted by launch: both end with the
// same run (CheckSameRun). `prepare` runs on each job before its launch,
// `check` on the restarted job's run directory at the end.
inline void CheckLaunchRestartExact(const DistJobOptions& o, const std::vector<std::string>& launch_args,
                                    int64_t kill_at, int machine, const std::string& eval_key,
                                    const std::function<void(const DistJob&)>& prepare = nullptr,
                                    const std::function<void(const std::string&)>& check = nullptr) {
  DistJob full(o);
  if (prepare) prepare(full);
  std::vector<std::string> args{"launch", full.dir() / "job.yaml"};
  args.insert(args.end(), launch_args.begin(), launch_args.end());
  auto r = RunDistgnn(args, 600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  DistJob job(o);
  if (prepare) prepare(job);
  const std::string out = LaunchKillRestart(job, launch_args, kill_at, machine);
  CHECK(out.find("resumed at step") != std::string::npos);
  CheckSameRun(full.run_dir(), job.run_dir(), eval_key);
  if (check) check(job.run_dir());
}

}  // namespace dg::test
