// Array: a dense, C-ordered, typed n-d buffer without torch.
//
// This is the one in-memory tensor type of the torch-free code (partition
// store, codec, sampler). Its bytes are either owned (heap) or borrowed from an
// mmap; `holder` keeps whichever alive, so copies of an Array are cheap and share
// memory. Rows are the first dimension: row_bytes() = product(shape[1:]) * itemsize.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

enum class DType : uint8_t {
  kFloat32 = 0,
  kFloat64 = 1,
  kInt64 = 2,
  kInt32 = 3,
  kInt8 = 4,
  kUInt8 = 5,
  kBool = 6,
};

size_t DTypeSize(DType t);
// Our names: "float32", "float64", "int64", "int32", "int8", "uint8", "bool".
const char* DTypeName(DType t);
Result<DType> DTypeFromName(const std::string& name);

struct Array {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;       // empty shape = scalar (one element)
  void* data = nullptr;             // first byte; read-only when mmap'd read-only
  std::shared_ptr<void> holder;     // keeps the bytes alive (heap buffer or mapping)

  // A zero-filled heap array (aborts if memory runs out: not for sizes from the wire).
  static Array Zeros(DType dtype, std::vector<int64_t> shape);
  // Same, but a negative dim, an overflowing size or a failed allocation is
  // ResourceExhausted (InvalidArgument for a negative dim) naming `what`.
  static Result<Array> TryZeros(DType dtype, std::vector<int64_t> shape, const std::string& what);
  // TryZeros without the zero fill, for a caller that writes every byte.
  static Result<Array> TryUninitialized(DType dtype, std::vector<int64_t> shape, const std::string& what);

  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * DTypeSize(dtype); }
  int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
  int64_t row_elems() const;  // product of shape[1:]
  size_t row_bytes() const { return static_cast<size_t>(row_elems()) * DTypeSize(dtype); }
  std::string ShapeString() const;  // "[2708, 1433]"

  template <typename T>
  T* as() { return static_cast<T*>(data); }
  template <typename T>
  const T* as() const { return static_cast<const T*>(data); }
};

// Fixed-size rows somewhere in memory, addressed by id: row id starts at
// base + (id - first_id) * row_bytes, and `holder` keeps the bytes alive.
struct RowTable {
  const uint8_t* base = nullptr;
  size_t row_bytes = 0;
  int64_t first_id = 0;
  std::shared_ptr<void> holder;
};

// out row (out_pos ? out_pos[i] : i) = src row (ids[i] - base), for i < n;
// rows are row_bytes long and the ids must be in range. Rows are read in the
// order given, with the cache lines of a row a few ids ahead prefetched (the
// gather of a mini-batch's features from a partition or a server).
void GatherRowBytes(const void* src, size_t row_bytes, const int64_t* ids, size_t n, int64_t base,
                    void* out, const int64_t* out_pos);

// Bounds every shape from the wire obeys (so numel() and byte counts never
// overflow): each dim in [0, kMaxDim], the product of the non-zero dims at
// most kMaxElems. CheckShape says which rule `shape` breaks (InvalidArgument).
constexpr int64_t kMaxDim = int64_t(1) << 48;
constexpr int64_t kMaxElems = int64_t(1) << 56;
Status CheckShape(const std::vector<int64_t>& shape, const std::string& what);

// product(shape) * itemsize, or -1 if a dim is negative or the product
// exceeds INT64_MAX (overflow-checked; for sizes that come from the wire).
int64_t CheckedByteSize(DType dtype, const std::vector<int64_t>& shape);

}  // namespace dg
