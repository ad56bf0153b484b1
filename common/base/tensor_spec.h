// The tensors a graph server holds, as the partition store
// (common/storage/partition_store.h) and the wire (common/net/messages.h)
// both name them: which kind of tensor, how a write combines, how a mutable
// tensor is created, and a tensor's shape and dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/array.h"

namespace dg {

enum class TensorKind : uint8_t { kNode = 0, kEdge = 1, kMutableNode = 2 };
enum class PushMode : uint8_t { kOverwrite = 0, kAdd = 1 };
enum class Initializer : uint8_t { kZeros = 0, kUniform = 1, kNormal = 2 };

const char* TensorKindName(TensorKind k);

struct TensorMeta {
  std::string name;
  TensorKind kind;
  DType dtype;
  std::vector<int64_t> shape;  // global shape
};

struct InitTensorSpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // global; shape[0] must equal num_nodes
  Initializer init = Initializer::kZeros;
  uint64_t seed = 0;
  double a = 0, b = 0;  // uniform [a, b) or normal(mean a, std b)
  bool persistent = false;  // saved to <partition dir>/tensors/<name>.npy (see SaveTensor)
  // Left out of step checkpoints: its maker recomputes every row before it
  // reads one (layer-wise tables, roles/trainer/inference/layer_tables.h).
  bool scratch = false;
};

}  // namespace dg
