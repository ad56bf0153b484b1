// A read-only directed edge list walked in chunks: in-memory vectors, or the
// src/dst .npy columns of a dataset mmap'd (int64 or int32 ids).
//
// ForEachChunk calls fn(src, dst, n, first) for consecutive chunks of at most
// `chunk` edges in input order (first = index of src[0]); int32 columns are
// widened into a chunk buffer, int64 ones are handed over without a copy. For
// mmap'd columns the pages behind the cursor are dropped from this process's
// resident set (madvise), so walking a file larger than memory keeps RSS at
// about one chunk. Nothing is ever copied whole.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

class EdgeSource {
 public:
  using ChunkFn = std::function<Status(const int64_t* src, const int64_t* dst, int64_t n, int64_t first)>;

  EdgeSource() = default;
  // Borrows the vectors (they must outlive the source).
  static EdgeSource FromVectors(const std::vector<int64_t>& src, const std::vector<int64_t>& dst);
  // Maps src_path and dst_path (1-D int64/int32, same length); errors name the file.
  static Result<EdgeSource> Map(const std::string& src_path, const std::string& dst_path);

  int64_t size() const { return size_; }
  Status ForEachChunk(int64_t chunk, const ChunkFn& fn) const;

 private:
  const int64_t* vsrc_ = nullptr;
  const int64_t* vdst_ = nullptr;
  Array asrc_, adst_;  // mapped columns (when vsrc_ is null)
  std::string src_path_, dst_path_;
  int64_t size_ = 0;
};

// Drops the pages of [begin, end) of a read-only file mapping from the
// resident set (they are re-read from the file if touched again). Only for
// memory from NpyMap: never call it on heap memory.
void DropMappedPages(const void* begin, const void* end);

}  // namespace dg
