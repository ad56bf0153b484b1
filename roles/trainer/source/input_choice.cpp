#include "roles/trainer/source/input_choice.h"

namespace dg {

Result<BlockInputChoice> ChooseBlockInput(const JobConfig& job, const PartitionConfig& partition,
                                          bool model_has_forward_agg) {
  const TrainSpec& t = job.train;
  BlockInputChoice c;
  c.options.wire = t.feature_wire_dtype;
  const std::string wire_name = WireDTypeName(t.feature_wire_dtype);
  const bool node_sampling = t.task == TrainTask::kNode && t.algorithm == TrainAlgorithm::kSample;
  std::string no;  // the first reason block 0 cannot be aggregated
  if (partition.typed()) no = "the partition is typed (each type's rows are pulled by type)";
  else if (t.task != TrainTask::kNode) no = std::string("train.task is ") + Name(t.task);
  else if (t.algorithm != TrainAlgorithm::kSample) no = std::string("train.algorithm is ") + Name(t.algorithm);
  else if (t.embedding.dim > 0) no = "the job trains a DistEmbedding";
  else if (t.save_embeddings) no = "train.save_embeddings needs every layer's input";
  else if (!model_has_forward_agg) no = "the model has no forward_agg (docs/models.md)";
  // Aggregating trades CPU (sums on servers and trainer) for bytes on the wire:
  // with every machine on one host there is no wire, so auto keeps PULL.
  bool one_host = true;
  for (const MachineConfig& m : job.machines) one_host = one_host && m.host == job.machines[0].host;
  const bool auto_off = no.empty() && one_host && t.input_aggregation == InputAggregation::kAuto;
  if (t.input_aggregation == InputAggregation::kOn && !no.empty())
    return Status::InvalidArgument(job.path + ": train.input_aggregation is on, but " + no);
  const bool wire = c.options.wire != WireDType::kFloat32;
  if (wire && !node_sampling)
    return Status::InvalidArgument(job.path + ": train.feature_wire_dtype " + wire_name +
                                   " needs node batches by sampling (train.task node, train.algorithm sample)");
  c.options.aggregate = no.empty() && t.input_aggregation != InputAggregation::kOff && !auto_off;
  c.use = c.options.aggregate || wire;
  c.reason = c.options.aggregate ? "block 0 aggregated by the servers (PULL_BLOCK)"
             : t.input_aggregation == InputAggregation::kOff ? "train.input_aggregation is off"
             : auto_off ? "every machine is on " + job.machines[0].host + ": no network to save (on aggregates anyway)"
                        : no;
  if (c.use) DG_RETURN_IF_ERROR(CheckBlockInput(partition, c.options.feature_name));
  return c;
}

}  // namespace dg
