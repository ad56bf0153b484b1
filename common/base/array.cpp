#include "common/base/array.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace dg {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kFloat32: return 4;
    case DType::kFloat64: return 8;
    case DType::kInt64: return 8;
    case DType::kInt32: return 4;
    case DType::kInt8: return 1;
    case DType::kUInt8: return 1;
    case DType::kBool: return 1;
  }
  DG_CHECK_MSG(false, "unknown dtype");
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kInt64: return "int64";
    case DType::kInt32: return "int32";
    case DType::kInt8: return "int8";
    case DType::kUInt8: return "uint8";
    case DType::kBool: return "bool";
  }
  return "unknown";
}

Result<DType> DTypeFromName(const std::string& name) {
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32, DType::kInt8,
                  DType::kUInt8, DType::kBool}) {
    if (name == DTypeName(t)) return t;
  }
  return Status::InvalidArgument("unknown dtype '" + name +
                                 "' (expected float32, float64, int64, int32, int8, uint8, bool)");
}

Array Array::Zeros(DType dtype, std::vector<int64_t> shape) {
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  size_t n = a.nbytes();
  // calloc: large zero arrays are lazily backed by zero pages.
  void* p = std::calloc(n == 0 ? 1 : n, 1);
  DG_CHECK_MSG(p != nullptr, "out of memory allocating " + std::to_string(n) + " bytes");
  a.data = p;
  a.holder = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  return a;
}

namespace {

Result<Array> TryAllocate(DType dtype, std::vector<int64_t> shape, const std::string& what, bool zero) {
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  for (int64_t d : a.shape)
    if (d < 0) return Status::InvalidArgument(what + ": negative dimension in shape " + a.ShapeString());
  const int64_t n = CheckedByteSize(dtype, a.shape);
  if (n < 0) {
    return Status::ResourceExhausted(what + ": " + DTypeName(dtype) + " " + a.ShapeString() +
                                     " is larger than any allocation (its byte count overflows)");
  }
  const size_t bytes = n == 0 ? 1 : static_cast<size_t>(n);
  void* p = zero ? std::calloc(bytes, 1) : std::malloc(bytes);
  if (p == nullptr) {
    return Status::ResourceExhausted(what + ": out of memory allocating " + std::to_string(n) + " bytes for " +
                                     DTypeName(dtype) + " " + a.ShapeString());
  }
  a.data = p;
  a.holder = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  return a;
}

}  // namespace

Result<Array> Array::TryZeros(DType dtype, std::vector<int64_t> shape, const std::string& what) {
  return TryAllocate(dtype, std::move(shape), what, /*zero=*/true);
}

Result<Array> Array::TryUninitialized(DType dtype, std::vector<int64_t> shape, const std::string& what) {
  return TryAllocate(dtype, std::move(shape), what, /*zero=*/false);
}

void GatherRowBytes(const void* src, size_t row_bytes, const int64_t* ids, size_t n, int64_t base,
                    void* out, const int64_t* out_pos) {
  const uint8_t* s = static_cast<const uint8_t*>(src);
  uint8_t* o = static_cast<uint8_t*>(out);
  constexpr size_t kAhead = 6;
  const size_t lines = std::min<size_t>((row_bytes + 63) / 64, 16);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) {
      const uint8_t* next = s + static_cast<size_t>(ids[i + kAhead] - base) * row_bytes;
      for (size_t l = 0; l < lines; ++l) __builtin_prefetch(next + l * 64);
    }
    const size_t row = out_pos ? static_cast<size_t>(out_pos[i]) : i;
    std::memcpy(o + row * row_bytes, s + static_cast<size_t>(ids[i] - base) * row_bytes, row_bytes);
  }
}

Status CheckShape(const std::vector<int64_t>& shape, const std::string& what) {
  Array a;
  a.shape = shape;
  unsigned __int128 nonzero = 1;
  for (int64_t d : shape) {
    if (d < 0) return Status::InvalidArgument(what + ": negative dimension in shape " + a.ShapeString());
    if (d > kMaxDim) {
      return Status::InvalidArgument(what + ": dimension " + std::to_string(d) + " of shape " + a.ShapeString() +
                                     " exceeds the limit of " + std::to_string(kMaxDim));
    }
    if (d > 0) nonzero *= static_cast<uint64_t>(d);
    if (nonzero > static_cast<unsigned __int128>(kMaxElems)) {
      return Status::InvalidArgument(what + ": shape " + a.ShapeString() + " has more than " +
                                     std::to_string(kMaxElems) + " elements");
    }
  }
  return Status::OK();
}

int64_t CheckedByteSize(DType dtype, const std::vector<int64_t>& shape) {
  unsigned __int128 n = DTypeSize(dtype);
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d == 0) zero = true;
  }
  if (zero) return 0;
  for (int64_t d : shape) {
    n *= static_cast<uint64_t>(d);
    if (n > static_cast<unsigned __int128>(INT64_MAX)) return -1;
  }
  return static_cast<int64_t>(n);
}

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Array::row_elems() const {
  int64_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i) n *= shape[i];
  return n;
}

std::string Array::ShapeString() const {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace dg
