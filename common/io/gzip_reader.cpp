#include "common/io/gzip_reader.h"

#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <algorithm>
#include <cstdio>

namespace dg {

bool IsGzipFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char m[2] = {0, 0};
  size_t n = std::fread(m, 1, 2, f);
  std::fclose(f);
  return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

GzipFile::~GzipFile() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

Status GzipFile::Open(const std::string& path) {
  path_ = path;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::FromErrno("open " + path, errno);
  if (S_ISDIR(st.st_mode)) return Status::IOError("open " + path + ": is a directory");
  errno = 0;
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return Status::FromErrno("open " + path, errno ? errno : ENOMEM);
  // Big buffers for big files (fewer reads); small files get a small one, whose
  // allocation does not dominate (it did under ASan: a fuzzer's every input).
  gzbuffer(gz, st.st_size >= (1 << 20) ? 1 << 20 : 1 << 15);
  gz_ = gz;
  return Status::OK();
}

Status GzipFile::Read(void* buf, size_t n, size_t* got) {
  *got = 0;
  char* out = static_cast<char*>(buf);
  gzFile gz = static_cast<gzFile>(gz_);
  while (n > 0) {
    unsigned chunk = n > (1u << 30) ? (1u << 30) : static_cast<unsigned>(n);
    int r = gzread(gz, out, chunk);
    if (r < 0) {
      int errnum = 0;
      const char* msg = gzerror(gz, &errnum);
      return Status::IOError("read " + path_ + ": " + (msg ? msg : "zlib error"));
    }
    if (r == 0) break;
    out += r;
    *got += static_cast<size_t>(r);
    n -= static_cast<size_t>(r);
  }
  return Status::OK();
}

Result<std::vector<char>> ReadWholeFile(const std::string& path) {
  GzipFile f;
  DG_RETURN_IF_ERROR(f.Open(path));
  std::vector<char> data;
  struct stat st;
  size_t cap = (::stat(path.c_str(), &st) == 0) ? static_cast<size_t>(st.st_size) : 0;
  if (IsGzipFile(path)) cap *= 4;  // a guess; grows as needed
  data.resize(cap < 4096 ? 4096 : cap);
  size_t used = 0;
  for (;;) {
    size_t want = data.size() - used;
    size_t got = 0;
    DG_RETURN_IF_ERROR(f.Read(data.data() + used, want, &got));
    used += got;
    if (got < want) break;  // end of file
    // Buffer full: probe before growing, so an exact-size file is not doubled.
    char probe[4096];
    DG_RETURN_IF_ERROR(f.Read(probe, sizeof(probe), &got));
    if (got == 0) break;
    data.resize(data.size() * 2 + got);
    std::copy(probe, probe + got, data.data() + used);
    used += got;
  }
  data.resize(used);
  data.shrink_to_fit();
  return data;
}

}  // namespace dg
