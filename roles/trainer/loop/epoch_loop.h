// EpochLoop: the one training loop; every task (epoch_task.h) runs in it.
//
// Run(): resume (--resume: the newest complete step checkpoint, the servers'
// part loaded first, else checkpoint.pt; docs/recovery.md), then epochs 1 ..
// spec.epochs, each:
//   training steps  the task's batches, each one optimizer step
//                   (train_step.h); progress lines (every
//                   log_every steps, every 2 s; a bar on a terminal) and
//                   TrainProgress; a step checkpoint when CheckpointDue says so
//   sums            loss, steps, correct, count and the task's items,
//                   all-reduced over the trainers
//   evaluation      every eval_every epochs and the last; the best finite
//                   validation number keeps its parameters and the learnt
//                   rows (the servers' copy, CHECKPOINT keep best; in
//                   train-local RUN/checkpoints/best-rows/)
//   outputs         a summary line, the epoch's metrics.jsonl line
//                   (MetricsLog), checkpoint.pt with every trainer's RNG state
// and at the end model.pt (best parameters), the final metrics line, the
// task's outputs (best parameters and rows) and every trainer's trainer-R.json (loop/trainer_summary.h;
// the last parameters' fingerprint).
//
// SIGTERM (common/base/stop_request.h) stops the run at the next step
// boundary: the step a trainer is in finishes, every trainer learns of the
// request from that step's gradient all-reduce (or, between epochs, from a
// vote of its own), a step checkpoint is written as above (between epochs:
// one at the epoch's end, batch 0), and Run returns
// Status::Stopped, which the trainer role turns into exit code
// kExitPreempted. --resume then continues bit-identically.
//
// Only rank 0 writes files (each rank writes its own trainer-R.json); every rank makes the same
// collectives in the same order.
//
// Restart exactness: a step checkpoint holds the parameters, optimizer, best
// so far, every trainer's RNG state and epoch sums, the position in the epoch
// and the step counters (global, embedding, optimizer: the learning-rate
// schedule's position); the servers' mutable tensors go
// with it (TrainHooks::server_checkpoint) and the task's own state
// (EpochTask::SaveState). Resuming reads the epoch's done batches again
// without training on them, so the run continues with the identical state.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "config/train_spec.h"
#include "roles/trainer/loop/epoch_stats.h"
#include "roles/trainer/loop/metrics_log.h"
#include "roles/trainer/loop/train_hooks.h"
#include "roles/trainer/loop/epoch_task.h"
#include "roles/trainer/loop/train_step.h"

namespace dg {

class EpochLoop {
 public:
  // `spec`, `hooks` and `task` outlive the loop.
  EpochLoop(const TrainSpec& spec, const TrainHooks& hooks, EpochTask* task);

  // The whole run: resume, epochs, evaluation, checkpoints, outputs.
  Status Run();
  // One epoch's training steps and its sums over all trainers (no evaluation,
  // no outputs).
  Result<EpochStats> TrainEpoch(int64_t epoch);
  const std::vector<EpochStats>& history() const { return history_; }
  // One optimizer step outside the epochs (a trainer stepping on batches it
  // holds): `batches` batches, their losses from `loss_of`.
  Status Step(size_t batches, const BatchLossFn& loss_of, StepOutcome* out) { return step_.Run(batches, loss_of, out); }

 private:
  enum class Checkpoint { kNone, kStep, kEpoch };
  // The one place that decides when to checkpoint: after step global_step_
  // (epoch_end false) or at the end of an epoch.
  Checkpoint CheckpointDue(bool epoch_end) const;
  bool EvaluationDue(int64_t epoch) const { return epoch % spec_.eval_every == 0 || epoch == spec_.epochs; }
  Status EndEpoch(EpochStats* st);
  bool StopAgreed() const;
  Status StopBetweenEpochs(int64_t done_epoch);
  Status Stopped(const std::string& after, double write_seconds) const;
  Status Finish();
  Status KeepBest(int64_t epoch, const Evaluation& e);
  Status AllReduceSums(double sums[5], EpochStats* st);
  void Progress(int64_t epoch, int64_t step, double loss, double acc, double elapsed, double wait, bool done);
  void Summary(const EpochStats& st) const;
  std::string EpochLine(const EpochStats& st, const std::string& extra) const;
  std::string FinalLine() const;

  // loop_checkpoint.cpp
  void WriteLoopState(torch::serialize::OutputArchive* ar);
  Status SaveCheckpoint(int64_t epoch);
  Status SaveStepCheckpoint(int64_t epoch, int64_t batch, const double sums[5], EpochStats* st);
  Result<int64_t> Resume();
  Result<std::string> SharedCheckpointPath(const std::string& rank0_path);
  Result<int64_t> LoadCheckpoint(const std::string& path);
  // The learnt rows of the best epoch (loop_checkpoint.cpp): kept beside the
  // best parameters at each new best, put back before the outputs.
  Status KeepBestRows();
  Status RestoreBestRows();

  const TrainSpec& spec_;
  const TrainHooks& hooks_;
  EpochTask* task_;
  TrainingStep step_;
  MetricsLog metrics_;
  std::vector<EpochStats> history_;
  int64_t best_epoch_ = 0;  // 0 = none
  int64_t best_rows_step_ = 0;  // the global step of the learnt rows kept with the best (0 = none kept)
  Evaluation best_;
  int64_t global_step_ = 0;  // training steps so far, every epoch (step checkpoint N)
  int64_t last_step_checkpoint_ = -1;  // the global step of the last step checkpoint written
  // Where a mid-epoch step checkpoint resumes: the epoch, the batches done in
  // it and this trainer's sums so far (loss, steps, correct, count, items).
  int64_t resume_epoch_ = 0, resume_batch_ = 0;
  double resume_sums_[5] = {0, 0, 0, 0, 0};
  int64_t steps_per_epoch_ = 0;
  bool tty_ = false;
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

}  // namespace dg
