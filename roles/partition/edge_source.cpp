#include "roles/partition/edge_source.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "common/io/npy.h"

namespace dg {

void DropMappedPages(const void* begin, const void* end) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t b = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  uintptr_t e = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

EdgeSource EdgeSource::FromVectors(const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
  EdgeSource s;
  s.vsrc_ = src.data();
  s.vdst_ = dst.data();
  s.size_ = static_cast<int64_t>(std::min(src.size(), dst.size()));
  return s;
}

Result<EdgeSource> EdgeSource::Map(const std::string& src_path, const std::string& dst_path) {
  EdgeSource s;
  DG_ASSIGN_OR_RETURN(s.asrc_, NpyMap(src_path));
  DG_ASSIGN_OR_RETURN(s.adst_, NpyMap(dst_path));
  for (auto [a, path] : {std::pair<const Array*, const std::string*>{&s.asrc_, &src_path},
                         {&s.adst_, &dst_path}}) {
    if (a->shape.size() != 1 || (a->dtype != DType::kInt64 && a->dtype != DType::kInt32))
      return Status::InvalidArgument(*path + ": expected a 1-D int64 or int32 array of node ids, got " +
                                     std::string(DTypeName(a->dtype)) + " " + a->ShapeString());
  }
  if (s.asrc_.shape[0] != s.adst_.shape[0])
    return Status::InvalidArgument(dst_path + ": has " + std::to_string(s.adst_.shape[0]) + " edges but " +
                                   src_path + " has " + std::to_string(s.asrc_.shape[0]));
  s.size_ = s.asrc_.shape[0];
  s.src_path_ = src_path;
  s.dst_path_ = dst_path;
  return s;
}

Status EdgeSource::ForEachChunk(int64_t chunk, const ChunkFn& fn) const {
  chunk = std::max<int64_t>(1, chunk);
  if (vsrc_ || size_ == 0) {
    for (int64_t b = 0; b < size_; b += chunk)
      DG_RETURN_IF_ERROR(fn(vsrc_ + b, vdst_ + b, std::min(chunk, size_ - b), b));
    return Status::OK();
  }
  std::vector<int64_t> ws, wd;  // widened int32 chunks
  for (int64_t b = 0; b < size_; b += chunk) {
    const int64_t n = std::min(chunk, size_ - b);
    const int64_t* ps;
    const int64_t* pd;
    for (int side = 0; side < 2; ++side) {
      const Array& a = side == 0 ? asrc_ : adst_;
      std::vector<int64_t>& w = side == 0 ? ws : wd;
      const int64_t*& p = side == 0 ? ps : pd;
      if (a.dtype == DType::kInt64) {
        p = a.as<int64_t>() + b;
      } else {
        w.resize(static_cast<size_t>(n));
        std::copy(a.as<int32_t>() + b, a.as<int32_t>() + b + n, w.begin());
        p = w.data();
      }
    }
    DG_RETURN_IF_ERROR(fn(ps, pd, n, b));
    for (const Array* a : {&asrc_, &adst_}) {
      const char* base = static_cast<const char*>(a->data);
      const size_t isz = DTypeSize(a->dtype);
      DropMappedPages(base + b * isz, base + (b + n) * isz);
    }
  }
  return Status::OK();
}

}  // namespace dg
