// NodeTask: node classification, a task of the epoch loop
// (roles/trainer/loop/epoch_task.h).
//
// Batches of seed nodes from a BatchProvider; the model's forward gives one
// row of class logits per seed (forward_agg when the batch carries block 0
// aggregated at the data); loss = cross-entropy (the loop's step does the
// rest, loop/train_step.h); with an embedding (TrainHooks::embedding) the
// model's input is [features | embedding rows] of the batch's input nodes
// (the rows alone when spec.embedding.features is false), their leaf handed
// to the step.
// Evaluation: accuracy on the val and test seeds (all-reduced), eval fanouts.
// With full neighbourhoods the seeds' logits come either from node batches
// of the seeds or, when that computes less (ChooseLayerwise), from every
// node's rows computed one layer at a time (inference/source_form.h).
// Outputs (rank 0, best parameters): predictions and embeddings of
// NodeInput::outputs (inference/node_outputs.h).
#pragma once

#include <memory>
#include <vector>

#include "common/sampling/batch_provider.h"
#include "config/train_spec.h"
#include "roles/trainer/loop/epoch_task.h"
#include "roles/trainer/loop/trainer_setup.h"
#include "roles/trainer/source/graph_source.h"

namespace dg {

class NodeTask : public EpochTask {
 public:
  // `input`: the batches and this trainer's seeds (GraphSource::Nodes).
  static Result<std::unique_ptr<NodeTask>> Create(const TrainSpec& spec, const TrainHooks& hooks, NodeInput input);

  ModelState& model() override { return m_; }
  int64_t kind() const override { return 0; }
  const char* name() const override { return "node classification"; }
  const char* metric() const override { return "acc"; }
  Result<int64_t> BeginEpoch(int64_t epoch) override;
  Result<bool> NextBatch(bool skip, StepSplit* split) override;
  Result<BatchLoss> Loss() override { return LossOf(mb_); }
  Result<Evaluation> Evaluate(int64_t epoch) override;
  std::string EpochJson(const EpochStats& st) const override;
  Status SaveOutputs() override;

  // The cross-entropy of `mb`'s seeds (mb outlives the step: its input nodes
  // are the learnt rows' ids).
  Result<BatchLoss> LossOf(const MiniBatch& mb);
  // Accuracy and mean cross-entropy loss on `seeds` (all-reduced; NaN without
  // any): their logits from node batches, or from the last layer's table
  // during a layer-wise evaluation.
  Result<std::pair<double, double>> AccuracyAndLoss(const std::vector<int64_t>& seeds);
  bool layerwise() const { return layerwise_; }

 protected:
  NodeTask(const TrainSpec& spec, const TrainHooks& hooks, NodeInput input)
      : spec_(spec), hooks_(hooks), in_(std::move(input)) {}
  // Loads the model into m_ and checks it (CheckNodeOutputs, then `also`).
  Status SetUp(const ModelCheck& also = nullptr);
  Result<torch::Tensor> Forward(const MiniBatch& mb, torch::Tensor* emb_leaf = nullptr);
  // InvalidArgument unless `logits` has one row per seed and a column per class.
  Status CheckLogits(const torch::Tensor& logits, int64_t rows) const;
  // The cross-entropy of `logits` against `labels` (int64, one per row).
  Result<BatchLoss> ClassLoss(const torch::Tensor& logits, const Array& labels) const;
  // Whether evaluation goes layer by layer over every node: full-neighbour
  // evaluation, a homogeneous model with forward_layer whose outputs do not
  // depend on which destinations share a block (no `reads_source_degrees`
  // attribute set, which export sets for gcn), a source that offers it, and
  // every trainer's val and test seeds times the mean in-degree at
  // least the number of nodes. Node batches of the seeds compute layer 0 for
  // at least each seed's in-neighbours, about seeds x mean degree rows, and
  // more at every layer below the last; layer by layer computes each node
  // once per layer. The same on every trainer (the counts are all-reduced).
  Result<bool> ChooseLayerwise();
  Result<std::pair<double, double>> TableAccuracyAndLoss(const std::vector<int64_t>& seeds);

  const TrainSpec& spec_;
  const TrainHooks& hooks_;
  ModelState m_;
  NodeInput in_;
  MiniBatch mb_;  // the step's batch, reused
  bool layerwise_ = false;
  int64_t eval_seeds_ = 0;  // every trainer's val and test seeds
  std::string eval_table_;  // during a layer-wise evaluation: the last layer's table
};

}  // namespace dg
