// Trainer: node classification in one trainer process, fed by a
// BatchProvider: the node task (roles/trainer/tasks/node_task.h) run by the
// epoch loop (roles/trainer/loop/epoch_loop.h). This header is torch-free.
//
// Rank 0 writes into out_dir:
//   metrics.jsonl   per epoch {"epoch","loss","train_acc","val_acc","test_acc",
//                   "epoch_seconds","wait_fraction","steps","step_ms","seeds",...};
//                   last {"final":true,...}
//   model.pt        TorchScript, best-validation weights
//   checkpoint.pt   params, optimizer state, epoch, best so far, torch RNG
//   checkpoints/step-N/  step checkpoints (checkpoint_every_steps)
//   predictions.npy / embeddings.npy  (on request; rows in original node order)
//
// The settings are a TrainSpec (config/train_spec.h), the process's
// callbacks and pointers TrainHooks (loop/train_hooks.h).
//
// With an embedding (TrainHooks::embedding, a DistEmbedding), the model's input of a batch is
// [features | embedding rows] of its input nodes (the rows alone when
// spec.embedding.features is false). The embedding table itself is not in checkpoint.pt
// or model.pt (it lives on the servers; persist it with the DistTensor's
// `persistent` flag); a step checkpoint has it (and its optimizer state)
// through server_checkpoint.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/sampling/minibatch.h"
#include "common/storage/node_embedding.h"
#include "common/base/status.h"
#include "common/sampling/batch_provider.h"
#include "config/train_spec.h"
#include "roles/trainer/loop/epoch_stats.h"
#include "roles/trainer/loop/train_hooks.h"
#include "roles/trainer/train_progress.h"

namespace dg {

// This trainer's seeds (its share) and what predictions cover.
struct TrainerSeeds {
  std::vector<int64_t> train, val, test;
  std::vector<int64_t> predict;    // nodes to predict/embed (rank 0), in output row order
};

class Trainer {
 public:
  // `spec` is checked (ValidateTrainSpec); `spec` and `hooks` are copied.
  static Result<std::unique_ptr<Trainer>> Create(const TrainSpec& spec, const TrainHooks& hooks);
  ~Trainer();

  // The whole run (EpochLoop::Run): resume, epochs, evaluation, outputs.
  Status Fit(BatchProvider* provider, const TrainerSeeds& seeds);
  // One optimizer step over `batches` (the loss is the mean of their mean
  // losses; gradients are averaged across trainers when data-parallel).
  // With `split`, the step's forward/backward/optimizer/all-reduce seconds
  // are added to it.
  Status TrainStep(const std::vector<const MiniBatch*>& batches, double* loss, int64_t* correct,
                   int64_t* count, StepSplit* split = nullptr);
  // Runs one epoch of training (no evaluation, no outputs).
  Result<EpochStats> TrainEpoch(BatchProvider* provider, const std::vector<int64_t>& seeds,
                                int64_t epoch);
  // Accuracy on `seeds` (all-reduced across trainers).
  Result<double> Evaluate(BatchProvider* provider, const std::vector<int64_t>& seeds);

  // All parameters flattened, in named_parameters order.
  std::vector<float> ParameterVector() const;
  const std::vector<EpochStats>& history() const;

 private:
  struct Impl;
  explicit Trainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether the model offers forward_agg(x_dst, neigh_mean, blocks) -- its first
// layer from block 0's destination rows and the mean of their sampled
// sources (docs/models.md) -- so the servers may aggregate block 0. A
// forward_agg with another signature is an error naming the file.
Result<bool> ModelHasForwardAgg(const std::string& path);

// Whether the model takes the typed form of the contract (rgcn, hetero-sage;
// docs/models.md "Typed graphs").
Result<bool> ModelIsTyped(const std::string& path);

// Parameters of a TorchScript file, flattened (for tests and tools).
Result<std::vector<float>> ModelParameterVector(const std::string& path);

}  // namespace dg
