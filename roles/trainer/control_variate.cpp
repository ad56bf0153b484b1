// Control variate's entry points (control_variate.h): the control-variate
// task (tasks/cv_task.h) in the epoch loop, on an in-process or the servers' store.
#include "roles/trainer/control_variate.h"

#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/tasks/cv_task.h"

namespace dg {
Status RunControlVariateTask(CvStore* store, const TrainSpec& spec, const TrainHooks& given,
                             const TrainerSeeds& seeds) {
  TrainHooks hooks = given;
  hooks.network_bytes = [store] { return static_cast<uint64_t>(store->bytes()); };
  std::unique_ptr<CvTask> task;
  try {
    DG_ASSIGN_OR_RETURN(task, CvTask::Create(spec, hooks, store, seeds));
  } catch (const std::exception& e) {  // torch reports model/shape errors by exception
    const std::string what = e.what();
    return Status::Internal("control_variate with model " + spec.model + ": " + what.substr(0, what.find('\n', 400)));
  }
  EpochLoop loop(spec, hooks, task.get());
  return loop.Run();
}

Status RunControlVariateLocal(InMemoryGraph* graph, const TrainSpec& given, const TrainHooks& hooks,
                              const TrainerSeeds& seeds) {
  LocalCvStore store(graph);
  TrainSpec spec = given;
  if (spec.cv_input.empty()) {
    spec.cv_input = "cv_input";
    DG_ASSIGN_OR_RETURN(Array x, graph->NodeData(spec.features));
    DG_ASSIGN_OR_RETURN(Array ax, MeanOverInNeighbours(*graph, x));
    store.AddArray(spec.cv_input, std::move(ax));
  }
  return RunControlVariateTask(&store, spec, hooks, seeds);
}

Result<Array> ControlVariateLogits(CvStore* store, const TrainSpec& spec, const std::vector<int64_t>& seeds,
                                   bool estimator) {
  CvModel m(spec, store);
  DG_ASSIGN_OR_RETURN(m.module, LoadModel(spec.model));
  m.layers = static_cast<int>(spec.fanouts.size()) + 1;
  torch::NoGradGuard ng;
  m.module.train(false);
  torch::Tensor labels;
  DG_ASSIGN_OR_RETURN(torch::Tensor logits, m.Forward(seeds, estimator, 0, 0, &labels));
  return TensorArray(logits);
}

Status RunControlVariateDistributed(DistGraphClient* client, NeighborSource* source, const TrainSpec& spec,
                                    const TrainHooks& hooks, const TrainerSeeds& seeds) {
  const PartitionConfig& pc = client->config();
  const std::string& cv_input = spec.cv_input;
  if (!pc.node_data.count(cv_input))
    return Status::InvalidArgument("train.cv_input: '" + cv_input + "' is not a node array of " + pc.path +
                                   " (run `distgnn propagate --config JOB.yaml --input features --hops 1 --norm mean "
                                   "--output NAME` first and name NAME_1)");
  DistCvStore store(client, source);
  return RunControlVariateTask(&store, spec, hooks, seeds);
}

}  // namespace dg
