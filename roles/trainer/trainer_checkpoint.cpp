// Trainer's checkpoints: checkpoint.pt after every epoch and the step
// checkpoints checkpoints/step-N/ (step_checkpoint.h), written by rank 0,
// shared with the other ranks by broadcast, loaded on --resume (the file
// format is training_state.h's; the extra keys are listed in docs/formats.md).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "roles/trainer/step_checkpoint.h"
#include "roles/trainer/trainer_impl.h"
#include "roles/trainer/trainer_util.h"

namespace dg {

Status Trainer::Impl::SaveCheckpoint(int64_t epoch, const torch::Tensor& rng_states) {
  return SaveCheckpointFile(OutPath("checkpoint.pt"), *this, epoch, best_epoch, rng_states,
                            [this](torch::serialize::OutputArchive* ar) {
                              ar->write("best_val", torch::tensor(best_val, torch::kFloat64));
                              ar->write("best_test", torch::tensor(best_test, torch::kFloat64));
                              ar->write("global_step", torch::tensor(global_step));
                              ar->write("embedding_steps", torch::tensor(static_cast<int64_t>(embedding_steps)));
                            });
}

Status Trainer::Impl::SaveStepCheckpoint(int64_t epoch, int64_t batch, const double sums[4], EpochStats* st) {
  const auto t0 = std::chrono::steady_clock::now();
  // Every rank: its RNG state and its sums of the epoch so far.
  DG_ASSIGN_OR_RETURN(torch::Tensor rng_states, AllRngStates());
  torch::Tensor all_sums = torch::zeros({opt.dp.world_size, 4}, torch::kFloat64);
  for (int i = 0; i < 4; ++i) all_sums[opt.dp.rank][i] = sums[i];
  if (sync) DG_RETURN_IF_ERROR(sync->AllReduce({all_sums}, /*average=*/false));
  if (writer()) {
    // The servers' part first: the manifest below makes both complete at once.
    if (opt.server_checkpoint) DG_RETURN_IF_ERROR(opt.server_checkpoint(false, global_step, opt.checkpoint_keep));
    const std::string tmp = StepDirTmp(opt.out_dir, global_step);
    DG_RETURN_IF_ERROR(SaveCheckpointFile(tmp + "/trainer.pt", *this, epoch, best_epoch, rng_states,
                                          [&](torch::serialize::OutputArchive* ar) {
                                            ar->write("best_val", torch::tensor(best_val, torch::kFloat64));
                                            ar->write("best_test", torch::tensor(best_test, torch::kFloat64));
                                            ar->write("batch", torch::tensor(batch));
                                            ar->write("global_step", torch::tensor(global_step));
                                            ar->write("embedding_steps",
                                                      torch::tensor(static_cast<int64_t>(embedding_steps)));
                                            ar->write("sums", all_sums);
                                          }));
    if (opt.embedding) DG_RETURN_IF_ERROR(opt.embedding->SaveState(tmp));
    std::ostringstream m;
    m << "\"step\": " << global_step << ", \"epoch\": " << epoch << ", \"batch\": " << batch
      << ", \"trainers\": " << opt.dp.world_size << ", \"servers\": " << (opt.server_checkpoint ? "true" : "false");
    DG_RETURN_IF_ERROR(PublishStepDir(opt.out_dir, global_step, opt.checkpoint_keep, m.str()));
  }
  st->checkpoints += 1;
  st->checkpoint_seconds += Since(t0);
  return Status::OK();
}

Result<std::string> Trainer::Impl::SharedCheckpointPath(const std::string& path) {
  std::string bytes;
  if (opt.dp.rank == 0 && !path.empty()) {
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
  if (opt.dp.rank == 0) std::memcpy(data.data_ptr(), bytes.data(), bytes.size());
  DG_RETURN_IF_ERROR(sync->Broadcast({data}));
  if (opt.dp.rank == 0) return path;
  // Other ranks load trainer 0's bytes from a private temporary file.
  const std::string copy = (std::filesystem::temp_directory_path() /
                            ("distgnn-checkpoint-" + std::to_string(getpid()) + ".pt")).string();
  std::ofstream out(copy, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data.data_ptr()), n);
  if (!out) return Status::IOError("write " + copy + " failed");
  return copy;
}

// Returns the epoch stored in the checkpoint (0 = none found); a step
// checkpoint also sets the resume position (resume_batch > 0).
Result<int64_t> Trainer::Impl::LoadCheckpoint(const std::string& path) {
  if (path.empty()) return int64_t{0};
  return LoadCheckpointFile(
      path, this, opt.dp, &best_epoch,
      [this](torch::serialize::InputArchive* ar) {
        torch::Tensor v, t, b, g, e, sums;
        ar->read("best_val", v);
        ar->read("best_test", t);
        best_val = v.item<double>();
        best_test = t.item<double>();
        if (ar->try_read("global_step", g)) global_step = g.item<int64_t>();
        if (ar->try_read("embedding_steps", e)) embedding_steps = static_cast<uint64_t>(e.item<int64_t>());
        resume_batch = 0;
        if (ar->try_read("batch", b)) resume_batch = b.item<int64_t>();
        for (double& x : resume_sums) x = 0;
        if (ar->try_read("sums", sums) && sums.dim() == 2 && sums.size(0) == opt.dp.world_size)
          for (int i = 0; i < 4; ++i) resume_sums[i] = sums[opt.dp.rank][i].item<double>();
        return Status::OK();
      },
      " for model " + opt.model_path);
}

Result<int64_t> Trainer::Impl::Resume() {
  std::string path, step_dir;
  if (opt.dp.rank == 0 && !opt.out_dir.empty()) {
    const StepCheckpointRef ref = LatestStepCheckpoint(opt.out_dir);
    if (ref.step > 0) {
      // The servers' tables go back to the same step before anyone reads them:
      // the other trainers wait in the broadcast below.
      if (opt.server_checkpoint) DG_RETURN_IF_ERROR(opt.server_checkpoint(true, ref.step, 0));
      step_dir = ref.dir;
      path = ref.dir + "/trainer.pt";
    } else if (std::filesystem::exists(OutPath("checkpoint.pt"))) {
      path = OutPath("checkpoint.pt");
    }
  }
  DG_ASSIGN_OR_RETURN(std::string shared, SharedCheckpointPath(path));
  auto done_or = LoadCheckpoint(shared);
  if (opt.dp.rank != 0 && !shared.empty()) std::filesystem::remove(shared);
  DG_ASSIGN_OR_RETURN(int64_t epoch, std::move(done_or));
  if (opt.embedding && !step_dir.empty()) DG_RETURN_IF_ERROR(opt.embedding->LoadState(step_dir));
  if (epoch == 0) {
    spdlog::warn("--resume: no checkpoint in {} (trainer 0's run directory), starting at epoch 1", opt.out_dir);
    return int64_t{1};
  }
  if (resume_batch > 0) {  // a step checkpoint: inside `epoch`
    resume_epoch = epoch;
    spdlog::info("resuming at step {} (epoch {}, after batch {}) from {}", global_step, epoch, resume_batch,
                   step_dir.empty() ? path : step_dir);
    return epoch;
  }
  spdlog::info("resuming after epoch {} from trainer 0's {}", epoch,
               path.empty() ? OutPath("checkpoint.pt") : path);
  return epoch + 1;
}

}  // namespace dg
