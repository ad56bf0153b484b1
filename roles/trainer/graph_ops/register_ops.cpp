// Registers torch.ops.distgnn.* (graph_ops.h) with the TorchScript runtime.
// Linked into the distgnn binary and built as libdistgnn_ops.so for Python.
#include <torch/library.h>

#include "roles/trainer/graph_ops/graph_ops.h"

namespace dg {
bool GraphOpsRegistered() { return true; }
}  // namespace dg

TORCH_LIBRARY(distgnn, m) {
  m.def("csr_sum(Tensor indptr, Tensor indices, Tensor x, int num_dst) -> Tensor", &dg::CsrSum);
  m.def("csr_mean(Tensor indptr, Tensor indices, Tensor x, int num_dst) -> Tensor", &dg::CsrMean);
  m.def("gcn_aggregate(Tensor indptr, Tensor indices, Tensor x, int num_dst) -> Tensor",
        &dg::GcnAggregate);
  m.def("edge_softmax(Tensor indptr, Tensor scores) -> Tensor", &dg::EdgeSoftmax);
  m.def("csr_weighted_sum(Tensor indptr, Tensor indices, Tensor w, Tensor x, int num_dst) -> Tensor",
        &dg::CsrWeightedSum);
  m.def("linear(Tensor x, Tensor weight) -> Tensor", &dg::Linear);
  m.def("dropout(Tensor x, float p, bool train) -> Tensor", &dg::Dropout);
  m.def("add_self_loops(Tensor indptr, Tensor indices, int num_dst) -> (Tensor, Tensor)",
        &dg::AddSelfLoops);
}
