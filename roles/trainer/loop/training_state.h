// What every training task (roles/trainer/tasks/) and the epoch loop do the
// same way with a model, in one place:
//  - ModelInput: a batch's model input: its features (float32 [N, F]) unless
//    the embedding is the whole input (use_features false), then the node
//    embedding's rows of the batch's input nodes, concatenated on the right.
//    With emb_leaf, the embedding rows are a leaf that requires grad, returned
//    there so the caller can send its gradient.
//  - ModelForward: the model's output for a batch of spec.fanouts' blocks:
//    forward_agg when block 0 came aggregated where the rows live, else
//    forward, on ModelInput; a model's failure names the model and the
//    input width.
//  - UpdateEmbedding: one step's embedding gradients (the leaves' grads, zeros
//    for a leaf without one) to the embedding's sparse optimizer, as step
//    model->embedding_steps (then counted up): every trainer, every step.
//  - AllRngStates: every trainer's torch RNG state (dropout), [world, bytes]
//    uint8, on every rank: the ranks' states differ (their batches differ),
//    and an exact resume needs each rank's own.
//  - FlattenParameters: all parameters as one float vector, in order.
//  - WriteModelFile: the TorchScript module to `path` (via a rename), with the
//    best parameters in place when there are any, the current ones restored.
//  - SaveCheckpointFile / LoadCheckpointFile: checkpoint.pt with the
//    parameters (param.NAME), best parameters (best.NAME), epoch, best_epoch,
//    rng and rng_all, the optimizer state, and what the loop adds (`extra`).
//    Loading restores this rank's RNG state from rng_all when the number of
//    trainers matches, else rank 0's.
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/sampling/minibatch.h"
#include "config/train_spec.h"
#include "roles/trainer/grad_sync.h"
#include "roles/trainer/loop/train_hooks.h"

namespace dg {

// A training loop's model: module, named parameters, optimizer, gradient sync
// (null for one trainer), the best parameters so far (empty = none) and the
// step counters a checkpoint keeps.
struct ModelState {
  torch::jit::Module module;
  std::vector<std::string> names;
  std::vector<torch::Tensor> params;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<GradientSync> sync;
  std::vector<torch::Tensor> best_params;
  uint64_t embedding_steps = 0;  // Update calls so far (the step id of SPARSE_UPDATE)
  int64_t optimizer_steps = 0;   // optimizer steps so far (the learning-rate schedule's position)
};

Result<torch::Tensor> ModelInput(NodeEmbedding* embedding, bool use_features, const MiniBatch& mb,
                                 torch::Tensor* emb_leaf);

Result<torch::Tensor> ModelForward(torch::jit::Module& module, const TrainSpec& spec, NodeEmbedding* embedding,
                                   const MiniBatch& mb, torch::Tensor* emb_leaf);

Status UpdateEmbedding(NodeEmbedding* embedding, ModelState* model, const std::vector<int64_t>& ids,
                       const std::vector<torch::Tensor>& leaves);

Result<torch::Tensor> AllRngStates(GradientSync* sync, const DataParallelOptions& dp);

std::vector<float> FlattenParameters(const std::vector<torch::Tensor>& params);

Status WriteModelFile(ModelState* model, const std::string& path, bool use_best);

using CheckpointWriter = std::function<void(torch::serialize::OutputArchive*)>;
using CheckpointReader = std::function<Status(torch::serialize::InputArchive*)>;

Status SaveCheckpointFile(const std::string& path, const ModelState& model, int64_t epoch, int64_t best_epoch,
                          const torch::Tensor& rng_all, const CheckpointWriter& extra);

// Returns the checkpoint's epoch; sets *best_epoch. `extra` reads what the
// loop added (it may refuse the file). A failure to read is Corruption
// "checkpoint PATH: cannot be loaded<what>: reason".
Result<int64_t> LoadCheckpointFile(const std::string& path, ModelState* model, const DataParallelOptions& dp,
                                   int64_t* best_epoch, const CheckpointReader& extra, const std::string& what);

}  // namespace dg
