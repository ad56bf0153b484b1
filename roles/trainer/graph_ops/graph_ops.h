// distgnn's graph operators for TorchScript models, registered as
// torch.ops.distgnn.* by the distgnn binary and by libdistgnn_ops.so (Python:
// torch.ops.load_library("build/libdistgnn_ops.so") before torch.jit.script
// or torch.jit.load of a model that calls them).
//
// Every operator takes one block of the model contract, (indptr, indices,
// num_dst): a CSR over destination rows, int64 or int32 (both the same),
// whose indices point into the rows of x. Node rows are float32 or float64.
// Gradients flow to x (and to the attention weights w); indptr and indices
// are structure. Forward and backward are parallel over rows on torch's
// intra-op threads without atomics (with more than one thread the backward
// runs over the transposed block; with one it scatters along the edges,
// which saves building the transpose). Double backward is not supported. A malformed block (wrong sizes,
// decreasing indptr, an index out of range) raises an error naming the op.
//
//   csr_sum(indptr, indices, x, num_dst)        out[d] = sum of x over d's in-edges
//   csr_mean(indptr, indices, x, num_dst)       the mean (0 for a row without edges)
//   gcn_aggregate(indptr, indices, x, num_dst)  out = D_in^-1/2 (A + I) D_out^-1/2 x, the
//       GCN normalisation with one self loop per destination; degrees are the
//       block's (D_out[s] counts s's edges in the block plus its self loop)
//   edge_softmax(indptr, scores)                scores [E, H] -> softmax over each row's edges
//   csr_weighted_sum(indptr, indices, w, x, num_dst)
//       w [E, H], x [num_src, H, F] -> out[d, h] = sum_e w[e, h] x[s_e, h]
//   add_self_loops(indptr, indices, num_dst) -> (indptr, indices) with row d's
//       own source d appended to every row (no gradient)
//   linear(x, weight)                           x [n, k] @ weight[m, k]^T, as
//       torch.nn.functional.linear without bias; for tall x and m <= 32 the
//       product and the weight gradient stream x once (AVX-512 or AVX2) instead
//       of BLAS's packed copy
//   dropout(x, p, train)                        x with each element zeroed with
//       probability p and the rest scaled by 1/(1-p); x itself when not train or
//       p = 0. The mask comes from one draw of torch's generator and a hash per
//       4 elements (p at 1/65536 resolution); a dropped element is 0 even if
//       it was NaN. `distgnn bench kernels` measures it against torch.dropout
//       (bernoulli_: ~10x the time here) and a rand_like mask (~4x).
// x may have any trailing shape for csr_sum/csr_mean/gcn_aggregate.
#pragma once

#include <torch/torch.h>

#include <tuple>

namespace dg {

torch::Tensor CsrSum(const torch::Tensor& indptr, const torch::Tensor& indices,
                     const torch::Tensor& x, int64_t num_dst);
torch::Tensor CsrMean(const torch::Tensor& indptr, const torch::Tensor& indices,
                      const torch::Tensor& x, int64_t num_dst);
torch::Tensor GcnAggregate(const torch::Tensor& indptr, const torch::Tensor& indices,
                           const torch::Tensor& x, int64_t num_dst);
torch::Tensor EdgeSoftmax(const torch::Tensor& indptr, const torch::Tensor& scores);
torch::Tensor CsrWeightedSum(const torch::Tensor& indptr, const torch::Tensor& indices,
                             const torch::Tensor& w, const torch::Tensor& x, int64_t num_dst);
torch::Tensor Linear(const torch::Tensor& x, const torch::Tensor& weight);
torch::Tensor Dropout(const torch::Tensor& x, double p, bool train);
std::tuple<torch::Tensor, torch::Tensor> AddSelfLoops(const torch::Tensor& indptr,
                                                      const torch::Tensor& indices,
                                                      int64_t num_dst);

// True; calling it keeps the object file that registers torch.ops.distgnn.*
// in a static link (the registration is a static initialiser).
bool GraphOpsRegistered();

}  // namespace dg
