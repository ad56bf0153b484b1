// What every training task (roles/trainer/tasks/) sets up the same way from
// its TrainSpec, in one place:
//  - LoadTrainableModel: the TorchScript module, its parameters (requires_grad
//    on, names kept for checkpoints), its layer count checked against
//    `layers` (the fanouts' count; -1 = not checked).
//  - MakeOptimizer: Adam or SGD over the parameters with the spec's lr,
//    weight decay and momentum (SGD only).
//  - SetTorchThreads: torch's intra-op threads (0 = every core) and its seed.
//  - EvalFanouts / EvalBatchSize: evaluation's fanouts (eval_fanouts, else
//    the training fanouts when eval_full_neighbors is off, else -1 = every
//    neighbour per layer) and batch size (eval_batch_size, else
//    max(batch_size, 1024)).
//  - TrainRequest: epoch `epoch`'s training batches of `seeds`, shuffled with
//    the job seed, with the training fanouts and batch size.
//  - ClassTally: evaluation of a classifier over batches: correct argmaxes,
//    rows and the cross-entropy summed in float64, then summed over every
//    trainer; accuracy and mean loss are NaN without any row.
//  - EvalRequest: the epoch of evaluation or prediction batches of `seeds`,
//    in order, with those fanouts and batch size, sampled with the job seed
//    mixed with kEvalSeed or kPredictSeed (the same batches in every task).
//  - ConnectGradientSync: null for one trainer; else joins the process group
//    and broadcasts rank 0's parameters, so every rank starts from the same model.
//  - CreateRunDir: the output directory ("" = none).
//  - SetUpModel: all of the above a task's model needs, in one call: torch's
//    threads and seed, the model (LoadTrainableModel; then `check`, the
//    task's own refusals, before any trainer joins), the optimizer, the
//    gradient sync (rank 0's parameters on every rank), the run directory;
//    TrainHooks::progress learns that the trainer joined.
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/sampling/batch_provider.h"
#include "roles/trainer/grad_sync.h"
#include "config/train_spec.h"
#include "roles/trainer/loop/train_hooks.h"
#include "roles/trainer/loop/training_state.h"

namespace dg {

// Sets m's module, names and params.
Status LoadTrainableModel(const std::string& path, int64_t layers, ModelState* m);

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const TrainSpec& spec, const std::vector<torch::Tensor>& params);

void SetTorchThreads(int threads, uint64_t seed);

std::vector<int> EvalFanouts(const TrainSpec& spec);
bool FullNeighborEval(const TrainSpec& spec);
int64_t EvalBatchSize(const TrainSpec& spec);
constexpr uint64_t kEvalSeed = 0xe7a1, kPredictSeed = 0x9ed1;
EpochRequest EvalRequest(const TrainSpec& spec, const std::vector<int64_t>& seeds, uint64_t seed_tag, bool labels);
EpochRequest TrainRequest(const TrainSpec& spec, const std::vector<int64_t>& seeds, int64_t epoch);
struct ClassTally {
  double correct = 0, count = 0, loss = 0;
  void Add(const torch::Tensor& logits, const torch::Tensor& labels);
  // (accuracy, mean loss) over every trainer's rows (sync null: one trainer).
  Result<std::pair<double, double>> AccuracyAndLoss(GradientSync* sync);
};

Result<std::unique_ptr<GradientSync>> ConnectGradientSync(const DataParallelOptions& dp,
                                                          const std::vector<torch::Tensor>& params);

Status CreateRunDir(const std::string& dir);

using ModelCheck = std::function<Status(const torch::jit::Module&)>;
Status SetUpModel(const TrainSpec& spec, const TrainHooks& hooks, int64_t layers, const ModelCheck& check,
                  ModelState* model);

}  // namespace dg
