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

Result<std::unique_ptr<LinkTrainer>> LinkTrainer::Create(const TrainSpec& spec, const TrainHooks& hooks,
                                                         const LinkOptions& link) {
  auto impl = std::make_unique<Impl>();
  impl->spec = spec;
  impl->spec.task = TrainTask::kLink;
  impl->hooks = hooks;
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
