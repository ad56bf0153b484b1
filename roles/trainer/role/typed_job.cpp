#include "roles/trainer/role/typed_job.h"

#include "roles/trainer/model/model_facts.h"

namespace dg {

Status CheckTypedTrainerJob(const JobConfig& job, const PartitionConfig& p, TrainMode mode) {
  const std::string typed = job.path + ": the partition " + p.path + " is typed (node and edge types); ";
  if (mode == TrainMode::kPropagate)
    return Status::InvalidArgument(typed + "--mode " + Name(mode) + " does not take typed partitions (train and infer do)");
  const TrainSpec& t = job.train;
  if (t.task == TrainTask::kLink && t.link.etype.empty())  // config/ checks it; a job built in code may not
    return Status::InvalidArgument(typed + "train.task link needs train.link_etype (the edge type to predict)");
  if (t.task == TrainTask::kLink && (mode == TrainMode::kInfer || t.layerwise_inference))
    return Status::InvalidArgument(typed + "layer-wise inference (--mode infer, train.layerwise_inference) takes "
                                           "train.task node, got link");
  if (mode == TrainMode::kTrain && t.algorithm != TrainAlgorithm::kSample)
    return Status::InvalidArgument(typed + "train.algorithm must be sample, got " + Name(t.algorithm));
  if (p.target.empty() && t.task == TrainTask::kNode)
    return Status::InvalidArgument(typed + "it has no target node type (partition a dataset whose meta.json "
                                           "names one)");
  DG_ASSIGN_OR_RETURN(bool typed_model, ModelIsTyped(t.model));
  if (!typed_model)
    return Status::InvalidArgument(typed + "train.model " + t.model +
                                   " is not a typed model; export one with `distgnn model export --arch "
                                   "rgcn|hetero-sage --partition-config " + p.path + "`");
  return Status::OK();
}

}  // namespace dg
