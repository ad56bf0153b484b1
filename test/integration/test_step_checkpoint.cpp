// Step checkpoints and automatic restart on 127.0.0.1, real processes on Cora:
// a job stopped or SIGKILLed mid-epoch and resumed from its last complete
// step checkpoint ends with the parameters (and DistEmbedding table) of the
// same job run without a stop, bit for bit; `launch --max-restarts` relaunches
// a job that lost a trainer and records the restart in run.json; exhausted
// restarts end non-zero naming every failure.
#include <catch2/catch.hpp>

#include <cmath>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "roles/trainer/model/model_facts.h"
#include "test/integration/dist_job.h"
#include "test/integration/restart_support.h"

using namespace dg::test;

namespace {

namespace fs = std::filesystem;

std::string FileBytes(const std::string& path) { return ReadFile(path); }

std::string Embedding(const DistJob& job, int part) {
  return FileBytes(job.dir() / ("parts/part" + std::to_string(part) + "/tensors/embedding.npy"));
}

}  // namespace

TEST_CASE("train-local with an embedding, a cosine learning-rate schedule and gradient clipping, SIGKILLed after a "
          "mid-epoch step checkpoint and resumed, ends bit-identical",
          "[checkpoint][cora]") {
  TempDir dir;
  auto ex = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1449", "--hidden", "16", "--classes", "7",
                        "-o", dir / "m.pt"},
                       120);
  REQUIRE(ex.exit_code == 0);
  // 140 training nodes in batches of 16: 9 steps an epoch; checkpoints every 4.
  const std::vector<std::string> common{"--dataset", CoraDir(), "--undirected", "--model", dir / "m.pt",
                                        "--fanouts", "5,10", "--batch-size", "16", "--epochs", "3", "--lr", "0.01",
                                        "--seed", "3", "--threads", "1", "--embedding-dim", "16",
                                        "--checkpoint-every-steps", "4", "--lr-schedule", "cosine",
                                        "--warmup-steps", "5", "--min-lr", "0.001", "--grad-clip", "0.5"};
  // Step 12 is batch 3 of epoch 2; the last step is 27.
  CheckTrainLocalResumeExact(dir, common, 12, 27, "val_acc");
  CHECK(CompleteSteps(dir / "full") == std::vector<int64_t>{20, 24});  // keep: 2
  // The rate of each epoch's last step (9, 18, 27 of 27, after 5 of warm-up).
  const std::vector<std::string> lr = EpochValues(dir / "full/metrics.jsonl", "lr");
  REQUIRE(lr.size() == 3);
  for (int e = 0; e < 3; ++e) {
    const double p = (9.0 * (e + 1) - 1 - 5) / (27 - 5);
    CHECK(std::stod(lr[e]) == Approx(0.001 + (0.01 - 0.001) * 0.5 * (1 + std::cos(M_PI * p))).epsilon(1e-5));
  }
  CHECK(FileBytes(dir / "killed/model.pt").size() > 0);
}

TEST_CASE("2 servers + 2 trainers with a DistEmbedding: stopped after a mid-epoch step checkpoint and resumed, "
          "bit-identical parameters and embedding",
          "[checkpoint][distributed][embedding][cora]") {
  DistJob full(EmbeddingCheckpointJob(0, 3));
  const std::string reference = RunToCompletion(full, 2, 0.0, kBatch10);
  // 2 epochs = 14 steps: complete checkpoints 9 and 12 (keep 2); 12 is batch 5 of epoch 2.
  DistJob part(EmbeddingCheckpointJob(0, 2));
  RunToCompletion(part, 2, 0.0, kBatch10);
  CHECK(CompleteSteps(part.run_dir()) == std::vector<int64_t>{9, 12});
  for (int p = 0; p < 2; ++p)
    CHECK(fs::is_directory(part.dir() / ("parts/part" + std::to_string(p) + "/checkpoints/step-12")));
  std::vector<std::string> more = kBatch10;
  more.insert(more.end(), {"--set", "train.epochs=3"});
  const std::string resumed = RunToCompletion(part, 2, 0.0, more, {"--resume"});
  CHECK(resumed == reference);
  for (const char* t : {"trainer-0", "trainer-1"})
    CHECK(part.Proc(t).Output().find("resuming at step 12 (epoch 2, after batch 5)") != std::string::npos);
  for (int p = 0; p < 2; ++p) CHECK(Embedding(part, p) == Embedding(full, p));
  CHECK(EpochLosses(part.run_dir() + "/metrics.jsonl") == EpochLosses(full.run_dir() + "/metrics.jsonl"));
}

