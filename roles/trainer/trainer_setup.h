// What every training loop (node classification, link prediction) sets up the
// same way from TrainerOptions, in one place:
//  - LoadTrainableModel: the TorchScript module, its parameters (requires_grad
//    on, names kept for checkpoints), its layer count checked against fanouts.
//  - MakeOptimizer: Adam ("adam") or SGD (any other name) over the
//    parameters with the given lr, weight decay and momentum (SGD only), or
//    those of TrainerOptions (options validated by the caller).
//  - ConnectGradientSync: null for one trainer; else joins the process group
//    and broadcasts rank 0's parameters, so every rank starts from the same model.
//  - CreateRunDir: the output directory ("" = none).
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/trainer/grad_sync.h"
#include "roles/trainer/trainer.h"

namespace dg {

struct TrainableModel {
  torch::jit::Module module;
  std::vector<std::string> names;
  std::vector<torch::Tensor> params;
};

Result<TrainableModel> LoadTrainableModel(const TrainerOptions& options);

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const std::string& optimizer, double lr, double weight_decay,
                                                       double momentum, const std::vector<torch::Tensor>& params);
std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const TrainerOptions& options,
                                                       const std::vector<torch::Tensor>& params);

Result<std::unique_ptr<GradientSync>> ConnectGradientSync(const DataParallelOptions& dp,
                                                          const std::vector<torch::Tensor>& params);

Status CreateRunDir(const std::string& dir);

}  // namespace dg
