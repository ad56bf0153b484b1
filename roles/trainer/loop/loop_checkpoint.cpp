// EpochLoop's checkpoints: checkpoint.pt after every epoch and the step
// checkpoints checkpoints/step-N/ (step_checkpoint.h), written by rank 0,
// shared with the other ranks by broadcast, loaded on --resume. The file
// format is training_state.h's; the loop's keys are listed in docs/formats.md.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/io/durable_file.h"
#include "common/storage/node_embedding.h"
#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/loop/step_checkpoint.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

// An Evaluation as [val, test, values...] (float64) and back.
torch::Tensor EvaluationTensor(const Evaluation& e) {
  std::vector<double> v{e.val, e.test};
  v.insert(v.end(), e.values.begin(), e.values.end());
  return torch::tensor(v, torch::kFloat64);
}

Evaluation EvaluationOf(const torch::Tensor& t) {
  Evaluation e;
  e.done = true;
  torch::Tensor c = t.to(torch::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  if (c.numel() >= 2) {
    e.val = p[0];
    e.test = p[1];
    e.values.assign(p + 2, p + c.numel());
  }
  return e;
}

}  // namespace

// The loop's keys of both checkpoints: the task, the best so far, the step
// counters and the learning-rate schedule's state (its position and the
// rate of the next step).
void EpochLoop::WriteLoopState(torch::serialize::OutputArchive* ar) {
  const ModelState& m = task_->model();
  ar->write("task", torch::tensor(task_->kind()));
  ar->write("best_eval", EvaluationTensor(best_));
  ar->write("best_val_loss", torch::tensor(best_.val_loss, torch::kFloat64));
  ar->write("global_step", torch::tensor(global_step_));
  ar->write("best_rows_step", torch::tensor(best_rows_step_));
  ar->write("embedding_steps", torch::tensor(static_cast<int64_t>(m.embedding_steps)));
  ar->write("optimizer_steps", torch::tensor(m.optimizer_steps));
  ar->write("lr", torch::tensor(step_.NextLr(), torch::kFloat64));
}

Status EpochLoop::SaveCheckpoint(int64_t epoch) {
  ModelState& m = task_->model();
  DG_ASSIGN_OR_RETURN(torch::Tensor rng_all, AllRngStates(m.sync.get(), hooks_.dp));  // every rank takes part
  if (!hooks_.writer()) return Status::OK();
  return SaveCheckpointFile(hooks_.OutPath("checkpoint.pt"), m, epoch, best_epoch_, rng_all,
                            [&](torch::serialize::OutputArchive* ar) { WriteLoopState(ar); });
}

Status EpochLoop::SaveStepCheckpoint(int64_t epoch, int64_t batch, const double sums[5], EpochStats* st) {
  const auto t0 = std::chrono::steady_clock::now();
  ModelState& m = task_->model();
  // Every rank: its RNG state and its sums of the epoch so far.
  DG_ASSIGN_OR_RETURN(torch::Tensor rng_all, AllRngStates(m.sync.get(), hooks_.dp));
  torch::Tensor all_sums = torch::zeros({hooks_.dp.world_size, 5}, torch::kFloat64);
  for (int i = 0; i < 5; ++i) all_sums[hooks_.dp.rank][i] = sums[i];
  if (m.sync) DG_RETURN_IF_ERROR(m.sync->AllReduce({all_sums}, /*average=*/false));
  if (hooks_.writer()) {
    // The servers' part first: the manifest below makes both complete at once.
    if (hooks_.server_checkpoint)
      DG_RETURN_IF_ERROR(hooks_.server_checkpoint(false, global_step_, spec_.checkpoint_keep));
    const std::string tmp = StepDirTmp(hooks_.out_dir, global_step_);
    DG_RETURN_IF_ERROR(SaveCheckpointFile(tmp + "/trainer.pt", m, epoch, best_epoch_, rng_all,
                                          [&](torch::serialize::OutputArchive* ar) {
                                            WriteLoopState(ar);
                                            ar->write("batch", torch::tensor(batch));
                                            ar->write("sums", all_sums);
                                          }));
    if (hooks_.embedding) DG_RETURN_IF_ERROR(hooks_.embedding->SaveState(tmp));
    DG_RETURN_IF_ERROR(task_->SaveState(tmp));
    std::ostringstream manifest;
    manifest << "\"step\": " << global_step_ << ", \"epoch\": " << epoch << ", \"batch\": " << batch
             << ", \"trainers\": " << hooks_.dp.world_size
             << ", \"servers\": " << (hooks_.server_checkpoint ? "true" : "false");
    DG_RETURN_IF_ERROR(PublishStepDir(hooks_.out_dir, global_step_, spec_.checkpoint_keep, manifest.str()));
  }
  last_step_checkpoint_ = global_step_;
  st->checkpoints += 1;
  st->checkpoint_seconds += Since(t0);
  return Status::OK();
}

