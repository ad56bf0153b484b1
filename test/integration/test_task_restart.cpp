// Recovery of the link prediction and control-variate tasks, on Cora with
// real processes on 127.0.0.1, as test_step_checkpoint.cpp checks it for node
// classification: a run SIGKILLed after a mid-epoch step checkpoint and
// resumed (train-local --resume), and a launched job whose trainer is
// SIGKILLed mid-epoch and restarted by `launch --max-restarts 1`, end with
// the parameters, losses and evaluations of the same run uninterrupted, bit
// for bit. Control variate's epochs count from 1 in metrics.jsonl.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "test/integration/dist_job.h"
#include "test/integration/restart_support.h"

using namespace dg::test;

namespace {

void Export(const TempDir& dir, const std::vector<std::string>& flags) {
  std::vector<std::string> args{"model", "export"};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"-o", dir / "m.pt"});
  auto r = RunDistgnn(args, 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

const std::vector<std::string> kLinkModel = {"--arch", "sage", "--in-dim", "1433", "--hidden", "16", "--layers", "2",
                                             "--task", "link"};
const std::vector<std::string> kGcnModel = {"--arch", "gcn",     "--in-dim", "1433", "--hidden",
                                            "16",     "--classes", "7",      "--dropout", "0.5"};

}  // namespace

TEST_CASE("train-local --task link with a step learning-rate schedule and gradient clipping, SIGKILLed after a "
          "mid-epoch step checkpoint and resumed, ends bit-identical",
          "[checkpoint][link][cora]") {
  TempDir dir;
  Export(dir, kLinkModel);
  // 8972 training edges in batches of 1000: 9 steps an epoch; checkpoints every 4.
  const std::vector<std::string> common{"--dataset", CoraDir(), "--undirected", "--task", "link", "--model",
                                        dir / "m.pt", "--fanouts", "5,10", "--batch-size", "1000", "--epochs", "3",
                                        "--lr", "0.01", "--seed", "3", "--threads", "1", "--eval-negatives", "20",
                                        "--checkpoint-every-steps", "4", "--lr-schedule", "step", "--warmup-steps",
                                        "2", "--lr-step-size", "5", "--lr-gamma", "0.5", "--grad-clip", "1"};
  // Step 12 is batch 3 of epoch 2; the last step is 27.
  CheckTrainLocalResumeExact(dir, common, 12, 27, "val_auc");
  // The last steps of the epochs (8, 17, 26 from 0): 0.01 * 0.5^floor((t - 2) / 5).
  CHECK(EpochValues(dir / "full/metrics.jsonl", "lr") == std::vector<std::string>{"0.005", "0.00125", "0.000625"});
}

TEST_CASE("train-local --algorithm control_variate with a cosine learning-rate schedule and gradient clipping, "
          "SIGKILLed after a mid-epoch step checkpoint and resumed, ends bit-identical, epochs counted from 1",
          "[checkpoint][cv][cora]") {
  TempDir dir;
  Export(dir, kGcnModel);
  // 140 training nodes in batches of 16: 9 steps an epoch; checkpoints every 4.
  const std::vector<std::string> common{"--dataset", CoraDir(), "--undirected", "--algorithm", "control_variate",
                                        "--model", dir / "m.pt", "--fanouts", "2", "--batch-size", "16", "--epochs",
                                        "3", "--lr", "0.01", "--seed", "3", "--threads", "1",
                                        "--checkpoint-every-steps", "4", "--lr-schedule", "cosine", "--warmup-steps",
                                        "3", "--grad-clip", "0.5"};
  CheckTrainLocalResumeExact(dir, common, 12, 27, "val_acc");
  CHECK(EpochValues(dir / "killed/metrics.jsonl", "epoch") == std::vector<std::string>{"1", "2", "3"});
  CHECK(EpochValues(dir / "killed/metrics.jsonl", "algorithm") ==
        std::vector<std::string>{"control_variate", "control_variate", "control_variate"});
}

TEST_CASE("train-local --algorithm control_variate with learnt rows beside the features, SIGKILLed after a "
          "mid-epoch step checkpoint and resumed, ends bit-identical",
          "[checkpoint][cv][cora]") {
  TempDir dir;
  std::vector<std::string> model = kGcnModel;
  model[3] = "1441";  // 1433 features + 8 learnt columns
  Export(dir, model);
  // One fanout per layer, the first the learnt rows' hop; 9 steps an epoch.
  const std::vector<std::string> common{"--dataset", CoraDir(), "--undirected", "--algorithm", "control_variate",
                                        "--model", dir / "m.pt", "--fanouts", "2,2", "--batch-size", "16",
                                        "--epochs", "3", "--lr", "0.01", "--seed", "3", "--threads", "1",
                                        "--embedding-dim", "8", "--embedding-weight-decay", "0.01",
                                        "--checkpoint-every-steps", "4"};
  CheckTrainLocalResumeExact(dir, common, 12, 27, "val_acc");
}

TEST_CASE("launch --max-restarts 1: link prediction on 2 partitions with a cosine learning-rate schedule and "
          "gradient clipping, a trainer SIGKILLed mid-epoch, restarts from its step checkpoint and ends bit-identical",
          "[checkpoint][launch][link][cora]") {
  DistJobOptions o;
  o.parts = 2;
  o.samplers = 0;
  o.epochs = 3;
  o.peer_timeout_seconds = 3;
  o.model = kLinkModel;
  o.partition_args = {"--edge-split", "0.85,0.05,0.10"};
  o.extra_train_yaml =
      "task: link, negative: {k: 1, distribution: uniform}, eval_negatives: 20, intra_op_threads: 1, "
      "checkpoint_every_steps: 3, grad_clip: 0.5, lr_schedule: {kind: cosine, warmup_steps: 4, min_lr: 0.0001}";
  // 4486 training edges per trainer in batches of 500: 9 steps an epoch.
  CheckLaunchRestartExact(o, {"--set", "train.batch_size=500"}, 12, 1, "val_auc");
}

TEST_CASE("launch --max-restarts 1: control variate, its trainer SIGKILLed mid-epoch, restarts from its step "
          "checkpoint (history tensors on the server) and ends bit-identical",
          "[checkpoint][launch][cv][cora]") {
  // One trainer: with several, a trainer's history reads race with the others' writes.
  DistJobOptions o;
  o.parts = 1;
  o.samplers = 0;
  o.epochs = 3;
  o.peer_timeout_seconds = 3;
  o.model = kGcnModel;
  o.fanouts = "[2]";
  o.extra_train_yaml =
      "algorithm: control_variate, cv_input: feat_mean_1, intra_op_threads: 1, checkpoint_every_steps: 4";
  // 140 training nodes in batches of 16: 9 steps an epoch.
  auto propagate = [](const DistJob& job) {
    auto r = RunDistgnn({"propagate", "--config", job.dir() / "job.yaml", "--input", "features", "--hops", "1",
                         "--norm", "mean", "--output", "feat_mean"},
                        300);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  CheckLaunchRestartExact(o, {"--set", "train.batch_size=16"}, 12, 0, "val_acc", propagate,
                          [](const std::string& run_dir) {
                            CHECK(EpochValues(run_dir + "/metrics.jsonl", "epoch") ==
                                  std::vector<std::string>{"1", "2", "3"});
                          });
}
