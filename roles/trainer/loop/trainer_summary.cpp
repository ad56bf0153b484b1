#include "roles/trainer/loop/trainer_summary.h"

#include <filesystem>
#include <fstream>

namespace dg {

Status WriteTrainerSummary(const std::string& path, int rank, const std::vector<EpochStats>& history,
                           const std::vector<float>& params) {
  int64_t steps = 0;
  double seconds = 0, wait = 0;
  std::string per_epoch, epoch_seconds;
  StepSplit split;
  for (const auto& e : history) {
    split.Add(e.split);
    steps += e.steps;
    seconds += e.seconds;
    wait += e.wait_seconds;
    per_epoch += (per_epoch.empty() ? "" : ", ") + std::to_string(e.steps);
    epoch_seconds += (epoch_seconds.empty() ? "" : ", ") + std::to_string(e.seconds);
  }
  uint64_t h = 1469598103934665603ull;
  double sum = 0;
  const auto* bytes = reinterpret_cast<const uint8_t*>(params.data());
  for (size_t i = 0; i < params.size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  for (float p : params) sum += p;
  std::ofstream f(path + ".tmp");
  f << "{\"rank\": " << rank << ", \"steps\": " << steps << ", \"steps_per_epoch\": [" << per_epoch
    << "], \"epoch_seconds\": [" << epoch_seconds << "], \"wait_fraction\": " << (seconds > 0 ? wait / seconds : 0)
    << ", \"step_ms\": " << split.PerStepJson(steps) << ", \"num_params\": " << params.size()
    << ", \"param_sum\": " << sum << ", \"param_fingerprint\": \"" << std::hex << h << std::dec << "\"}\n";
  f.close();
  if (!f) return Status::IOError("write " + path + " failed");
  std::error_code ec;
  std::filesystem::rename(path + ".tmp", path, ec);
  if (ec) return Status::IOError("rename " + path + ".tmp: " + ec.message());
  return Status::OK();
}

}  // namespace dg
