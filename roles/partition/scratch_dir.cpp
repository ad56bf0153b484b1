#include "roles/partition/scratch_dir.h"

#include <unistd.h>

#include <filesystem>

#include "roles/partition/partition_output.h"  // MakeDir

namespace dg {

namespace fs = std::filesystem;

ScratchDir::~ScratchDir() {
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
}

Status ScratchDir::Create(const std::string& root) {
  static int counter = 0;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return Status::InvalidArgument("--tmp-dir " + root + " is not a directory");
  std::string p = root + "/.distgnn-spill-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  fs::remove_all(p, ec);
  DG_RETURN_IF_ERROR(MakeDir(p));
  path_ = p;
  return Status::OK();
}

std::string DefaultTmpRoot(const PartitionOptions& o) {
  fs::path out = fs::path(o.spec.out);
  if (out.filename().empty()) out = out.parent_path();
  return out.parent_path().empty() ? "." : out.parent_path().string();
}

}  // namespace dg
