// A private scratch directory for spilled runs and intermediate columns, and
// where it goes by default.
#pragma once

#include <string>

#include "common/base/status.h"
#include "roles/partition/partition_request.h"

namespace dg {

// A private directory ROOT/.distgnn-spill-PID-N, removed with its contents on destruction.
class ScratchDir {
 public:
  ScratchDir() = default;
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  Status Create(const std::string& root);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// --tmp-dir's default: the output directory's parent (same file system).
std::string DefaultTmpRoot(const PartitionOptions& opts);

}  // namespace dg
