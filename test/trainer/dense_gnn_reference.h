// Dense float64 references of the built-in layers (roles/trainer/model/model_export.h),
// written from their definitions with plain dense torch ops (matmul, exp, sums
// over an adjacency matrix): no index_add, scatter or segment ops, so they share
// nothing with the exported TorchScript (or a native kernel replacing it).
//
// A block is the dense count matrix A [num_dst, num_src]: A[i][j] = number of
// edges j -> i (duplicates count twice); the first num_dst sources are the
// destinations themselves.
//   sage: h_i W_self + mean_{j -> i} h_j W_neigh + b          (no in-edge: mean 0)
//   gcn:  D_in^-1/2 (A + I) D_out^-1/2 H W + b, with I on the dst columns,
//         D_in = row sums and D_out = column sums of A + I
//   gat:  per head, e_ij = leaky_relu(a_l.f_j + a_r.f_i, 0.2) over the edges of
//         A + I, alpha = softmax over i's edges, out_i = sum alpha_ij f_j + b;
//         hidden layers elu and concatenate heads, the last averages them
// Hidden layers of sage and gcn apply relu.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>

#include "common/sampling/minibatch.h"

namespace dg::test {

inline torch::Tensor DenseAdjacency(const Block& b) {
  torch::Tensor a = torch::zeros({b.num_dst, b.num_src}, torch::kFloat64);
  auto acc = a.accessor<double, 2>();
  for (int64_t i = 0; i < b.num_dst; ++i)
    for (int64_t e = b.indptr[i]; e < b.indptr[i + 1]; ++e) acc[i][b.indices[e]] += 1.0;
  return a;
}

// A + I on the destination columns.
inline torch::Tensor WithSelfLoops(const torch::Tensor& a) {
  torch::Tensor out = a.clone();
  const int64_t nd = a.size(0);
  out.narrow(1, 0, nd).add_(torch::eye(nd, torch::kFloat64));
  return out;
}

// Parameters by name ("w_self_0", ...), float64.
using Params = std::map<std::string, torch::Tensor>;

inline torch::Tensor P(const Params& p, const std::string& name, int layer) {
  return p.at(name + "_" + std::to_string(layer));
}

inline torch::Tensor SageRef(const Params& p, int l, bool last, const torch::Tensor& x, const Block& b) {
  torch::Tensor a = DenseAdjacency(b);
  torch::Tensor deg = a.sum(1, /*keepdim=*/true);
  torch::Tensor mean = torch::matmul(a / deg.clamp_min(1.0), x);
  torch::Tensor h = torch::matmul(x.narrow(0, 0, b.num_dst), P(p, "w_self", l).t()) +
                    torch::matmul(mean, P(p, "w_neigh", l).t()) + P(p, "b", l);
  return last ? h : torch::relu(h);
}

inline torch::Tensor GcnRef(const Params& p, int l, bool last, const torch::Tensor& x, const Block& b) {
  torch::Tensor a = WithSelfLoops(DenseAdjacency(b));
  torch::Tensor din = a.sum(1), dout = a.sum(0);
  torch::Tensor rin = din.pow(-0.5);
  torch::Tensor rout = torch::where(dout > 0, dout.pow(-0.5), torch::zeros_like(dout));
  torch::Tensor norm = rin.unsqueeze(1) * a * rout.unsqueeze(0);
  torch::Tensor h = torch::matmul(torch::matmul(norm, x), P(p, "w", l).t()) + P(p, "b", l);
  return last ? h : torch::relu(h);
}

inline torch::Tensor GatRef(const Params& p, int l, bool last, int heads, const torch::Tensor& x, const Block& b) {
  torch::Tensor a = WithSelfLoops(DenseAdjacency(b));
  const int64_t nd = b.num_dst;
  torch::Tensor w = P(p, "w", l);
  const int64_t per_head = w.size(0) / heads;
  torch::Tensor f = torch::matmul(x, w.t());          // [ns, H*F]
  torch::Tensor al = P(p, "attn_l", l).reshape({heads, per_head});
  torch::Tensor ar = P(p, "attn_r", l).reshape({heads, per_head});
  torch::Tensor bias = P(p, "b", l).reshape({heads, per_head});
  std::vector<torch::Tensor> outs;
  for (int h = 0; h < heads; ++h) {
    torch::Tensor fh = f.narrow(1, h * per_head, per_head);                    // [ns, F]
    torch::Tensor el = torch::matmul(fh, al[h]);                               // [ns]
    torch::Tensor er = torch::matmul(fh.narrow(0, 0, nd), ar[h]);              // [nd]
    torch::Tensor s = torch::leaky_relu(er.unsqueeze(1) + el.unsqueeze(0), 0.2);  // [nd, ns]
    torch::Tensor mx = std::get<0>(s.masked_fill(a == 0, -1e300).max(1, /*keepdim=*/true));
    torch::Tensor wgt = a * torch::exp(s - mx);                                // each edge counts
    torch::Tensor alpha = wgt / wgt.sum(1, /*keepdim=*/true);
    outs.push_back(torch::matmul(alpha, fh) + bias[h]);                        // [nd, F]
  }
  torch::Tensor out = torch::stack(outs, 1);  // [nd, H, F]
  if (last) return out.mean(1);
  return torch::elu(out).reshape({nd, heads * per_head});
}

// One layer of `arch`; `heads` is that layer's head count (gat).
inline torch::Tensor LayerRef(const std::string& arch, const Params& p, int l, bool last, int heads,
                              const torch::Tensor& x, const Block& b) {
  if (arch == "sage") return SageRef(p, l, last, x, b);
  if (arch == "gcn") return GcnRef(p, l, last, x, b);
  return GatRef(p, l, last, heads, x, b);
}

}  // namespace dg::test
