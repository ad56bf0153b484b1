// NumPy .npy files: the interchange format for every array distgnn reads or writes.
//
// Follows the NumPy format spec (header versions 1.0, 2.0, 3.0). Supported:
// little-endian (or byte-order-free) float32/float64/int64/int32/int8/uint8/bool,
// C order, any rank. Anything else (Fortran order, big-endian, object dtype,
// truncated data, malformed header) is an error naming the file and the problem.
//
// NpyMap maps the file read-only: no copy, pages shared between processes.
// NpyRead reads into memory and transparently gunzips "X.npy.gz" (or a path
// whose bytes start with the gzip magic). NpyWrite writes a v1.0 header (v2.0 if
// the header would not fit) and is atomic: it writes "path.tmp" then renames.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

Result<Array> NpyMap(const std::string& path);
Result<Array> NpyRead(const std::string& path);
// Map if possible (plain file), else read (gzip).
Result<Array> NpyLoad(const std::string& path);

Status NpyWrite(const std::string& path, const Array& array);

// Streaming writer for arrays too large to hold at once. The shape is fixed up
// front; Finish() fails unless exactly nbytes were appended. Writes to
// "path.tmp" and renames on Finish(); an unfinished writer removes its temp file.
class NpyWriter {
 public:
  NpyWriter() = default;
  ~NpyWriter();
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;

  Status Open(const std::string& path, DType dtype, const std::vector<int64_t>& shape);
  Status Append(const void* data, size_t nbytes);
  Status Finish();

 private:
  std::string path_, tmp_path_;
  std::FILE* file_ = nullptr;
  size_t expected_ = 0, written_ = 0;
};

}  // namespace dg
