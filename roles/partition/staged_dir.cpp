#include "roles/partition/staged_dir.h"

#include <unistd.h>

namespace dg {
namespace fs = std::filesystem;

StagedDir::StagedDir(const std::string& out_dir) : out_(out_dir) {
  if (out_.filename().empty()) out_ = out_.parent_path();
  tmp_ = out_.parent_path() / ("." + out_.filename().string() + ".tmp-" + std::to_string(::getpid()));
}

StagedDir::~StagedDir() {
  std::error_code ec;
  if (!committed_) fs::remove_all(tmp_, ec);
}

Status StagedDir::Create(const std::vector<std::string>& subdirs) {
  std::error_code ec;
  fs::remove_all(tmp_, ec);
  fs::create_directories(tmp_, ec);
  if (ec) return Status::IOError("create directory " + tmp_.string() + ": " + ec.message());
  for (const std::string& sub : subdirs) {
    fs::create_directories(tmp_ / sub, ec);
    if (ec) return Status::IOError("create directory " + (tmp_ / sub).string() + ": " + ec.message());
  }
  return Status::OK();
}

Status StagedDir::Commit() {
  std::error_code ec;
  fs::path old;
  if (fs::exists(out_, ec)) {
    old = out_.parent_path() / ("." + out_.filename().string() + ".old-" + std::to_string(::getpid()));
    fs::rename(out_, old, ec);
    if (ec) return Status::IOError("rename " + out_.string() + ": " + ec.message());
  }
  fs::rename(tmp_, out_, ec);
  if (ec) return Status::IOError("rename " + tmp_.string() + " -> " + out_.string() + ": " + ec.message());
  committed_ = true;
  if (!old.empty()) fs::remove_all(old, ec);
  return Status::OK();
}

}  // namespace dg
