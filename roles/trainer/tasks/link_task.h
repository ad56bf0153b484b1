// LinkTask: link prediction, a task of the epoch loop
// (roles/trainer/loop/epoch_task.h).
//
// Training: batches of edges from a link BatchProvider (common/sampling/edge_batch.h:
// labels int64 [R, 3] = (source row, destination row, target)); the model's
// forward gives one row per seed (an embedding); the score of a pair is the
// model's `score(h_src, h_dst) -> Tensor[R]` when it has that method, else the
// dot product; loss = binary cross-entropy with logits over positives and
// negatives. An embedding (TrainHooks::embedding) is the input (or part of
// it) and is updated sparsely, as in the node task.
//
// Evaluation: every val/test edge (s, d) is scored against
// spec.link.eval_negatives pairs (s, n), n uniform over all nodes (typed
// graphs: over the destination type's nodes, see LinkOptions::negative_first)
// drawn from Rng(MixSeed(MixSeed(0x11dc, s), d)) -- independent of the job
// seed, so numbers are comparable across runs. The embeddings of the nodes
// involved come either from the layer tables after the layer-wise driver has
// computed every node's (LinkOptions::layer_tables in source/graph_source.h;
// a trainer reads only the rows of its own edges) or from `nodes` (a node
// BatchProvider) with the evaluation fanouts. Scores are gathered from every
// trainer (sum all-reduce into place)
// so MRR, Hits@1/10/50 and ROC-AUC (link_metrics.h) are exact over all
// edges; the best model is the best validation AUC.
#pragma once

#include <memory>

#include "config/train_spec.h"
#include "roles/trainer/tasks/link_metrics.h"
#include "roles/trainer/loop/epoch_task.h"
#include "roles/trainer/source/graph_source.h"

namespace dg {

class LinkTask : public EpochTask {
 public:
  // `input`: the batches, edges and graph (GraphSource::Links).
  static Result<std::unique_ptr<LinkTask>> Create(const TrainSpec& spec, const TrainHooks& hooks, LinkInput input);

  ModelState& model() override { return m_; }
  int64_t kind() const override { return 1; }
  const char* name() const override { return "link prediction"; }
  const char* metric() const override { return "auc"; }
  Result<int64_t> BeginEpoch(int64_t epoch) override;
  Result<bool> NextBatch(bool skip, StepSplit* split) override;
  Result<BatchLoss> Loss() override;
  Result<Evaluation> Evaluate(int64_t epoch) override;
  std::string EvaluationJson(const Evaluation& e) const override;
  std::string EpochJson(const EpochStats& st) const override;
  std::string FinalJson(const Evaluation& best, bool have_best) const override;
  std::string EvaluationText(const Evaluation& e) const override;
  Status SaveOutputs() override;

 private:
  LinkTask(const TrainSpec& spec, const TrainHooks& hooks, LinkInput input)
      : spec_(spec), hooks_(hooks), in_(std::move(input)), link_(in_.link) {}
  bool Layerwise() const;
  Result<std::string> EmbedAll();
  // The forward output of `ids` by node batches (evaluation fanouts), rows in
  // the order given; `seed_tag` picks the batches' sampling seed.
  Result<torch::Tensor> EmbedNodes(const std::vector<int64_t>& ids, uint64_t seed_tag);
  Result<torch::Tensor> Forward(const MiniBatch& mb, torch::Tensor* emb_leaf);
  Result<torch::Tensor> Score(const torch::Tensor& hs, const torch::Tensor& hd);
  Result<std::vector<float>> Gather(const std::vector<float>& mine);
  std::vector<int64_t> Negatives(const EdgeList& held) const;
  Status ScoreEdges(const EdgeList& held, const std::vector<int64_t>& neg, int64_t lo, int64_t hi,
                    std::vector<float>* pos, std::vector<float>* negs);
  Result<LinkMetrics> EvaluateEdges(const EdgeList& held);

  const TrainSpec& spec_;
  const TrainHooks& hooks_;
  LinkInput in_;
  const LinkOptions& link_;
  ModelState m_;
  bool has_score_ = false;
  bool typed_ = false;  // the typed contract (blocks with edge and node types)
  MiniBatch mb_;
  std::string eval_table_;  // during a layer-wise evaluation: the layer table of every node's embedding
};

}  // namespace dg
