#include "roles/trainer/tasks/node_task.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstring>

#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/inference/node_outputs.h"
#include "roles/trainer/inference/source_form.h"
#include "roles/trainer/source/layer_tables.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/loop/trainer_setup.h"
#include "roles/trainer/trainer_util.h"

namespace dg {

Result<std::unique_ptr<NodeTask>> NodeTask::Create(const TrainSpec& spec, const TrainHooks& hooks, NodeInput input) {
  std::unique_ptr<NodeTask> t(new NodeTask(spec, hooks, std::move(input)));
  DG_RETURN_IF_ERROR(t->SetUp());
  return t;
}

Status NodeTask::SetUp(const ModelCheck& also) {
  if (spec_.fanouts.empty()) return Status::InvalidArgument("--fanouts: empty (need one per layer)");
  const TrainSpec& spec = spec_;
  DG_RETURN_IF_ERROR(SetUpModel(spec, hooks_, static_cast<int64_t>(spec.fanouts.size()),
                                [&spec, &also](const torch::jit::Module& module) {
                                  DG_RETURN_IF_ERROR(CheckNodeOutputs(spec, module));
                                  return also ? also(module) : Status::OK();
                                },
                                &m_));
  DG_ASSIGN_OR_RETURN(layerwise_, ChooseLayerwise());
  if (layerwise_ && hooks_.dp.rank == 0)
    spdlog::info("evaluation: every node layer by layer over full neighbourhoods ({} val and test seeds x mean "
                 "in-degree {:.1f} >= {} nodes)",
                 eval_seeds_, double(in_.num_edges) / double(in_.num_nodes), in_.num_nodes);
  return Status::OK();
}

Result<bool> NodeTask::ChooseLayerwise() {
  if (!in_.layerwise_source || !in_.layer_tables || in_.num_nodes <= 0 || !FullNeighborEval(spec_) ||
      IsTypedModel(m_.module) || !m_.module.find_method("forward_layer").has_value() ||
      (m_.module.hasattr("reads_source_degrees") && m_.module.attr("reads_source_degrees").toBool()))
    return false;
  torch::Tensor seeds = torch::tensor({static_cast<double>(in_.val.size() + in_.test.size())}, torch::kFloat64);
  if (m_.sync) DG_RETURN_IF_ERROR(m_.sync->AllReduce({seeds}, /*average=*/false));
  eval_seeds_ = static_cast<int64_t>(seeds.item<double>());
  return double(eval_seeds_) * double(in_.num_edges) >= double(in_.num_nodes) * double(in_.num_nodes);
}

Status NodeTask::CheckLogits(const torch::Tensor& out, int64_t rows) const {
  if (out.dim() != 2 || out.size(0) != rows)
    return Status::InvalidArgument("model " + spec_.model + ": forward returned shape " + c10::str(out.sizes()) +
                                   ", expected one row per seed [" + std::to_string(rows) + ", " +
                                   std::to_string(in_.num_classes) + "]");
  if (in_.num_classes > 0 && out.size(1) != in_.num_classes)
    return Status::InvalidArgument("model " + spec_.model + ": output width " + std::to_string(out.size(1)) +
                                   " != number of classes " + std::to_string(in_.num_classes));
  return Status::OK();
}

Result<torch::Tensor> NodeTask::Forward(const MiniBatch& mb, torch::Tensor* emb_leaf) {
  DG_ASSIGN_OR_RETURN(torch::Tensor out, ModelForward(m_.module, spec_, hooks_.embedding, mb, emb_leaf));
  DG_RETURN_IF_ERROR(CheckLogits(out, static_cast<int64_t>(mb.seeds.size())));
  return out;
}

Result<BatchLoss> NodeTask::ClassLoss(const torch::Tensor& logits, const Array& label_rows) const {
  if (label_rows.dtype != DType::kInt64 || label_rows.rows() != logits.size(0))
    return Status::InvalidArgument("labels must be int64 with one row per seed");
  torch::Tensor labels = ArrayTensor(label_rows).reshape({-1});
  if (labels.numel() > 0) {
    int64_t lo = labels.min().item<int64_t>(), hi = labels.max().item<int64_t>();
    if (lo < 0 || hi >= logits.size(1))
      return Status::InvalidArgument("label " + std::to_string(lo < 0 ? lo : hi) +
                                     " of a training node is out of range [0, " + std::to_string(logits.size(1)) +
                                     ")");
  }
  BatchLoss out;
  out.loss = torch::nn::functional::cross_entropy(logits, labels);
  out.correct = logits.argmax(1).eq(labels).sum().item<int64_t>();
  out.count = labels.numel();
  out.items = out.count;
  return out;
}

Result<BatchLoss> NodeTask::LossOf(const MiniBatch& mb) {
  torch::Tensor rows;
  DG_ASSIGN_OR_RETURN(torch::Tensor logits, Forward(mb, hooks_.embedding ? &rows : nullptr));
  DG_ASSIGN_OR_RETURN(BatchLoss out, ClassLoss(logits, mb.labels));
  out.rows = rows;
  out.row_ids = &mb.input_nodes;
  return out;
}

Result<int64_t> NodeTask::BeginEpoch(int64_t epoch) {
  if (in_.train.empty())
    return Status::InvalidArgument("no training nodes for trainer " + std::to_string(hooks_.dp.rank) +
                                   " (split has no nodes with value 0, or fewer train nodes than trainers)");
  DG_RETURN_IF_ERROR(in_.batches->BeginEpoch(TrainRequest(spec_, in_.train, epoch)));
  return NumBatches(static_cast<int64_t>(in_.train.size()), spec_.batch_size);
}

Result<bool> NodeTask::NextBatch(bool skip, StepSplit* split) { return NextTimedBatch(*in_.batches, &mb_, skip, split); }

Result<std::pair<double, double>> NodeTask::AccuracyAndLoss(const std::vector<int64_t>& seeds) {
  if (!eval_table_.empty()) return TableAccuracyAndLoss(seeds);
  DG_RETURN_IF_ERROR(in_.batches->BeginEpoch(EvalRequest(spec_, seeds, kEvalSeed, /*labels=*/true)));
  torch::NoGradGuard no_grad;
  m_.module.train(false);
  ClassTally tally;
  MiniBatch mb;
  while (true) {
    DG_ASSIGN_OR_RETURN(bool more, in_.batches->Next(&mb));
    if (!more) break;
    DG_ASSIGN_OR_RETURN(torch::Tensor logits, Forward(mb));
    tally.Add(logits, ArrayTensor(mb.labels).reshape({-1}));
  }
  return tally.AccuracyAndLoss(m_.sync.get());
}

// The seeds' logits from the last layer's table, their labels from the graph.
Result<std::pair<double, double>> NodeTask::TableAccuracyAndLoss(const std::vector<int64_t>& seeds) {
  ClassTally tally;
  if (!seeds.empty()) {
    DG_ASSIGN_OR_RETURN(Array logits, in_.layer_tables->Read(eval_table_, seeds));
    DG_ASSIGN_OR_RETURN(Array labels, in_.layerwise_source->Gather("labels", seeds));
    torch::Tensor out = ArrayTensor(logits);
    DG_RETURN_IF_ERROR(CheckLogits(out, static_cast<int64_t>(seeds.size())));
    tally.Add(out, ArrayTensor(labels).reshape({-1}));
  }
  return tally.AccuracyAndLoss(m_.sync.get());
}

Result<Evaluation> NodeTask::Evaluate(int64_t /*epoch*/) {
  if (layerwise_) {
    const SourceFormOptions o =
        TrainingFormOptions(spec_, hooks_.embedding, in_.layerwise_source, in_.num_nodes, in_.feature_name);
    DG_ASSIGN_OR_RETURN(eval_table_, ComputeEveryNode(o, &m_.module, in_.layer_tables, m_.sync.get(),
                                                      hooks_.dp.rank, hooks_.dp.world_size, EvalBatchSize(spec_),
                                                      "node-eval"));
  }
  Evaluation e;
  auto val = AccuracyAndLoss(in_.val);
  auto test = val.ok() ? AccuracyAndLoss(in_.test) : val;
  eval_table_.clear();
  DG_RETURN_IF_ERROR(test.status());
  e.val = val->first;
  e.val_loss = val->second;
  e.test = test->first;
  return e;
}

std::string NodeTask::EpochJson(const EpochStats& st) const { return "\"seeds\": " + std::to_string(st.seeds); }

Status NodeTask::SaveOutputs() {
  if (!hooks_.writer() || !(spec_.save_predictions || spec_.save_embeddings)) return Status::OK();
  return WriteNodeOutputs(spec_, hooks_, m_.module, in_.batches, in_.outputs,
                          [this](const MiniBatch& mb) { return Forward(mb); });
}

}  // namespace dg
