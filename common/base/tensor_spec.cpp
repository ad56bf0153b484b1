#include "common/base/tensor_spec.h"

namespace dg {

const char* TensorKindName(TensorKind k) {
  switch (k) {
    case TensorKind::kNode: return "node";
    case TensorKind::kEdge: return "edge";
    case TensorKind::kMutableNode: return "mutable";
  }
  return "?";
}

}  // namespace dg
