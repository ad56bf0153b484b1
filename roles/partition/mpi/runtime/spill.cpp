#include "roles/partition/mpi/runtime/spill.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace dg::mpi {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Status IoError(const std::string& what, const std::string& path) {
  return Status::IOError(what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

Status WriteSpillFile(const std::string& path, const void* data, size_t bytes) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) return IoError("cannot create", path);
  if (bytes > 0 && std::fwrite(data, 1, bytes, f.get()) != bytes) return IoError("cannot write", path);
  if (std::fclose(f.release()) != 0) return IoError("cannot write", path);
  return Status::OK();
}

Status ReadSpillFile(const std::string& path, void* data, size_t bytes) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return IoError("cannot open", path);
  if (bytes > 0 && std::fread(data, 1, bytes, f.get()) != bytes) return IoError("cannot read", path);
  f.reset();
  std::remove(path.c_str());
  return Status::OK();
}

}  // namespace dg::mpi
