// MetricsLog: RUN_DIR/metrics.jsonl, one JSON object a line -- one per epoch
// and a last {"final": true, ...} -- written by rank 0 only, through
// WriteLines, the one function in the tree that writes its lines.
// Start(first_epoch) keeps the lines of the epochs before first_epoch (what a
// resumed run's checkpoint covers) and drops the rest; Append adds a line.
// Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

class MetricsLog {
 public:
  explicit MetricsLog(std::string path) : path_(std::move(path)) {}
  Status Start(int64_t first_epoch);
  Status Append(const std::string& line) { return WriteLines({line}, /*append=*/true); }
  const std::string& path() const { return path_; }

 private:
  Status WriteLines(const std::vector<std::string>& lines, bool append);
  std::string path_;
};

}  // namespace dg
