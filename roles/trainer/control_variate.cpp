// Control variate's entry points (control_variate.h): the control-variate
// task (tasks/cv_task.h) in the epoch loop, on an in-process or the servers' store.
#include "roles/trainer/control_variate.h"

#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/tasks/cv_task.h"

namespace dg {
namespace {

TrainSpec CvSpec(const ControlVariateOptions& o) {
  TrainSpec s;
  s.algorithm = TrainAlgorithm::kControlVariate;
  s.model = o.model_path;
  s.epochs = o.epochs;
  s.lr = o.lr;
  s.optimizer = o.optimizer == "sgd" ? OptimizerKind::kSgd : OptimizerKind::kAdam;
  s.weight_decay = o.weight_decay;
  s.momentum = o.momentum;
  s.batch_size = o.batch_size;
  s.fanouts = o.fanouts;
  s.eval_batch_size = o.eval_batch_size;
  s.eval_every = o.eval_every;
  s.seed = o.seed;
  s.intra_op_threads = o.threads;
  s.num_classes = o.num_classes;
  s.features = o.features;
  s.labels = o.labels;
  s.cv_input = o.cv_input;
  return s;
}

TrainSpec CvSpec(const TrainerOptions& t, const std::string& cv_input) {
  TrainSpec s = TrainSpecFrom(t);
  s.algorithm = TrainAlgorithm::kControlVariate;
  s.cv_input = cv_input;
  return s;
}

}  // namespace

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

Status RunControlVariate(CvStore* store, const ControlVariateOptions& o, const TrainerSeeds& seeds) {
  const TrainSpec spec = CvSpec(o);
  TrainHooks hooks;
  hooks.out_dir = o.out_dir;
  hooks.dp = o.dp;
  return RunControlVariateTask(store, spec, hooks, seeds);
}

Status RunControlVariateLocal(InMemoryGraph* graph, const TrainerOptions& t, const std::string& cv_input,
                              const TrainerSeeds& seeds) {
  LocalCvStore store(graph);
  const TrainSpec spec = CvSpec(t, cv_input.empty() ? "cv_input" : cv_input);
  if (cv_input.empty()) {
    DG_ASSIGN_OR_RETURN(Array x, graph->NodeData(spec.features));
    DG_ASSIGN_OR_RETURN(Array ax, MeanOverInNeighbours(*graph, x));
    store.AddArray(spec.cv_input, std::move(ax));
  }
  return RunControlVariateTask(&store, spec, TrainHooksFrom(t), seeds);
}

Result<Array> ControlVariateLogits(CvStore* store, const ControlVariateOptions& o, const std::vector<int64_t>& seeds,
                                   bool estimator) {
  const TrainSpec spec = CvSpec(o);
  CvModel m(spec, store);
  DG_ASSIGN_OR_RETURN(m.module, LoadModel(o.model_path));
  m.layers = static_cast<int>(o.fanouts.size()) + 1;
  m.history_prefix = o.history_prefix;
  torch::NoGradGuard ng;
  m.module.train(false);
  torch::Tensor labels;
  DG_ASSIGN_OR_RETURN(torch::Tensor logits, m.Forward(seeds, estimator, 0, 0, &labels));
  return TensorArray(logits);
}

Status RunControlVariateDistributed(DistGraphClient* client, NeighborSource* source, const TrainerOptions& t,
                                    const std::string& cv_input, const TrainerSeeds& seeds) {
  const PartitionConfig& pc = client->config();
  if (!pc.node_data.count(cv_input))
    return Status::InvalidArgument("train.cv_input: '" + cv_input + "' is not a node array of " + pc.path +
                                   " (run `distgnn propagate --config JOB.yaml --input features --hops 1 --norm mean "
                                   "--output NAME` first and name NAME_1)");
  DistCvStore store(client, source);
  return RunControlVariateTask(&store, CvSpec(t, cv_input), TrainHooksFrom(t), seeds);
}

}  // namespace dg
