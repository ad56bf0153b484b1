#include "roles/trainer/loop/trainer_setup.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/loop/train_progress.h"

namespace dg {

Status LoadTrainableModel(const std::string& path, int64_t layers, ModelState* m) {
  DG_ASSIGN_OR_RETURN(m->module, LoadModel(path));
  if (layers >= 0 && m->module.hasattr("num_layers")) {
    const int64_t has = m->module.attr("num_layers").toInt();
    if (has != layers)
      return Status::InvalidArgument("model file " + path + " has " + std::to_string(has) +
                                     " layers but --fanouts gives " + std::to_string(layers));
  }
  m->names.clear();
  m->params.clear();
  for (const auto& p : m->module.named_parameters(/*recurse=*/true)) {
    m->names.push_back(p.name);
    m->params.push_back(p.value);
    p.value.set_requires_grad(true);
  }
  if (m->params.empty()) return Status::InvalidArgument("model file " + path + ": has no parameters to train");
  return Status::OK();
}

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const TrainSpec& s, const std::vector<torch::Tensor>& params) {
  if (s.optimizer == OptimizerKind::kAdam)
    return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(s.lr_or_default()).weight_decay(s.weight_decay));
  return std::make_unique<torch::optim::SGD>(
      params, torch::optim::SGDOptions(s.lr_or_default()).weight_decay(s.weight_decay).momentum(s.momentum));
}

void SetTorchThreads(int threads, uint64_t seed) {
  at::set_num_threads(std::max(1, threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency())));
  torch::manual_seed(seed);
}

std::vector<int> EvalFanouts(const TrainSpec& s) {
  if (!s.eval_fanouts.empty()) return s.eval_fanouts;
  if (!s.eval_full_neighbors) return s.fanouts;
  return std::vector<int>(s.fanouts.size(), -1);
}

bool FullNeighborEval(const TrainSpec& s) { return s.eval_fanouts.empty() && s.eval_full_neighbors; }

int64_t EvalBatchSize(const TrainSpec& s) {
  return s.eval_batch_size > 0 ? s.eval_batch_size : std::max<int64_t>(s.batch_size, 1024);
}

EpochRequest TrainRequest(const TrainSpec& s, const std::vector<int64_t>& seeds, int64_t epoch) {
  EpochRequest req;
  req.epoch = epoch;
  req.seeds = seeds;
  req.batch_size = s.batch_size;
  req.shuffle = true;
  req.fanouts = s.fanouts;
  req.job_seed = s.seed;
  return req;
}

void ClassTally::Add(const torch::Tensor& logits, const torch::Tensor& labels) {
  namespace F = torch::nn::functional;
  correct += logits.argmax(1).eq(labels).sum().item<double>();
  count += static_cast<double>(labels.numel());
  loss += F::cross_entropy(logits.to(torch::kFloat64), labels, F::CrossEntropyFuncOptions().reduction(torch::kSum))
              .item<double>();
}

Result<std::pair<double, double>> ClassTally::AccuracyAndLoss(GradientSync* sync) {
  if (sync) {
    torch::Tensor t = torch::tensor({correct, count, loss}, torch::kFloat64);
    DG_RETURN_IF_ERROR(sync->AllReduce({t}, false));
    correct = t[0].item<double>();
    count = t[1].item<double>();
    loss = t[2].item<double>();
  }
  // No seeds to evaluate (e.g. every node is a training node): no accuracy.
  if (count == 0) return std::make_pair(std::nan(""), std::nan(""));
  return std::make_pair(correct / count, loss / count);
}

EpochRequest EvalRequest(const TrainSpec& s, const std::vector<int64_t>& seeds, uint64_t seed_tag, bool labels) {
  EpochRequest req;
  req.seeds = seeds;
  req.batch_size = EvalBatchSize(s);
  req.shuffle = false;
  req.labels = labels;
  req.fanouts = EvalFanouts(s);
  req.job_seed = MixSeed(s.seed, seed_tag);
  return req;
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
  so.ring = dp.ring;
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

Status SetUpModel(const TrainSpec& spec, const TrainHooks& hooks, int64_t layers, const ModelCheck& check,
                  ModelState* m) {
  SetTorchThreads(spec.intra_op_threads, spec.seed);
  DG_RETURN_IF_ERROR(LoadTrainableModel(spec.model, layers, m));
  if (check) DG_RETURN_IF_ERROR(check(m->module));
  m->optimizer = MakeOptimizer(spec, m->params);
  DG_ASSIGN_OR_RETURN(m->sync, ConnectGradientSync(hooks.dp, m->params));
  if (hooks.progress) hooks.progress->joined = true;
  return CreateRunDir(hooks.out_dir);
}

}  // namespace dg
