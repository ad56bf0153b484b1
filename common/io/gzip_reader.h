// Reading files that may be gzip-compressed.
//
// zlib's gzopen/gzread read plain files unchanged and gunzip files that start
// with the gzip magic, so one code path serves "edges.tsv" and "edges.tsv.gz".
// GzipFile is a small RAII reader; ReadWholeFile slurps a file into memory.
// Errors name the file and carry the OS/zlib reason.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

// True if the file's first two bytes are the gzip magic (1f 8b). False for
// short or unreadable files.
bool IsGzipFile(const std::string& path);

class GzipFile {
 public:
  GzipFile() = default;
  ~GzipFile();
  GzipFile(const GzipFile&) = delete;
  GzipFile& operator=(const GzipFile&) = delete;

  Status Open(const std::string& path);
  // Reads up to n bytes; *got is how many were read (< n only at end of file).
  Status Read(void* buf, size_t n, size_t* got);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* gz_ = nullptr;  // gzFile
};

// The whole (decompressed) content of a file.
Result<std::vector<char>> ReadWholeFile(const std::string& path);

}  // namespace dg
