// Trainer's checkpoint.pt: written by rank 0, shared with the other ranks by
// broadcast, loaded on --resume (the format is training_state.h's).
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "roles/trainer/trainer_impl.h"

namespace dg {

Status Trainer::Impl::SaveCheckpoint(int64_t epoch, const torch::Tensor& rng_states) {
  return SaveCheckpointFile(OutPath("checkpoint.pt"), *this, epoch, best_epoch, rng_states,
                            [this](torch::serialize::OutputArchive* ar) {
                              ar->write("best_val", torch::tensor(best_val, torch::kFloat64));
                              ar->write("best_test", torch::tensor(best_test, torch::kFloat64));
                            });
}

Result<std::string> Trainer::Impl::SharedCheckpointPath() {
  const std::string path = OutPath("checkpoint.pt");
  std::string bytes;
  if (opt.dp.rank == 0) {
    if (!std::filesystem::exists(path)) {
      if (!sync) return std::string();
    } else {
      if (!sync) return path;
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (in.bad()) return Status::IOError("read " + path + " failed");
    }
  }
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

// Returns the epoch stored in the checkpoint (0 = none found).
Result<int64_t> Trainer::Impl::LoadCheckpoint(const std::string& path) {
  if (path.empty()) return int64_t{0};
  return LoadCheckpointFile(
      path, this, opt.dp, &best_epoch,
      [this](torch::serialize::InputArchive* ar) {
        torch::Tensor v, t;
        ar->read("best_val", v);
        ar->read("best_test", t);
        best_val = v.item<double>();
        best_test = t.item<double>();
        return Status::OK();
      },
      " for model " + opt.model_path);
}

}  // namespace dg
