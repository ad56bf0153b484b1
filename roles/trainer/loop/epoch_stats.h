// What the epoch loop (epoch_loop.h) measures of an epoch, torch-free:
//  - StepSplit: where training steps' time goes, in seconds summed over steps.
//  - Evaluation: a task's validation/test numbers of one epoch.
//  - EpochStats: one epoch's line of metrics.jsonl, before it is written.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace dg {

// sample, gather and transfer are the batch makers' time (threads or sampler
// processes, overlapped with the trainer); the others are the trainer's.
struct StepSplit {
  double sample = 0;     // sampling neighbors and building blocks
  double gather = 0;     // feature and label rows
  double transfer = 0;   // a sampler's MINIBATCH from send to arrival (0 in-process)
  double forward = 0;    // model forward and loss
  double backward = 0;
  double optimizer = 0;  // optimizer step (and the DistEmbedding's sparse update)
  double allreduce = 0;  // gradient all-reduce across trainers
  double wait = 0;       // waiting for the next batch
  void Add(const StepSplit& o);
  // {"sample": ms, ...}: per-step milliseconds over `steps` steps.
  std::string PerStepJson(int64_t steps) const;
};

// `val` and `test` are the headline numbers (accuracy; link prediction: ROC-AUC)
// and `val_loss` the task's loss on the validation examples (their mean, over
// all trainers); the loop keeps the best model by them (model_selection.h).
// `values` are every number the task reports (kept with the best, in
// checkpoints too).
struct Evaluation {
  bool done = false;  // evaluated this epoch
  double val = std::nan(""), test = std::nan("");
  double val_loss = std::nan("");
  std::vector<double> values;
  // What the best model is chosen by: val, or -1 when it is not a number.
  double score() const { return std::isfinite(val) ? val : -1; }
};

struct EpochStats {
  int64_t epoch = 0;
  double loss = 0, train_acc = 0;
  Evaluation eval;
  double seconds = 0, wait_seconds = 0, compute_seconds = 0;
  double sample_seconds = 0, gather_seconds = 0;  // summed over batches (worker time)
  StepSplit split;
  int64_t steps = 0;
  int64_t seeds = 0;   // predictions trained on (nodes; link: pairs), all trainers
  int64_t items = 0;   // what the task counts besides (link: positive edges), all trainers
  double bytes_per_step = -1;     // with TrainHooks::network_bytes
  int64_t checkpoints = 0;        // step checkpoints taken in the epoch
  double checkpoint_seconds = 0;  // their time on this trainer
};

}  // namespace dg
