// LinkTrainer: the training loop of link prediction, beside the
// node-classification Trainer (trainer.h) and sharing its options.
//
// Training: batches of edges from a link BatchProvider (common/sampling/edge_batch.h:
// labels int64 [R, 3] = (source row, destination row, target)); the model's
// forward gives one row per seed (an embedding); the score of a pair is the
// model's `score(h_src, h_dst) -> Tensor[R]` when it has that method, else the
// dot product; loss = binary cross-entropy with logits over positives and
// negatives. Gradients are all-reduced as the Trainer does; a DistEmbedding
// (options.embedding) is the input (or part of it) and is updated sparsely.
//
// Evaluation (every eval_every epochs and the last): (layer-wise, see
// LinkOptions::layerwise_source, or node batches) every val/test edge
// (s, d) is scored against eval_negatives pairs (s, n), n uniform over all
// nodes (typed graphs: over the destination type's nodes, see
// LinkOptions::negative_first) drawn from Rng(MixSeed(MixSeed(0x11dc, s), d)) -- independent of the
// job seed, so numbers are comparable across runs. The embeddings of the nodes
// involved come from `nodes` (a node BatchProvider) with full neighbors
// (options.eval_fanouts empty) or eval_fanouts. Scores are gathered from every
// trainer (sum all-reduce into place) so MRR, Hits@1/10/50 and ROC-AUC
// (link_metrics.h) are exact over all edges.
//
// Rank 0 writes out_dir/metrics.jsonl, per epoch
//   {"epoch","loss","train_acc","val_mrr","val_hits@1","val_hits@10","val_hits@50",
//    "val_auc","test_mrr",...,"test_auc","epoch_seconds","wait_fraction","steps",
//    "positive_edges","edges_per_second"}
// (train_acc: fraction of pairs whose logit has the target's sign; val/test
// null when not evaluated), and a last line {"final": true, "best_epoch",
// "best_val_auc", "val_..", "test_..."} of the best-validation-AUC epoch;
// model.pt (best-validation weights) and checkpoint.pt (params, optimizer,
// epoch, best, torch RNG) after every epoch; `resume` continues after the
// checkpoint's epoch (every rank reads out_dir/checkpoint.pt). Torch-free header.
#pragma once

#include <memory>
#include <vector>

#include "common/sampling/batch_provider.h"
#include "common/sampling/negative_sampler.h"
#include "common/storage/dataset.h"
#include "roles/trainer/link_metrics.h"
#include "roles/trainer/trainer.h"

namespace dg {

struct LinkOptions {
  int eval_negatives = 100;  // per val/test edge
  int64_t num_nodes = 0;     // the graph's nodes
  // Evaluation negatives are drawn from [negative_first, negative_first +
  // negative_count) (negative_count 0 = every node; on a typed graph: the
  // destination type's global ids).
  int64_t negative_first = 0;
  int64_t negative_count = 0;
  // Non-empty: evaluation negatives are uniform over these ranges instead (a
  // typed partition's destination type, one (first, count) per part).
  IdRanges negative_ranges;
  // Layer-wise evaluation: with full-neighbor evaluation (eval_fanouts empty), a
  // model with forward_layer and a source, every node's embedding is computed
  // first, one layer at a time over full-neighbor blocks (each trainer its
  // NodeSplit share of the nodes, rows summed across trainers), and pairs are
  // scored from that table. Null = node batches of the nodes involved. A typed
  // model (typed contract, docs/models.md) always takes node batches: its
  // forward_layer starts from hidden rows that only its forward computes.
  NeighborSource* layerwise_source = nullptr;
  std::string feature_name = "features";  // layer 0 input ("" = the embedding alone)
};

struct LinkSeeds {
  std::vector<int64_t> train;  // this trainer's training edge ids
  EdgeList val, test;          // this trainer's share of the held-out edges
};

struct LinkEpochStats {
  int64_t epoch = 0, steps = 0, positives = 0;
  double loss = 0, train_acc = 0, seconds = 0, wait_seconds = 0;
  bool evaluated = false;
  LinkMetrics val, test;
};

class LinkTrainer {
 public:
  static Result<std::unique_ptr<LinkTrainer>> Create(const TrainerOptions& options, const LinkOptions& link);
  ~LinkTrainer();
  Status Fit(BatchProvider* edges, BatchProvider* nodes, const LinkSeeds& seeds);
  // Metrics of `held` (this trainer's share; gathered over all trainers).
  Result<LinkMetrics> Evaluate(BatchProvider* nodes, const EdgeList& held);
  std::vector<float> ParameterVector() const;
  const std::vector<LinkEpochStats>& history() const;

 private:
  struct Impl;
  explicit LinkTrainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dg
