#include "roles/trainer/run/make_task.h"

#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/tasks/cv_task.h"
#include "roles/trainer/tasks/historical_task.h"
#include "roles/trainer/tasks/link_task.h"
#include "roles/trainer/tasks/node_task.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

// Widens a task's unique_ptr to the interface's.
template <class T>
Result<std::unique_ptr<EpochTask>> AsTask(Result<std::unique_ptr<T>> made) {
  if (!made.ok()) return made.status();
  return std::unique_ptr<EpochTask>(std::move(*made));
}

Result<std::unique_ptr<EpochTask>> MakeControlVariateTask(const TrainSpec& spec, const TrainHooks& hooks,
                                                          GraphSource* source) {
  DG_ASSIGN_OR_RETURN(CvInput input, source->ControlVariate());
  try {
    return AsTask(CvTask::Create(spec, hooks, std::move(input)));
  } catch (const std::exception& e) {  // torch reports model/shape errors by exception
    return Status::Internal("control_variate with model " + spec.model + ": " + FirstLine(e.what()));
  }
}

}  // namespace

Result<std::unique_ptr<EpochTask>> MakeTask(const TrainSpec& spec, const TrainHooks& hooks, GraphSource* source) {
  const bool cv = spec.algorithm == TrainAlgorithm::kControlVariate;
  if (spec.task == TrainTask::kLink) {
    if (cv)  // config/ refuses it with the user's key; a spec built in code may not have passed there
      return Status::InvalidArgument("train.algorithm: control_variate trains node classification; train.task link "
                                     "samples");
    DG_ASSIGN_OR_RETURN(LinkInput input, source->Links());
    return AsTask(LinkTask::Create(spec, hooks, std::move(input)));
  }
  if (cv) return MakeControlVariateTask(spec, hooks, source);
  if (spec.historical.enabled()) {
    DG_ASSIGN_OR_RETURN(HistoricalInput input, source->Historical());
    try {
      return AsTask(HistoricalTask::Create(spec, hooks, std::move(input)));
    } catch (const std::exception& e) {  // torch reports model/shape errors by exception
      return Status::Internal("train.historical with model " + spec.model + ": " + FirstLine(e.what()));
    }
  }
  DG_ASSIGN_OR_RETURN(NodeInput input, source->Nodes());
  return AsTask(NodeTask::Create(spec, hooks, std::move(input)));
}

Status Train(const TrainSpec& spec, const TrainHooks& hooks, GraphSource* source, std::vector<EpochStats>* history) {
  DG_ASSIGN_OR_RETURN(std::unique_ptr<EpochTask> task, MakeTask(spec, hooks, source));
  EpochLoop loop(spec, hooks, task.get());
  const Status st = loop.Run();
  if (history) *history = loop.history();
  return st;
}

}  // namespace dg
