// Trainer (trainer.h): node classification as the node task in the epoch loop.
#include "roles/trainer/trainer.h"

#include <torch/script.h>
#include <torch/torch.h>

#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/tasks/node_task.h"
#include "roles/trainer/training_state.h"

namespace dg {

struct Trainer::Impl {
  TrainSpec spec;
  TrainHooks hooks;
  std::unique_ptr<NodeTask> task;
  std::unique_ptr<EpochLoop> loop;
};

Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::~Trainer() = default;
const std::vector<EpochStats>& Trainer::history() const { return impl_->loop->history(); }

Result<std::unique_ptr<Trainer>> Trainer::Create(const TrainSpec& spec, const TrainHooks& hooks) {
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->hooks = hooks;
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
  NodeTask* task = impl_->task.get();
  DG_RETURN_IF_ERROR(
      impl_->loop->Step(batches.size(), [&](size_t b) { return task->LossOf(*batches[b]); }, &out));
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
