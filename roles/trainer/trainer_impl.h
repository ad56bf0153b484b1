// Trainer's state (roles/trainer/trainer.h), shared by its files: trainer.cpp
// (the loop), trainer_checkpoint.cpp (checkpoint.pt) and trainer_predict.cpp
// (predictions and embeddings of every node).
#pragma once

#include <torch/script.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "roles/trainer/trainer.h"
#include "roles/trainer/training_state.h"

namespace dg {

// The model, optimizer, sync and best parameters are the ModelState
// (training_state.h) both training loops share.
struct Trainer::Impl : ModelState {
  TrainerOptions opt;
  std::vector<EpochStats> history;
  // Best validation so far.
  int64_t best_epoch = 0;
  double best_val = -1, best_test = -1;
  bool tty = false;
  int64_t steps_per_epoch = 0;     // of the epoch running (every trainer runs the same number)
  std::chrono::steady_clock::time_point last_progress = std::chrono::steady_clock::now();

  int64_t EvalBatchSize() const {
    return opt.eval_batch_size > 0 ? opt.eval_batch_size : std::max<int64_t>(opt.batch_size, 1024);
  }
  bool writer() const { return opt.dp.rank == 0 && !opt.out_dir.empty(); }
  std::string OutPath(const std::string& name) const { return opt.out_dir + "/" + name; }

  Status Step(const std::vector<const MiniBatch*>& batches, double* loss, int64_t* correct,
              int64_t* count, StepSplit* split);
  uint64_t embedding_steps = 0;  // Update calls so far (the step id of SPARSE_UPDATE)
  int64_t global_step = 0;       // training steps so far, every epoch (step checkpoint N)
  // Where a mid-epoch step checkpoint resumes: epoch, batches done in it and
  // this trainer's sums so far (loss, steps, correct, count).
  int64_t resume_epoch = 0, resume_batch = 0;
  double resume_sums[4] = {0, 0, 0, 0};

  // The model input of a batch (see the header). With emb_leaf, the embedding
  // rows are a leaf that requires grad and is returned there.
  Result<torch::Tensor> Input(const MiniBatch& mb, torch::Tensor* emb_leaf);
  Result<torch::Tensor> Forward(const MiniBatch& mb, torch::Tensor* emb_leaf = nullptr);
  // Sends the embedding gradients of one step (every trainer, every step).
  Status UpdateEmbedding(const std::vector<const MiniBatch*>& batches, const std::vector<torch::Tensor>& leaves);
  Result<torch::Tensor> AllRngStates() { return dg::AllRngStates(sync.get(), opt.dp); }
  Status SaveCheckpoint(int64_t epoch, const torch::Tensor& rng_states);
  // Every trainer calls it after step global_step (batch `batch` of `epoch`,
  // with its sums so far); trainer 0 writes checkpoints/step-N with the
  // servers' part first (trainer_checkpoint.cpp). Adds its time to *st.
  Status SaveStepCheckpoint(int64_t epoch, int64_t batch, const double sums[4], EpochStats* st);
  // Rank 0's choice of what to resume from, shared: the newest complete step
  // checkpoint (the servers' part loaded), else checkpoint.pt. Returns the
  // first epoch to run and sets the resume position.
  Result<int64_t> Resume();
  // A file holding rank 0's checkpoint file (rank0_path, "" = none) on every
  // rank: only rank 0 writes checkpoints, so other ranks get its bytes by
  // broadcast.
  Result<std::string> SharedCheckpointPath(const std::string& rank0_path);
  Result<int64_t> LoadCheckpoint(const std::string& path);
  Status WriteModel(const std::string& path, bool best);
  Status Predict(BatchProvider* provider, const std::vector<int64_t>& nodes);
  void Progress(int64_t epoch, int64_t step, double loss, double acc, double elapsed, double wait,
                bool done);
};

}  // namespace dg