// A file holding rank 0's checkpoint file (rank0_path, "" = none) on every
// rank: only rank 0 writes checkpoints, so other ranks get its bytes by broadcast.
Result<std::string> EpochLoop::SharedCheckpointPath(const std::string& path) {
  GradientSync* sync = task_->model().sync.get();
  const int rank = hooks_.dp.rank;
  std::string bytes;
  if (rank == 0 && !path.empty()) {
    if (!sync) return path;
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return Status::IOError("read " + path + " failed");
  }
  if (!sync) return std::string();
  torch::Tensor size = torch::tensor({static_cast<int64_t>(bytes.size())}, torch::kInt64);
  DG_RETURN_IF_ERROR(sync->Broadcast({size}));
  const int64_t n = size.item<int64_t>();
  if (n == 0) return std::string();
  torch::Tensor data = torch::empty({n}, torch::kUInt8);
  if (rank == 0) std::memcpy(data.data_ptr(), bytes.data(), bytes.size());
  DG_RETURN_IF_ERROR(sync->Broadcast({data}));
  if (rank == 0) return path;
  // Other ranks load trainer 0's bytes from a private temporary file.
  const std::string copy = (std::filesystem::temp_directory_path() /
                            ("distgnn-checkpoint-" + std::to_string(getpid()) + ".pt")).string();
  std::ofstream out(copy, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data.data_ptr()), n);
  if (!out) return Status::IOError("write " + copy + " failed");
  return copy;
}

// Returns the epoch stored in the checkpoint (0 = none found); a step
// checkpoint also sets the resume position (resume_batch_ > 0).
Result<int64_t> EpochLoop::LoadCheckpoint(const std::string& path) {
  if (path.empty()) return int64_t{0};
  ModelState& m = task_->model();
  const int rank = hooks_.dp.rank, world = hooks_.dp.world_size;
  return LoadCheckpointFile(
      path, &m, hooks_.dp, &best_epoch_,
      [&](torch::serialize::InputArchive* ar) {
        torch::Tensor kind, best, v, t, b, g, e, o, sums, loss;
        const int64_t was = ar->try_read("task", kind) ? kind.item<int64_t>() : 0;  // 0: node classification
        if (was != task_->kind())
          return Status::InvalidArgument("checkpoint " + path +
                                         " is not from a " + task_->name() + " run (train.task / train.algorithm)");
        if (ar->try_read("best_eval", best)) {
          best_ = EvaluationOf(best);
        } else if (ar->try_read("best_val", v) && ar->try_read("best_test", t) && v.numel() == 1) {
          best_.val = v.item<double>();  // a checkpoint of the node loop before best_eval
          best_.test = t.item<double>();
          best_.values = {best_.val, best_.test};
        }
        if (ar->try_read("best_val_loss", loss)) best_.val_loss = loss.item<double>();
        if (ar->try_read("global_step", g)) global_step_ = g.item<int64_t>();
        torch::Tensor rows_step;
        best_rows_step_ = ar->try_read("best_rows_step", rows_step) ? rows_step.item<int64_t>() : 0;
        if (ar->try_read("embedding_steps", e)) m.embedding_steps = static_cast<uint64_t>(e.item<int64_t>());
        // A checkpoint without the schedule's position took one optimizer step per training step.
        m.optimizer_steps = ar->try_read("optimizer_steps", o) ? o.item<int64_t>() : global_step_;
        resume_batch_ = 0;
        if (ar->try_read("batch", b)) resume_batch_ = b.item<int64_t>();
        std::fill(resume_sums_, resume_sums_ + 5, 0.0);
        if (ar->try_read("sums", sums) && sums.dim() == 2 && sums.size(0) == world)
          for (int64_t i = 0; i < std::min<int64_t>(5, sums.size(1)); ++i) resume_sums_[i] = sums[rank][i].item<double>();
        return Status::OK();
      },
      " for model " + spec_.model);
}

