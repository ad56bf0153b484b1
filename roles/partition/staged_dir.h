// An output directory written whole or not at all: files go to a hidden
// sibling `.NAME.tmp-PID`, and Commit() moves it to NAME (an existing NAME is
// moved aside first, then removed). Without Commit() the staging directory is
// removed when the StagedDir goes away, so a failed write leaves nothing behind.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

class StagedDir {
 public:
  explicit StagedDir(const std::string& out_dir);
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  // Creates the (empty) staging directory and the given subdirectories of it.
  Status Create(const std::vector<std::string>& subdirs = {});
  // Where to write.
  const std::filesystem::path& path() const { return tmp_; }
  // Moves the staging directory to out_dir.
  Status Commit();

 private:
  std::filesystem::path out_, tmp_;
  bool committed_ = false;
};

}  // namespace dg
