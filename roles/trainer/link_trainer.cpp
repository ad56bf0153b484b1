// LinkTrainer (link_trainer.h): the link task in the epoch loop.
#include "roles/trainer/link_trainer.h"

#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/tasks/link_task.h"

namespace dg {

struct LinkTrainer::Impl {
  TrainSpec spec;
  TrainHooks hooks;
  std::unique_ptr<LinkTask> task;
  std::unique_ptr<EpochLoop> loop;
};

LinkTrainer::LinkTrainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LinkTrainer::~LinkTrainer() = default;
const std::vector<EpochStats>& LinkTrainer::history() const { return impl_->loop->history(); }

Result<std::unique_ptr<LinkTrainer>> LinkTrainer::Create(const TrainerOptions& o, const LinkOptions& link) {
  if (o.batch_size <= 0) return Status::InvalidArgument("--batch-size must be > 0, got " + std::to_string(o.batch_size));
  if (o.eval_every <= 0) return Status::InvalidArgument("--eval-every must be > 0");
  if (o.checkpoint_every_steps < 0) return Status::InvalidArgument("--checkpoint-every-steps must be >= 0");
  if (o.checkpoint_keep < 1) return Status::InvalidArgument("--checkpoint-keep must be >= 1");
  if (o.optimizer != "adam" && o.optimizer != "sgd")
    return Status::InvalidArgument("--optimizer: expected adam or sgd, got '" + o.optimizer + "'");
  auto impl = std::make_unique<Impl>();
  impl->spec = TrainSpecFrom(o);
  impl->spec.task = TrainTask::kLink;
  impl->spec.link.eval_negatives = link.eval_negatives;
  impl->hooks = TrainHooksFrom(o);
  DG_ASSIGN_OR_RETURN(impl->task, LinkTask::Create(impl->spec, impl->hooks, link));
  impl->loop = std::make_unique<EpochLoop>(impl->spec, impl->hooks, impl->task.get());
  return std::unique_ptr<LinkTrainer>(new LinkTrainer(std::move(impl)));
}

Status LinkTrainer::Fit(BatchProvider* edges, BatchProvider* nodes, const LinkSeeds& seeds) {
  impl_->task->SetData(edges, nodes, seeds);
  return impl_->loop->Run();
}

std::vector<float> LinkTrainer::ParameterVector() const { return FlattenParameters(impl_->task->model().params); }

}  // namespace dg
