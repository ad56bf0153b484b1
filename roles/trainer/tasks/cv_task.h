// CvTask: control-variate training (VR-GCN, Chen et al. 2018; the estimator
// is described in roles/trainer/control_variate.h), a task of the epoch loop
// (roles/trainer/loop/epoch_task.h).
//
// The trainer samples its own batches from the CvStore (in-process, or the
// servers' with history DistTensors and PULL_AGGREGATE): batch b of epoch e
// is the same whatever happened before (seeded by the job seed, e - 1 and b),
// so a resumed epoch skips its done batches without sampling them. The
// history tensors are part of a step checkpoint: the servers' CHECKPOINT
// holds theirs, the trainer's step directory an in-process store's
// (CvStore::SaveHistory). Evaluation is exact (all in-neighbours, no history);
// the numbers are accuracies, as the node task's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/train_spec.h"
#include "roles/trainer/cv_store.h"
#include "roles/trainer/loop/epoch_task.h"
#include "roles/trainer/trainer.h"

namespace dg {

// The control-variate model: cv_input / cv_layer over a store.
struct CvModel {
  CvModel(const TrainSpec& s, CvStore* st) : spec(s), store(st) {}
  const TrainSpec& spec;
  CvStore* store;
  torch::jit::Module module;
  int layers = 0;
  std::string history_prefix = "cv_h";  // history tensors cv_h1 .. cv_h{L-1}

  std::string History(int l) const { return history_prefix + std::to_string(l); }
  // Logits of `seeds`; training: the CV estimator with the history (and the
  // history updated), else exact over all in-neighbours. `epoch` is the
  // sampling epoch (from 0), `batch` the batch's index in it.
  Result<torch::Tensor> Forward(const std::vector<int64_t>& seeds, bool training, int64_t epoch, int64_t batch,
                                torch::Tensor* labels);
};

// Checks the settings that control variate needs (cv_input, fanouts > 0);
// errors name the flag/key.
Status CheckControlVariateSpec(const TrainSpec& spec);

class CvTask : public EpochTask {
 public:
  // Loads the model (it must offer cv_input/cv_layer with num_layers ==
  // fanouts + 1) and creates the history tensors (widths from one forward).
  static Result<std::unique_ptr<CvTask>> Create(const TrainSpec& spec, const TrainHooks& hooks, CvStore* store,
                                                const TrainerSeeds& seeds);

  ModelState& model() override { return m_; }
  int64_t kind() const override { return 2; }
  const char* name() const override { return "control variate"; }
  const char* metric() const override { return "acc"; }
  Result<int64_t> BeginEpoch(int64_t epoch) override;
  Result<bool> NextBatch(bool skip, StepSplit* split) override;
  Result<BatchLoss> Loss() override;
  Result<Evaluation> Evaluate(int64_t epoch) override;
  std::string EpochJson(const EpochStats& st) const override;
  Status SaveState(const std::string& dir) override;
  Status LoadState(const std::string& dir) override;

 private:
  CvTask(const TrainSpec& spec, const TrainHooks& hooks, CvStore* store, const TrainerSeeds& seeds)
      : hooks_(hooks), cv_(spec, store), seeds_(seeds) {}
  Status InitHistory();
  // Accuracy and mean cross-entropy loss over `seeds` (summed over trainers).
  Result<std::pair<double, double>> AccuracyAndLoss(const std::vector<int64_t>& seeds, int64_t epoch);

  const TrainHooks& hooks_;
  CvModel cv_;
  ModelState m_;
  TrainerSeeds seeds_;
  std::vector<int64_t> order_;  // the epoch's seeds, shuffled
  int64_t epoch_ = 0, batch_ = 0, steps_ = 0;
  int64_t current_ = 0;  // the batch NextBatch read last
};

}  // namespace dg