TEST_CASE("2 servers + 2 trainers + samplers with a DistEmbedding: trainer 1 SIGKILLed mid-epoch, every process "
          "killed, resumed: bit-identical parameters and embedding",
          "[checkpoint][distributed][embedding][cora]") {
  DistJob full(EmbeddingCheckpointJob(1, 3));
  const std::string reference = RunToCompletion(full, 2, 0.0, kBatch10);
  DistJob job(EmbeddingCheckpointJob(1, 3));
  job.StartAll(kBatch10);
  // Step 9 is batch 2 of epoch 2.
  REQUIRE(WaitFor(120, [&] { return fs::exists(job.run_dir() + "/checkpoints/step-9/manifest.json"); }));
  job.Proc("trainer-1").Signal(SIGKILL);
  // The machine is lost: the rest go too, servers without their clean-shutdown save.
  for (const std::string& name : job.Names()) job.Proc(name).Signal(SIGKILL);
  for (const std::string& name : job.Names()) job.Proc(name).Wait(10);
  const std::vector<int64_t> left = CompleteSteps(job.run_dir());
  REQUIRE(!left.empty());
  const std::string resumed = RunToCompletion(job, 2, 0.0, kBatch10, {"--resume"});
  CHECK(resumed == reference);
  CHECK(job.Proc("trainer-0").Output().find("resuming at step " + std::to_string(left.back())) != std::string::npos);
  for (int p = 0; p < 2; ++p) CHECK(Embedding(job, p) == Embedding(full, p));
}

TEST_CASE("launch --max-restarts 1: a trainer SIGKILLed mid-epoch, the job restarts from its step checkpoint and "
          "ends bit-identical, run.json lists the restart",
          "[checkpoint][launch][embedding][cora]") {
  DistJob full(EmbeddingCheckpointJob(1, 3));
  const std::string reference = RunToCompletion(full, 2, 0.0, kBatch10);
  DistJob job(EmbeddingCheckpointJob(1, 3));
  LaunchKillRestart(job, {"--set", "train.batch_size=10"}, 9, 1);
  CHECK(ReadSummary(job.run_dir(), 0).fingerprint == reference);
  CHECK(ReadSummary(job.run_dir(), 1).fingerprint == reference);
  for (int p = 0; p < 2; ++p) CHECK(Embedding(job, p) == Embedding(full, p));
  const std::string run = ReadFile(job.run_dir() + "/run.json");
  INFO(run);
  CHECK(run.find("\"restarts\": [{") != std::string::npos);
  const std::string redone = JsonField(run, "steps_redone");
  REQUIRE(!redone.empty());
  CHECK(std::stoll(redone) <= 3);
  const std::string report = ReadFile(job.run_dir() + "/report.html");
  CHECK(report.find("<h2>Restarts</h2>") != std::string::npos);
  CHECK(fs::is_directory(job.run_dir() + "/logs-attempt-1"));
}

TEST_CASE("launch --max-restarts 1: a job that loses a trainer twice exits non-zero naming both failures",
          "[checkpoint][launch][cora]") {
  DistJob job(EmbeddingCheckpointJob(0, 3));
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", job.dir() / "job.yaml", "--set", "train.batch_size=10", "--max-restarts", "1"},
               job.dir() / "launch.log");
  REQUIRE(WaitFor(120, [&] { return fs::exists(job.run_dir() + "/checkpoints/step-3/manifest.json"); }));
  pid_t first = LaunchedTrainer(job.dir() / "job.yaml", 1);
  REQUIRE(first > 0);
  kill(first, SIGKILL);
  REQUIRE(WaitFor(120, [&] {
    const pid_t p = LaunchedTrainer(job.dir() / "job.yaml", 1);
    return p > 0 && p != first && launch.Output().find("restart 1 of 1") != std::string::npos;
  }));
  kill(LaunchedTrainer(job.dir() / "job.yaml", 1), SIGKILL);
  const int code = launch.Wait(120);
  const std::string out = launch.Output();
  INFO(out);
  CHECK(code == 1);
  CHECK(out.find("1 restart(s) of 1 did not finish the job; every failure:") != std::string::npos);
  CHECK(out.find("\n  1. ") != std::string::npos);
  CHECK(out.find("\n  2. ") != std::string::npos);
  CHECK(FindProcesses(std::string(job.dir() / "job.yaml")).empty());
}
