#include "roles/partition/mpi/runtime/memory.h"

#include <algorithm>
#include <fstream>
#include <string>

namespace dg::mpi {

namespace {

// VmHWM from /proc/self/status, in bytes (0 when unreadable).
int64_t HighWaterMark() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // "VmHWM:   123 kB"
  return 0;
}

}  // namespace

int64_t StagePeaks::EndStage() {
  const int64_t hwm = HighWaterMark();
  peak_ = std::max(peak_, hwm);
  std::ofstream("/proc/self/clear_refs") << "5";  // 5: reset the peak RSS to the current RSS
  return hwm;
}

}  // namespace dg::mpi
