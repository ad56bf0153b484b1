// CvTask: control-variate training (VR-GCN, Chen et al. 2018), as the 2019
// DGL graph store ran it (`train.algorithm: control_variate` / train-local
// `--algorithm control_variate`), a task of the epoch loop
// (roles/trainer/loop/epoch_task.h).
//
// The model has L >= 2 layers and offers cv_input / cv_layer (model contract,
// roles/trainer/model/model_export.h; README "Writing your own model"). A batch of
// seeds V_{L-1} samples fanouts[l-1] in-neighbours per node for layer l
// (L-1 fanouts, input side first; 2 in the paper), giving V_{L-1} ⊆ ... ⊆ V_0
// (each a prefix of the next, destinations first). Then
//   h^1 = cv_input(x, ax, deg) on V_0, exact: ax is the propagated input
//         (mean of x over the in-neighbours, `propagate --hops 1 --norm mean`)
//   for l = 1 .. L-1, with history H_l (float32 [N, width], zeros at start):
//     h_neigh_v = mean_{u in S_v}(h^l_u - H_l[u]) + (sum_{u in N(v)} H_l[u]) / |N(v)|
//                 (the second term is the aggregating pull, PULL_AGGREGATE;
//                 0 for a node without in-edges)
//     H_l[V_{l-1}] <- h^l (detached; PUSH overwrite)
//     h^{l+1} = cv_layer(l, h^l_v, h_neigh_v, deg_v) on V_l
// i.e. the estimator agg(h)_v ~ (n_v/|S_v|) sum_S (h_u - H_u)/n_v + sum_N H_u / n_v
// for the mean aggregation Â = D^-1 A. The loss is cross entropy on the seeds;
// gradients flow through h^l of the sampled neighbours (the history is a
// constant).
//
// With learnt rows (train.embedding), x is [features | E] or E alone, and E
// changes every step, so its mean cannot be propagated ahead. Its history is
// the table itself: a training batch samples one more hop below V_0
// (fanouts has one entry per layer), and
//   ax_E = mean_{u in S_v}(E_u - sg(E_u)) + (sum_{u in N(v)} E_u) / |N(v)|
// whose value is the exact mean of the current rows (PULL_AGGREGATE of the
// table) and whose gradient reaches the sampled neighbours' rows, 1/|S_v|
// each (unbiased for 1/|N(v)|). The rows of V_{-1} go to the loop's
// learnt-row update as any task's.
//
// Training batches are node batches of the fanouts (CvInput::batches: made in
// this process or by sampler processes, which also gather the features and
// labels), as the node task's: batch b of epoch e is the same whatever
// happened before, so a resumed epoch skips its done batches. The trainer
// reads the propagated input, the in-degrees and the history from the CvStore
// (in-process, or the servers' with history DistTensors and PULL_AGGREGATE)
// at the batch's step; evaluation samples from the store itself. The
// history tensors are part of a step checkpoint: the servers' CHECKPOINT
// holds theirs, the trainer's step directory an in-process store's
// (CvStore::SaveHistory). Evaluation is exact (all in-neighbours, no history);
// the numbers are accuracies, as the node task's, and predictions.npy
// (save_predictions, rank 0) is the exact forward's argmax of
// CvInput::predict, in that order, embeddings.npy (save_embeddings) its last
// hidden rows (the input of the last cv_layer); each epoch line adds
// "algorithm": "control_variate" and bytes_per_step is CvStore::bytes() over
// the epoch's training steps.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/train_spec.h"
#include "roles/trainer/source/cv_store.h"
#include "roles/trainer/loop/epoch_task.h"
#include "roles/trainer/source/graph_source.h"

namespace dg {

// The control-variate model: cv_input / cv_layer over a store.
struct CvModel {
  CvModel(const TrainSpec& s, CvStore* st, std::string in) : spec(s), store(st), input(std::move(in)) {}
  const TrainSpec& spec;
  CvStore* store;
  std::string input;  // the store's node array of propagated input ("" without features)
  NodeEmbedding* embedding = nullptr;  // the learnt rows, if any
  torch::jit::Module module;
  int layers = 0;
  std::string history_prefix = "cv_h";  // history tensors cv_h1 .. cv_h{L-1}

  // Layer 0's input on V_0: x, its mean over the in-neighbours, the in-degrees.
  struct Layer0 {
    torch::Tensor x, ax, deg;
  };

  std::string History(int l) const { return history_prefix + std::to_string(l); }
  // Training batches have this many blocks; evaluation batches layers - 1.
  int TrainingBlocks() const { return layers - 1 + (embedding ? 1 : 0); }
  // Logits of `seeds`; training: the CV estimator with the history (and the
  // history updated), else exact over all in-neighbours. `epoch` is the
  // sampling epoch (from 0), `batch` the batch's index in it.
  // `hidden` (optional) gets the seeds' last hidden rows, the input of the
  // last cv_layer.
  Result<torch::Tensor> Forward(const std::vector<int64_t>& seeds, bool training, int64_t epoch, int64_t batch,
                                torch::Tensor* labels, torch::Tensor* hidden = nullptr);
  // The same for a batch sampled already (layer l's block dst V_l, src
  // V_{l-1}, after the learnt rows' block in training; features and labels
  // taken when gathered, else read here). `emb_leaf` (training with learnt
  // rows) gets the rows of mb.input_nodes, a leaf for the loop's update.
  Result<torch::Tensor> ForwardBatch(const MiniBatch& mb, bool training, torch::Tensor* labels,
                                     torch::Tensor* hidden = nullptr, torch::Tensor* emb_leaf = nullptr);
  // Layer 0's input of a batch (its reads run concurrently).
  Result<Layer0> Input(const MiniBatch& mb, bool training, torch::Tensor* emb_leaf);
};

class CvTask : public EpochTask {
 public:
  // Loads the model (it must offer cv_input/cv_layer with num_layers ==
  // fanouts + 1, or == fanouts with learnt rows) and creates the history tensors (widths from one forward).
  // `input`: the store and this trainer's seeds (GraphSource::ControlVariate).
  static Result<std::unique_ptr<CvTask>> Create(const TrainSpec& spec, const TrainHooks& hooks, CvInput input);

  ModelState& model() override { return m_; }
  int64_t kind() const override { return 2; }
  const char* name() const override { return "control variate"; }
  const char* metric() const override { return "acc"; }
  Result<int64_t> BeginEpoch(int64_t epoch) override;
  Result<bool> NextBatch(bool skip, StepSplit* split) override;
  Result<BatchLoss> Loss() override;
  Result<Evaluation> Evaluate(int64_t epoch) override;
  std::string EpochJson(const EpochStats& st) const override;
  Status SaveOutputs() override;
  Status SaveState(const std::string& dir) override;
  Status LoadState(const std::string& dir) override;

 private:
  CvTask(const TrainSpec& spec, const TrainHooks& hooks, CvInput input)
      : hooks_(hooks), cv_(spec, input.store, input.input), seeds_(std::move(input)) {}
  Status InitHistory();
  // Accuracy and mean cross-entropy loss over `seeds` (summed over trainers).
  Result<std::pair<double, double>> AccuracyAndLoss(const std::vector<int64_t>& seeds, int64_t epoch);

  const TrainHooks& hooks_;
  CvModel cv_;
  ModelState m_;
  CvInput seeds_;
  MiniBatch mb_;  // the batch NextBatch read last
};

}  // namespace dg
