#include "roles/trainer/trainer_setup.h"

#include <filesystem>

#include "roles/trainer/model_runner.h"

namespace dg {

Result<TrainableModel> LoadTrainableModel(const TrainerOptions& o) {
  TrainableModel m;
  DG_ASSIGN_OR_RETURN(m.module, LoadModel(o.model_path));
  if (m.module.hasattr("num_layers")) {
    const int64_t layers = m.module.attr("num_layers").toInt();
    if (layers != static_cast<int64_t>(o.fanouts.size()))
      return Status::InvalidArgument("model file " + o.model_path + " has " + std::to_string(layers) +
                                     " layers but --fanouts gives " + std::to_string(o.fanouts.size()));
  }
  for (const auto& p : m.module.named_parameters(/*recurse=*/true)) {
    m.names.push_back(p.name);
    m.params.push_back(p.value);
    p.value.set_requires_grad(true);
  }
  if (m.params.empty()) return Status::InvalidArgument("model file " + o.model_path + ": has no parameters to train");
  return m;
}

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const std::string& optimizer, double lr, double weight_decay,
                                                       double momentum, const std::vector<torch::Tensor>& params) {
  if (optimizer == "adam")
    return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(lr).weight_decay(weight_decay));
  return std::make_unique<torch::optim::SGD>(
      params, torch::optim::SGDOptions(lr).weight_decay(weight_decay).momentum(momentum));
}

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const TrainerOptions& o,
                                                       const std::vector<torch::Tensor>& params) {
  return MakeOptimizer(o.optimizer, o.lr, o.weight_decay, o.momentum, params);
}

Result<std::unique_ptr<GradientSync>> ConnectGradientSync(const DataParallelOptions& dp,
                                                          const std::vector<torch::Tensor>& params) {
  if (dp.world_size <= 1) return std::unique_ptr<GradientSync>();
  GradientSyncOptions so;
  so.master_host = dp.master_host;
  so.master_port = dp.master_port;
  so.host = dp.host;
  so.rank = dp.rank;
  so.world_size = dp.world_size;
  so.timeout_seconds = dp.timeout_seconds;
  so.rendezvous_timeout_seconds = dp.rendezvous_timeout_seconds;
  DG_ASSIGN_OR_RETURN(std::unique_ptr<GradientSync> sync, GradientSync::Connect(so));
  DG_RETURN_IF_ERROR(sync->Broadcast(params));
  return sync;
}

Status CreateRunDir(const std::string& dir) {
  if (dir.empty()) return Status::OK();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("create run directory " + dir + ": " + ec.message());
  return Status::OK();
}

}  // namespace dg
