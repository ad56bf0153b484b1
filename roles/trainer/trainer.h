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
// TrainerOptions is the settings and hooks in one struct, for the callers
// that fill it; Create splits it into a TrainSpec and TrainHooks.
//
// With an `embedding` (DistEmbedding), the model's input of a batch is
// [features | embedding rows] of its input nodes (the rows alone when
// use_features is false). The embedding table itself is not in checkpoint.pt
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

struct TrainerOptions {
  std::string model_path;
  std::string out_dir;         // "" = write nothing
  int epochs = 10;
  double lr = 0.003;
  std::string optimizer = "adam";  // adam | sgd
  double weight_decay = 0;
  double momentum = 0;             // sgd only
  int64_t batch_size = 1000;
  std::vector<int> fanouts{10, 25};
  std::vector<int> eval_fanouts;   // empty = full neighbors
  int64_t eval_batch_size = 0;     // 0 = max(batch_size, 1024)
  int eval_every = 1;
  uint64_t seed = 0;
  int threads = 0;                 // torch intra-op threads; 0 = all cores
  bool resume = false;
  // Step checkpoints (step_checkpoint.h): every checkpoint_every_steps
  // training steps (0 = none), the newest checkpoint_keep complete ones kept.
  // server_checkpoint saves (load = false) or loads step N of the servers'
  // mutable tensors; null = none (train-local: the embedding is in the trainer's).
  int64_t checkpoint_every_steps = 0;
  int checkpoint_keep = 2;
  std::function<Status(bool load, int64_t step, int keep)> server_checkpoint;
  bool save_predictions = false;
  bool save_embeddings = false;
  int64_t num_classes = 0;         // the model's output width must match
  int log_every = 20;              // steps between progress lines (non-tty; also every 2 s)
  bool quiet = false;              // no progress output
  TrainProgress* progress = nullptr;   // not owned; live state for the metrics endpoint
  DataParallelOptions dp;
  NodeEmbedding* embedding = nullptr;  // not owned; outlives the trainer
  bool use_features = true;            // false: the embedding is the whole input
  // Optional: bytes moved so far (DistGraphClient::network_bytes); then each
  // epoch line of metrics.jsonl has "bytes_per_step" over its training steps.
  std::function<uint64_t()> network_bytes;
  // Optional: more fields for each epoch line of metrics.jsonl (`"key": value`
  // pairs joined by ", "; empty = none), called once per epoch after its
  // training steps (the feature cache's hits, bytes per message type).
  std::function<std::string()> epoch_fields;
};

// This trainer's seeds (its share) and what predictions cover.
struct TrainerSeeds {
  std::vector<int64_t> train, val, test;
  std::vector<int64_t> predict;    // nodes to predict/embed (rank 0), in output row order
};

// The settings of `o` as a TrainSpec and the rest as TrainHooks.
TrainSpec TrainSpecFrom(const TrainerOptions& o);
TrainHooks TrainHooksFrom(const TrainerOptions& o);

class Trainer {
 public:
  static Result<std::unique_ptr<Trainer>> Create(const TrainerOptions& options);
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
