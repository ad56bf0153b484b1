// TrainingStep: the one optimizer step of every task (epoch_task.h), in this
// order, each part timed into the step's StepSplit:
//   the step's learning rate        optimizer (train.lr_schedule, lr_schedule.h;
//                                   none: the optimizer keeps lr)
//   zero_grad                       optimizer
//   per batch: the task's Loss      forward
//              backward             backward (a batch's loss / batches)
//   the learnt rows' update         optimizer (TrainHooks::embedding: one
//                                   sparse Update of every batch's rows)
//   gradient all-reduce             allreduce (GradientSync; also the stop vote)
//   gradient clipping               optimizer (train.grad_clip: the global L2
//                                   norm of the averaged gradients, so every
//                                   trainer scales alike; the learnt rows'
//                                   sparse gradients are not clipped)
//   optimizer step                  optimizer; ModelState::optimizer_steps + 1
// The step's loss is the mean of its batches' mean losses; the counts are
// their sums. Several batches in one step give the gradient of one trainer
// that saw them all (data-parallel trainers with one batch each match it).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "config/train_spec.h"
#include "roles/trainer/loop/epoch_task.h"
#include "roles/trainer/loop/train_hooks.h"
#include "roles/trainer/loop/training_state.h"

namespace dg {

// The loss of batch b (0-based) of a step.
using BatchLossFn = std::function<Result<BatchLoss>(size_t b)>;

class TrainingStep {
 public:
  // `spec`, `hooks` and `model` outlive the step.
  TrainingStep(const TrainSpec& spec, const TrainHooks& hooks, ModelState* model)
      : spec_(spec), hooks_(hooks), m_(model), last_lr_(spec.lr_or_default()) {}

  // One optimizer step over `batches` batches, their losses from `loss_of`;
  // fills out's loss and counts and adds to out->split.
  Status Run(size_t batches, const BatchLossFn& loss_of, StepOutcome* out);
  // The run's optimizer steps (epochs x steps per epoch): where a cosine
  // schedule ends. 0 = not known.
  void set_total_steps(int64_t steps) { total_steps_ = steps; }
  // The learning rate of the next step, and of the last one (lr before any).
  double NextLr() const;
  double last_lr() const { return last_lr_; }

 private:
  void AddRowsL2(size_t batches);

  const TrainSpec& spec_;
  const TrainHooks& hooks_;
  ModelState* m_;
  int64_t total_steps_ = 0;
  double last_lr_;
  std::vector<torch::Tensor> rows_;  // the step's learnt-row leaves, reused
  std::vector<int64_t> row_ids_;     // their ids, when more than one batch
};

}  // namespace dg
