// TrainingStep: the one optimizer step of every task (epoch_task.h), in this
// order, each part timed into the step's StepSplit:
//   zero_grad                       optimizer
//   per batch: the task's Loss      forward
//              backward             backward (a batch's loss / batches)
//   the learnt rows' update         optimizer (TrainHooks::embedding: one
//                                   sparse Update of every batch's rows)
//   gradient all-reduce             allreduce (GradientSync; also the stop vote)
//   optimizer step                  optimizer
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
#include "roles/trainer/training_state.h"

namespace dg {

// The loss of batch b (0-based) of a step.
using BatchLossFn = std::function<Result<BatchLoss>(size_t b)>;

class TrainingStep {
 public:
  // `spec`, `hooks` and `model` outlive the step.
  TrainingStep(const TrainSpec& spec, const TrainHooks& hooks, ModelState* model)
      : spec_(spec), hooks_(hooks), m_(model) {}

  // One optimizer step over `batches` batches, their losses from `loss_of`;
  // fills out's loss and counts and adds to out->split.
  Status Run(size_t batches, const BatchLossFn& loss_of, StepOutcome* out);

 private:
  const TrainSpec& spec_;
  const TrainHooks& hooks_;
  ModelState* m_;
  std::vector<torch::Tensor> rows_;  // the step's learnt-row leaves, reused
  std::vector<int64_t> row_ids_;     // their ids, when more than one batch
};

}  // namespace dg
