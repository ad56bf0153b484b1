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
  // A typed job's node embedding feeds the featureless types only, whose
  // relations are not aggregated (their rows are pulled and averaged here).
  if (t.task != TrainTask::kNode) no = std::string("train.task is ") + Name(t.task);
  else if (t.algorithm != TrainAlgorithm::kSample) no = std::string("train.algorithm is ") + Name(t.algorithm);
  else if (t.embedding.dim > 0 && !partition.typed()) no = "the job trains a DistEmbedding";
  else if (!t.embedding.uses_features()) no = "train.embedding.features is false (no feature rows to aggregate)";
  else if (t.save_embeddings) no = "train.save_embeddings needs every layer's input";
  else if (!model_has_forward_agg)
    no = partition.typed() ? "the model has no forward_agg (docs/models.md: a typed model offers it when no input "
                             "dropout is drawn and some relation's source type has features)"
                           : "the model has no forward_agg (docs/models.md)";
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

namespace {

std::string RelationList(const PartitionConfig& p, const std::vector<int64_t>& rels) {
  std::string out;
  for (int64_t r : rels) {
    if (!out.empty()) out += ", ";
    const bool known = r >= 0 && r < static_cast<int64_t>(p.edge_types.size());
    out += known ? p.edge_types[r].src + ":" + p.edge_types[r].relation + ":" + p.edge_types[r].dst
                 : "#" + std::to_string(r);
  }
  return "[" + out + "]";
}

}  // namespace

Status CheckTypedAggRelations(const JobConfig& job, const PartitionConfig& partition,
                              const std::vector<int64_t>& model_relations) {
  std::vector<int64_t> want;
  for (int r : TypedAggregatedRelations(partition)) want.push_back(r);
  if (model_relations == want) return Status::OK();
  return Status::InvalidArgument(job.path + ": train.input_aggregation: the model " + job.train.model +
                                 " takes the servers' means of the relations " +
                                 RelationList(partition, model_relations) + ", but in " + partition.path +
                                 " the relations whose source type has features are " +
                                 RelationList(partition, want) +
                                 "; export the model from this partition (model export --partition-config) or set "
                                 "input_aggregation: off");
}

}  // namespace dg
