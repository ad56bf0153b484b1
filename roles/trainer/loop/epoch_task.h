// EpochTask: what one kind of training (node classification, link
// prediction, control variate: roles/trainer/tasks/) adds to the epoch loop
// (epoch_loop.h). The loop owns everything every task needs -- resume, step
// checkpoints, metrics.jsonl, evaluation cadence, the best model, progress,
// RNG state, the all-reduce of the epoch's sums, and the optimizer step
// itself (train_step.h: zero_grad, backward, the learnt rows' update,
// gradient all-reduce, clipping, the learning rate, the optimizer) -- and
// asks the task only what differs: its batches, a batch's loss, how to
// evaluate, how to name its numbers, what to write at the end and what state
// of its own a checkpoint must hold. A task is one implementation of this
// interface, in one file.
//
// Calls, per epoch: BeginEpoch, then NextBatch and (unless skipped) Loss
// until NextBatch returns false, then (when the loop's cadence says so)
// Evaluate; at the end, with the best parameters in place, SaveOutputs.
// Every trainer makes the same calls in the same order (the collectives of
// the step and of Evaluate line up).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/trainer/loop/epoch_stats.h"
#include "roles/trainer/loop/training_state.h"

namespace dg {

// One batch's forward, as a task computes it: the loss the loop
// back-propagates and the batch's counts.
struct BatchLoss {
  torch::Tensor loss;              // a scalar: the batch's mean loss
  int64_t correct = 0, count = 0;  // predictions right / made (train_acc)
  int64_t items = 0;               // the task's own count (link: positive edges)
  // With a learnt-row table (TrainHooks::embedding): the batch's rows as a
  // leaf that requires grad, and their node ids (alive until the step ends).
  torch::Tensor rows;
  const std::vector<int64_t>* row_ids = nullptr;
};

// One training step's numbers.
struct StepOutcome {
  double loss = 0;                 // the step's mean loss
  int64_t correct = 0, count = 0;  // predictions right / made (train_acc)
  int64_t items = 0;               // the task's own count (link: positive edges)
  StepSplit split;                 // its time, waiting for the batch included
};

// NextBatch over a batch source whose batches carry their makers' seconds
// (sample_seconds, gather_seconds, transfer_seconds): the node and link tasks'.
template <class Source, class Batch>
Result<bool> NextTimedBatch(Source& source, Batch* mb, bool skip, StepSplit* split) {
  const auto started = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(bool more, source.Next(mb));
  split->wait = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (more && !skip) {
    split->sample = mb->sample_seconds;
    split->gather = mb->gather_seconds;
    split->transfer = mb->transfer_seconds;
  }
  return more;
}

class EpochTask {
 public:
  virtual ~EpochTask() = default;

  // The model the loop checkpoints, keeps the best of and writes as model.pt.
  virtual ModelState& model() = 0;
  // A number per kind of task, stored in checkpoints: a checkpoint of another
  // task is refused on resume.
  virtual int64_t kind() const = 0;
  virtual const char* name() const = 0;  // "link prediction", for messages
  // The headline metric's name in metrics.jsonl ("acc": val_acc, test_acc; "auc").
  virtual const char* metric() const = 0;

  // Starts the training batches of `epoch` (from 1); returns its steps.
  virtual Result<int64_t> BeginEpoch(int64_t epoch) = 0;
  // Reads the next batch of the epoch, only to pass it when `skip` (the
  // batches a resumed epoch had done: a batch depends only on the job seed,
  // the epoch and its index). Sets split's wait (always) and, for a batch to
  // train on, its sample/gather/transfer. False when the epoch has no batch left.
  virtual Result<bool> NextBatch(bool skip, StepSplit* split) = 0;
  // The forward and loss of the batch NextBatch read last (the model is in
  // training mode, gradients on).
  virtual Result<BatchLoss> Loss() = 0;
  // Validation and test numbers after `epoch`'s training, over all trainers,
  // with the validation loss where the task has one.
  virtual Result<Evaluation> Evaluate(int64_t epoch) = 0;

  // metrics.jsonl fields of an evaluation ("val_acc": 0.71, ...; nulls when
  // `e` is not done), of the epoch (besides the loop's), and of the final
  // line for the best evaluation (`best` false: there is none). By default
  // val and test are the two numbers, named after metric().
  virtual std::string EvaluationJson(const Evaluation& e) const;
  virtual std::string EpochJson(const EpochStats& st) const = 0;
  virtual std::string FinalJson(const Evaluation& best, bool have_best) const;
  // The evaluation in the epoch's console summary ("val_acc 0.7100 test_acc 0.7000").
  virtual std::string EvaluationText(const Evaluation& e) const;

  // Rank 0 after training, the best parameters in place: predictions,
  // embeddings. Every rank calls it (a task's outputs may need collectives).
  virtual Status SaveOutputs() { return Status::OK(); }
  // A step checkpoint's state beyond the model and the servers' (rank 0,
  // files in the step directory `dir`), and its load on resume (every rank,
  // `dir` "" on ranks other than 0 and when resuming from checkpoint.pt).
  virtual Status SaveState(const std::string& /*dir*/) { return Status::OK(); }
  virtual Status LoadState(const std::string& /*dir*/) { return Status::OK(); }
};

}  // namespace dg
