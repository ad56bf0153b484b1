// Trainer (trainer.h): node classification as the node task in the epoch loop,
// and TrainerOptions split into the TrainSpec and TrainHooks they carry.
#include "roles/trainer/trainer.h"

#include <torch/script.h>
#include <torch/torch.h>

#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/tasks/node_task.h"
#include "roles/trainer/training_state.h"

namespace dg {

TrainSpec TrainSpecFrom(const TrainerOptions& o) {
  TrainSpec s;
  s.model = o.model_path;
  s.epochs = o.epochs;
  s.lr = o.lr;
  s.optimizer = o.optimizer == "sgd" ? OptimizerKind::kSgd : OptimizerKind::kAdam;
  s.weight_decay = o.weight_decay;
  s.momentum = o.momentum;
  s.batch_size = o.batch_size;
  s.fanouts = o.fanouts;
  s.eval_fanouts = o.eval_fanouts;
  s.eval_full_neighbors = o.eval_fanouts.empty();
  s.eval_batch_size = o.eval_batch_size;
  s.eval_every = o.eval_every;
  s.seed = o.seed;
  s.intra_op_threads = o.threads;
  s.resume = o.resume;
  s.checkpoint_every_steps = o.checkpoint_every_steps;
  s.checkpoint_keep = o.checkpoint_keep;
  s.save_predictions = o.save_predictions;
  s.save_embeddings = o.save_embeddings;
  s.num_classes = o.num_classes;
  s.log_every = o.log_every;
  s.quiet = o.quiet;
  s.embedding.dim = o.embedding ? o.embedding->dim() : 0;
  s.embedding.features = o.use_features;
  return s;
}

TrainHooks TrainHooksFrom(const TrainerOptions& o) {
  TrainHooks h;
  h.out_dir = o.out_dir;
  h.dp = o.dp;
  h.server_checkpoint = o.server_checkpoint;
  h.progress = o.progress;
  h.embedding = o.embedding;
  h.network_bytes = o.network_bytes;
  h.epoch_fields = o.epoch_fields;
  return h;
}

struct Trainer::Impl {
  TrainSpec spec;
  TrainHooks hooks;
  std::unique_ptr<NodeTask> task;
  std::unique_ptr<EpochLoop> loop;
};

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::~Trainer() = default;
const std::vector<EpochStats>& Trainer::history() const { return impl_->loop->history(); }

Result<std::unique_ptr<Trainer>> Trainer::Create(const TrainerOptions& o) {
  if (o.batch_size <= 0)
    return Status::InvalidArgument("--batch-size must be > 0, got " + std::to_string(o.batch_size));
  if (o.epochs < 0) return Status::InvalidArgument("--epochs must be >= 0");
  if (o.eval_every <= 0) return Status::InvalidArgument("--eval-every must be > 0");
  if (o.checkpoint_every_steps < 0) return Status::InvalidArgument("--checkpoint-every-steps must be >= 0");
  if (o.checkpoint_keep < 1) return Status::InvalidArgument("--checkpoint-keep must be >= 1");
  if (o.optimizer != "adam" && o.optimizer != "sgd")
    return Status::InvalidArgument("--optimizer: expected adam or sgd, got '" + o.optimizer + "'");
  if (!o.eval_fanouts.empty() && o.eval_fanouts.size() != o.fanouts.size())
    return Status::InvalidArgument("--eval-fanouts has " + std::to_string(o.eval_fanouts.size()) +
                                   " layers but --fanouts has " + std::to_string(o.fanouts.size()));
  auto impl = std::make_unique<Impl>();
  impl->spec = TrainSpecFrom(o);
  impl->hooks = TrainHooksFrom(o);
  DG_ASSIGN_OR_RETURN(impl->task, NodeTask::Create(impl->spec, impl->hooks));
  impl->loop = std::make_unique<EpochLoop>(impl->spec, impl->hooks, impl->task.get());
  return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

Status Trainer::Fit(BatchProvider* provider, const TrainerSeeds& seeds) {
  impl_->task->SetData(provider, seeds);
  return impl_->loop->Run();
}

Status Trainer::TrainStep(const std::vector<const MiniBatch*>& batches, double* loss, int64_t* correct,
                          int64_t* count, StepSplit* split) {
  StepOutcome out;
  DG_RETURN_IF_ERROR(impl_->task->TrainStep(batches, &out));
  *loss = out.loss;
  *correct = out.correct;
  *count = out.count;
  if (split) split->Add(out.split);
  return Status::OK();
}

Result<EpochStats> Trainer::TrainEpoch(BatchProvider* provider, const std::vector<int64_t>& seeds, int64_t epoch) {
  TrainerSeeds s;
  s.train = seeds;
  impl_->task->SetData(provider, std::move(s));
  return impl_->loop->TrainEpoch(epoch);
}

Result<double> Trainer::Evaluate(BatchProvider* provider, const std::vector<int64_t>& seeds) {
  impl_->task->SetData(provider, TrainerSeeds());
  return impl_->task->Accuracy(seeds);
}

std::vector<float> Trainer::ParameterVector() const { return FlattenParameters(impl_->task->model().params); }

Result<bool> ModelHasForwardAgg(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(path));
  return HasForwardAgg(module, path);
}

Result<bool> ModelIsTyped(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(path));
  return IsTypedModel(module);
}

Result<std::vector<float>> ModelParameterVector(const std::string& path) {
  DG_ASSIGN_OR_RETURN(torch::jit::Module m, LoadModel(path));
  std::vector<float> out;
  for (const auto& p : m.named_parameters(true)) {
    torch::Tensor c = p.value.detach().to(torch::kFloat32).contiguous().reshape({-1});
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

}  // namespace dg