Result<int64_t> EpochLoop::Resume() {
  std::string path, step_dir;
  if (hooks_.dp.rank == 0 && !hooks_.out_dir.empty()) {
    const StepCheckpointRef ref = LatestStepCheckpoint(hooks_.out_dir);
    if (ref.step > 0) {
      // The servers' tables go back to the same step before anyone reads them:
      // the other trainers wait in the broadcast below.
      if (hooks_.server_checkpoint) DG_RETURN_IF_ERROR(hooks_.server_checkpoint(true, ref.step, 0));
      step_dir = ref.dir;
      path = ref.dir + "/trainer.pt";
    } else if (std::filesystem::exists(hooks_.OutPath("checkpoint.pt"))) {
      path = hooks_.OutPath("checkpoint.pt");
    }
  }
  DG_ASSIGN_OR_RETURN(std::string shared, SharedCheckpointPath(path));
  auto done_or = LoadCheckpoint(shared);
  if (hooks_.dp.rank != 0 && !shared.empty()) std::filesystem::remove(shared);
  DG_ASSIGN_OR_RETURN(int64_t epoch, std::move(done_or));
  if (hooks_.embedding && !step_dir.empty()) DG_RETURN_IF_ERROR(hooks_.embedding->LoadState(step_dir));
  DG_RETURN_IF_ERROR(task_->LoadState(step_dir));
  if (epoch == 0) {
    spdlog::warn("--resume: no checkpoint in {} (trainer 0's run directory), starting at epoch 1", hooks_.out_dir);
    return int64_t{1};
  }
  if (resume_batch_ > 0) {  // a step checkpoint: inside `epoch`
    resume_epoch_ = epoch;
    spdlog::info("resuming at step {} (epoch {}, after batch {}) from {}", global_step_, epoch, resume_batch_,
                 step_dir.empty() ? path : step_dir);
    return epoch;
  }
  spdlog::info("resuming after epoch {} from trainer 0's {}", epoch, path.empty() ? hooks_.OutPath("checkpoint.pt") : path);
  return epoch + 1;
}

// Train-local's copy of the best epoch's rows: RUN/checkpoints/best-rows/
// (the table and its optimizer state, NodeEmbedding::SaveState, and step.txt),
// written as best-rows.tmp/, made durable and renamed.
std::string BestRowsDir(const std::string& run_dir) { return run_dir + "/checkpoints/best-rows"; }

Status EpochLoop::KeepBestRows() {
  if (!hooks_.embedding) return Status::OK();
  if (hooks_.server_best) {
    if (hooks_.dp.rank == 0) DG_RETURN_IF_ERROR(hooks_.server_best(false, global_step_));
    best_rows_step_ = global_step_;  // every rank: the same step
    return Status::OK();
  }
  if (hooks_.out_dir.empty()) return Status::OK();
  const std::string dir = BestRowsDir(hooks_.out_dir), tmp = dir + ".tmp";
  DG_RETURN_IF_ERROR(MakeEmptyDir(tmp));
  DG_RETURN_IF_ERROR(hooks_.embedding->SaveState(tmp));
  DG_RETURN_IF_ERROR(WriteStepTag(tmp, static_cast<uint64_t>(global_step_)));
  DG_RETURN_IF_ERROR(ReplaceDirDurably(tmp, dir));
  best_rows_step_ = global_step_;
  return Status::OK();
}

// Every rank learns whether rank 0 put the servers' copy back (a failure
// leaves the last step's rows and says so); train-local loads its own copy.
Status EpochLoop::RestoreBestRows() {
  ModelState& m = task_->model();
  if (!hooks_.embedding || best_rows_step_ == 0 || m.best_params.empty()) return Status::OK();
  Status restored;
  if (hooks_.server_best) {
    if (hooks_.dp.rank == 0) restored = hooks_.server_best(true, best_rows_step_);
    torch::Tensor failed = torch::tensor({restored.ok() ? 0.0 : 1.0}, torch::kFloat64);
    if (m.sync) DG_RETURN_IF_ERROR(m.sync->AllReduce({failed}, /*average=*/false));  // also a barrier
    if (hooks_.dp.rank != 0 && failed.item<double>() > 0) restored = Status::Internal("see trainer 0's log");
  } else {
    const std::string dir = BestRowsDir(hooks_.out_dir);
    const Result<uint64_t> kept = ReadStepTag(dir);
    if (!kept.ok() || *kept != static_cast<uint64_t>(best_rows_step_))
      restored = Status::NotFound(dir + " holds no copy of step " + std::to_string(best_rows_step_));
    else
      restored = hooks_.embedding->LoadState(dir);
  }
  if (!restored.ok()) {
    spdlog::warn("the outputs pair epoch {}'s parameters with the last step's learnt rows: {}", best_epoch_,
                 restored.message());
    return Status::OK();
  }
  if (hooks_.dp.rank == 0)
    spdlog::info("outputs from epoch {}: its parameters and its learnt rows (step {})", best_epoch_, best_rows_step_);
  return Status::OK();
}

}  // namespace dg
