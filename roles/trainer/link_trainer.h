// LinkTrainer: link prediction in one trainer process: the link task
// (roles/trainer/tasks/link_task.h, which says what it trains and how it
// evaluates) run by the epoch loop (roles/trainer/loop/epoch_loop.h), with
// step checkpoints, resume and exact restart as every task has them.
//
// Rank 0 writes out_dir/metrics.jsonl, per epoch
//   {"epoch","loss","train_acc","val_mrr","val_hits@1","val_hits@10","val_hits@50",
//    "val_auc","test_mrr",...,"test_auc","epoch_seconds","wait_fraction","steps",
//    "step_ms","positive_edges","edges_per_second"}
// (train_acc: fraction of pairs whose logit has the target's sign; val/test
// null when not evaluated), and a last line {"final": true, "best_epoch",
// "best_val_auc", "val_..", "test_..."} of the best-validation-AUC epoch;
// model.pt (best-validation weights), checkpoint.pt and step checkpoints;
// with save_embeddings, embeddings.npy: the encoder's output (the model's
// forward, with the evaluation's fanouts or layer-wise) of every node of
// LinkSeeds::predict, from the best-validation weights.
// Torch-free header.
#pragma once

#include <memory>
#include <vector>

#include "common/sampling/batch_provider.h"
#include "common/sampling/negative_sampler.h"
#include "common/storage/dataset.h"
#include "roles/trainer/link_metrics.h"
#include "roles/trainer/trainer.h"

namespace dg {

// What the link task knows of the graph besides its settings.
struct LinkOptions {
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
  // save_embeddings (rank 0): the nodes whose embeddings.npy rows it writes,
  // in row order (original node order).
  std::vector<int64_t> predict;
};

class LinkTrainer {
 public:
  // `spec` is checked (ValidateTrainSpec); spec, hooks and link are copied.
  static Result<std::unique_ptr<LinkTrainer>> Create(const TrainSpec& spec, const TrainHooks& hooks,
                                                     const LinkOptions& link);
  ~LinkTrainer();
  Status Fit(BatchProvider* edges, BatchProvider* nodes, const LinkSeeds& seeds);
  std::vector<float> ParameterVector() const;
  const std::vector<EpochStats>& history() const;

 private:
  struct Impl;
  explicit LinkTrainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dg
