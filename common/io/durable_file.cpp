#include "common/io/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace dg {

Status FsyncPath(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + path + ": " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return Status::IOError("fsync " + path + ": " + std::strerror(err));
  return Status::OK();
}

Status MakeEmptyDir(const std::string& tmp) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) return Status::IOError("create " + tmp + ": " + ec.message());
  return Status::OK();
}

Status ReplaceDirDurably(const std::string& tmp, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp, ec)) DG_RETURN_IF_ERROR(FsyncPath(e.path().string()));
  if (ec) return Status::IOError("list " + tmp + ": " + ec.message());
  DG_RETURN_IF_ERROR(FsyncPath(tmp));
  fs::remove_all(dir, ec);
  fs::rename(tmp, dir, ec);
  if (ec) return Status::IOError("rename " + tmp + " to " + dir + ": " + ec.message());
  return FsyncPath(fs::path(dir).parent_path().string());
}

Status WriteStepTag(const std::string& dir, uint64_t step) {
  const std::string path = dir + "/step.txt";
  std::ofstream out(path, std::ios::trunc);
  out << step << "\n";
  out.flush();
  return out ? Status::OK() : Status::IOError("write " + path + " failed");
}

Result<uint64_t> ReadStepTag(const std::string& dir) {
  std::ifstream in(dir + "/step.txt");
  uint64_t step = 0;
  if (!(in >> step)) return Status::NotFound(dir + " holds no step.txt");
  return step;
}

}  // namespace dg
