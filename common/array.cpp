#include "common/array.h"

#include <cstdlib>

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
