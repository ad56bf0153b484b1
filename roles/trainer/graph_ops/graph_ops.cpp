#include "roles/trainer/graph_ops/graph_ops.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "roles/trainer/graph_ops/csr_kernels.h"
#include "roles/trainer/graph_ops/skinny_matmul.h"

namespace dg {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Calls f(Idx{}) with the block's index type.
template <typename F>
void WithIndexType(const Tensor& indptr, F&& f) {
  if (indptr.scalar_type() == torch::kInt64)
    f(int64_t{});
  else
    f(int32_t{});
}

// Rows per parallel chunk: about 32k multiply-adds each.
int64_t Grain(int64_t rows, int64_t edges, int64_t width) {
  const int64_t per_row = (edges / std::max<int64_t>(rows, 1) + 1) * std::max<int64_t>(width, 1);
  return std::max<int64_t>(1, 32768 / per_row);
}

// Checks indptr (1-D, int64/int32, num_dst + 1 entries, from 0 to
// num_edges, never decreasing); returns it contiguous.
Tensor CheckIndptr(const std::string& name, const Tensor& indptr, int64_t num_dst,
                   int64_t num_edges) {
  TORCH_CHECK(indptr.dim() == 1, name, ": indptr must be 1-D");
  TORCH_CHECK(indptr.scalar_type() == torch::kInt64 || indptr.scalar_type() == torch::kInt32,
              name, ": indptr must be int64 or int32, got ", indptr.scalar_type());
  TORCH_CHECK(num_dst >= 0 && indptr.numel() == num_dst + 1, name, ": indptr has ",
              indptr.numel(), " entries, expected num_dst + 1 = ", num_dst + 1);
  Tensor ip = indptr.contiguous();
  bool monotone = true;
  WithIndexType(ip, [&](auto tag) {
    using Idx = decltype(tag);
    const Idx* p = ip.data_ptr<Idx>();
    monotone = p[0] == 0 && static_cast<int64_t>(p[num_dst]) == num_edges;
    for (int64_t d = 0; d < num_dst && monotone; ++d) monotone = p[d] <= p[d + 1];
  });
  TORCH_CHECK(monotone, name, ": indptr must start at 0, never decrease and end at the ",
              num_edges, " edges");
  return ip;
}

// Checks a block against x's rows; returns contiguous (indptr, indices).
std::pair<Tensor, Tensor> CheckBlock(const char* op, const Tensor& indptr, const Tensor& indices,
                                     int64_t num_dst, int64_t num_src) {
  const std::string name = std::string("distgnn::") + op;
  TORCH_CHECK(indices.dim() == 1, name, ": indices must be 1-D");
  TORCH_CHECK(indices.scalar_type() == indptr.scalar_type(), name,
              ": indices must have indptr's dtype (", indptr.scalar_type(), "), got ",
              indices.scalar_type());
  TORCH_CHECK(num_dst <= num_src, name, ": num_dst ", num_dst, " exceeds the ", num_src,
              " source rows");
  return {CheckIndptr(name, indptr, num_dst, indices.numel()), indices.contiguous()};
}

// x as [rows, width] (any trailing shape folded into width).
int64_t RowWidth(const Tensor& x) { return x.size(0) == 0 ? 0 : x.numel() / x.size(0); }

// out = ScaledRowSum over (indptr, indices) for all `rows` rows, in parallel.
Tensor RunScaledRowSum(const char* op, const Tensor& indptr, const Tensor& indices, int64_t rows,
                       const Tensor& x, const Tensor& src_scale, const Tensor& dst_scale,
                       int64_t self_rows) {
  Tensor xc = x.contiguous();
  const int64_t width = RowWidth(xc), num_src = xc.size(0);
  Tensor out = torch::empty({rows, width}, xc.options());
  std::atomic<bool> ok{true};
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "distgnn_scaled_row_sum", [&] {
    const scalar_t* ss = src_scale.defined() ? src_scale.data_ptr<scalar_t>() : nullptr;
    const scalar_t* ds = dst_scale.defined() ? dst_scale.data_ptr<scalar_t>() : nullptr;
    WithIndexType(indptr, [&](auto tag) {
      using Idx = decltype(tag);
      const Idx* ip = indptr.data_ptr<Idx>();
      const Idx* ix = indices.data_ptr<Idx>();
      at::parallel_for(0, rows, Grain(rows, indices.numel(), width), [&](int64_t b, int64_t e) {
        if (!kernels::ScaledRowSum(ip, ix, num_src, xc.data_ptr<scalar_t>(), width, ss, ds,
                                   self_rows, out.data_ptr<scalar_t>(), b, e))
          ok = false;
      });
    });
  });
  TORCH_CHECK(ok.load(), "distgnn::", op, ": an index is out of range [0, ", num_src, ")");
  return out;
}

// The transposed block as tensors of the block's index type.
struct Transposed {
  Tensor indptr, indices, edge_ids;
};

Transposed Transpose(const Tensor& indptr, const Tensor& indices, int64_t num_dst,
                     int64_t num_src) {
  Transposed t;
  WithIndexType(indptr, [&](auto tag) {
    using Idx = decltype(tag);
    std::vector<Idx> tp, ti, te;
    kernels::TransposeCsr(indptr.data_ptr<Idx>(), indices.data_ptr<Idx>(), num_dst, num_src, &tp,
                          &ti, &te);
    auto opts = indptr.options();
    t.indptr = torch::from_blob(tp.data(), {static_cast<int64_t>(tp.size())}, opts).clone();
    t.indices = torch::from_blob(ti.data(), {static_cast<int64_t>(ti.size())}, opts).clone();
    t.edge_ids = torch::from_blob(te.data(), {static_cast<int64_t>(te.size())}, opts).clone();
  });
  return t;
}

// Per-node in-degree of the block's destinations, as x's dtype.
Tensor InDegree(const Tensor& indptr, int64_t num_dst, const torch::TensorOptions& opts) {
  Tensor ip = indptr.to(torch::kInt64);
  return (ip.slice(0, 1, num_dst + 1) - ip.slice(0, 0, num_dst)).to(opts.dtype());
}

enum class Aggregation : int64_t { kSum = 0, kMean = 1, kGcn = 2 };
const char* Name(Aggregation a) {
  return a == Aggregation::kSum ? "csr_sum" : a == Aggregation::kMean ? "csr_mean" : "gcn_aggregate";
}

// The scales of ScaledRowSum for one aggregation (undefined = 1) and the rows
// that get a self loop.
struct Scales {
  Tensor src, dst;
  int64_t self_rows = 0;
};

Scales ScalesFor(Aggregation a, const Tensor& indptr, const Tensor& indices, int64_t num_dst,
                 const Tensor& x) {
  Scales s;
  const int64_t num_src = x.size(0);
  if (a == Aggregation::kMean) {
    s.dst = InDegree(indptr, num_dst, x.options()).clamp_min(1).reciprocal();
  } else if (a == Aggregation::kGcn) {
    TORCH_CHECK(indices.numel() == 0 || (indices.min().item<int64_t>() >= 0 &&
                                         indices.max().item<int64_t>() < num_src),
                "distgnn::gcn_aggregate: an index is out of range [0, ", num_src, ")");
    // D_out: the block's out-degree of every source plus the self loop of
    // the destinations; a source without either is never read (scale 0).
    Tensor out_deg = torch::zeros({num_src}, torch::kInt64);
    out_deg.index_add_(0, indices.to(torch::kInt64), torch::ones({indices.numel()}, torch::kInt64));
    out_deg.slice(0, 0, num_dst).add_(1);
    Tensor d_out = out_deg.to(x.scalar_type());
    s.src = torch::where(d_out > 0, d_out.rsqrt(), torch::zeros_like(d_out));
    s.dst = (InDegree(indptr, num_dst, x.options()) + 1).rsqrt();
    s.self_rows = num_dst;
  }
  return s;
}

// The backward of ScaledRowSum on one thread: a scatter over the edges,
// cheaper than building the transposed block.
Tensor ScatterBack(const Tensor& indptr, const Tensor& indices, int64_t num_src, const Tensor& g,
                   const Tensor& src_scale, const Tensor& dst_scale, int64_t self_rows) {
  const int64_t width = RowWidth(g), num_dst = g.size(0);
  Tensor out = torch::zeros({num_src, width}, g.options());
  AT_DISPATCH_FLOATING_TYPES(g.scalar_type(), "distgnn_scaled_row_scatter", [&] {
    const scalar_t* ss = src_scale.defined() ? src_scale.data_ptr<scalar_t>() : nullptr;
    const scalar_t* ds = dst_scale.defined() ? dst_scale.data_ptr<scalar_t>() : nullptr;
    WithIndexType(indptr, [&](auto tag) {
      using Idx = decltype(tag);
      kernels::ScaledRowScatter(indptr.data_ptr<Idx>(), indices.data_ptr<Idx>(), num_dst,
                                g.data_ptr<scalar_t>(), width, ss, ds, self_rows,
                                out.data_ptr<scalar_t>());
    });
  });
  return out;
}

// out = dst_scale * ((A + self loops) (src_scale * x)) with its backward.
// (Only tensors that are inputs go through apply: the scales are structure,
// kept in saved_data.)
class ScaledSumFn : public torch::autograd::Function<ScaledSumFn> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& indptr,
                        const Tensor& indices, int64_t num_dst, int64_t aggregation) {
    const Aggregation a = static_cast<Aggregation>(aggregation);
    Scales sc = ScalesFor(a, indptr, indices, num_dst, x);
    Tensor out = RunScaledRowSum(Name(a), indptr, indices, num_dst, x, sc.src, sc.dst, sc.self_rows);
    ctx->save_for_backward({indptr, indices});
    ctx->saved_data["src_scale"] = sc.src;
    ctx->saved_data["dst_scale"] = sc.dst;
    ctx->saved_data["num_src"] = x.size(0);
    ctx->saved_data["self_rows"] = sc.self_rows;
    ctx->saved_data["aggregation"] = aggregation;
    std::vector<int64_t> shape = x.sizes().vec();
    shape[0] = num_dst;
    return out.view(shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const Tensor &indptr = saved[0], &indices = saved[1];
    const int64_t num_src = ctx->saved_data["num_src"].toInt();
    const int64_t self_rows = ctx->saved_data["self_rows"].toInt();
    const Tensor src_scale = ctx->saved_data["src_scale"].toTensor();
    const Tensor dst_scale = ctx->saved_data["dst_scale"].toTensor();
    const std::string op =
        std::string(Name(static_cast<Aggregation>(ctx->saved_data["aggregation"].toInt()))) +
        " backward";
    Tensor g = grads[0].contiguous();
    const int64_t num_dst = g.size(0);
    Tensor gx;
    if (at::get_num_threads() == 1) {
      gx = ScatterBack(indptr, indices, num_src, g, src_scale, dst_scale, self_rows);
    } else {
      // In parallel, over the transposed block (each thread owns source rows);
      // there the roles of the two scales swap.
      Transposed t = Transpose(indptr, indices, num_dst, num_src);
      gx = RunScaledRowSum(op.c_str(), t.indptr, t.indices, num_src, g, dst_scale, src_scale,
                           self_rows);
    }
    std::vector<int64_t> shape = g.sizes().vec();
    shape[0] = num_src;
    return {gx.view(shape), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

Tensor CheckRows(const char* op, const Tensor& x) {
  TORCH_CHECK(x.dim() >= 1, "distgnn::", op, ": x must have a row dimension");
  TORCH_CHECK(x.scalar_type() == torch::kFloat32 || x.scalar_type() == torch::kFloat64,
              "distgnn::", op, ": x must be float32 or float64, got ", x.scalar_type());
  return x;
}

// out[e, h] over the edges of a block, parallel over rows.
template <typename Body>
void ForRows(int64_t rows, int64_t edges, int64_t width, Body body) {
  at::parallel_for(0, rows, Grain(rows, edges, width), body);
}

class EdgeSoftmaxFn : public torch::autograd::Function<EdgeSoftmaxFn> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& scores, const Tensor& indptr) {
    Tensor s = scores.contiguous();
    const int64_t rows = indptr.numel() - 1, heads = s.dim() > 1 ? s.numel() / s.size(0) : 1;
    Tensor a = torch::empty_like(s);
    AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "edge_softmax", [&] {
      WithIndexType(indptr, [&](auto tag) {
        using Idx = decltype(tag);
        ForRows(rows, s.size(0), heads, [&](int64_t b, int64_t e) {
          kernels::RowSoftmax(indptr.data_ptr<Idx>(), s.data_ptr<scalar_t>(), heads,
                              a.data_ptr<scalar_t>(), b, e);
        });
      });
    });
    ctx->save_for_backward({a, indptr});
    return a;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const Tensor &a = saved[0], &indptr = saved[1];
    Tensor g = grads[0].contiguous();
    const int64_t rows = indptr.numel() - 1, heads = a.dim() > 1 ? a.numel() / a.size(0) : 1;
    Tensor gs = torch::empty_like(a);
    AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "edge_softmax backward", [&] {
      WithIndexType(indptr, [&](auto tag) {
        using Idx = decltype(tag);
        ForRows(rows, a.size(0), heads, [&](int64_t b, int64_t e) {
          kernels::RowSoftmaxBackward(indptr.data_ptr<Idx>(), a.data_ptr<scalar_t>(),
                                      g.data_ptr<scalar_t>(), heads, gs.data_ptr<scalar_t>(), b, e);
        });
      });
    });
    return {gs, Tensor()};
  }
};

// Runs WeightedRowSum for all `rows` rows of (indptr, indices[, edge_ids]).
Tensor RunWeightedRowSum(const char* op, const Tensor& indptr, const Tensor& indices,
                         const Tensor& edge_ids, int64_t rows, const Tensor& w, const Tensor& x) {
  const int64_t num_src = x.size(0), heads = x.size(1), width = x.size(2);
  Tensor out = torch::empty({rows, heads, width}, x.options());
  std::atomic<bool> ok{true};
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "distgnn_weighted_row_sum", [&] {
    WithIndexType(indptr, [&](auto tag) {
      using Idx = decltype(tag);
      const Idx* eid = edge_ids.defined() ? edge_ids.data_ptr<Idx>() : nullptr;
      ForRows(rows, indices.numel(), heads * width, [&](int64_t b, int64_t e) {
        if (!kernels::WeightedRowSum(indptr.data_ptr<Idx>(), indices.data_ptr<Idx>(), eid, num_src,
                                     x.data_ptr<scalar_t>(), heads, width, w.data_ptr<scalar_t>(),
                                     out.data_ptr<scalar_t>(), b, e))
          ok = false;
      });
    });
  });
  TORCH_CHECK(ok.load(), "distgnn::", op, ": an index is out of range [0, ", num_src, ")");
  return out;
}

class WeightedSumFn : public torch::autograd::Function<WeightedSumFn> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& w, const Tensor& x,
                        const Tensor& indptr, const Tensor& indices, int64_t num_dst) {
    Tensor wc = w.contiguous(), xc = x.contiguous();
    Tensor out = RunWeightedRowSum("csr_weighted_sum", indptr, indices, Tensor(), num_dst, wc, xc);
    ctx->save_for_backward({wc, xc, indptr, indices});
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const Tensor &w = saved[0], &x = saved[1], &indptr = saved[2], &indices = saved[3];
    Tensor g = grads[0].contiguous();
    const int64_t num_dst = g.size(0), num_src = x.size(0), heads = x.size(1), width = x.size(2);
    Tensor gw, gx;
    if (ctx->needs_input_grad(0)) {
      gw = torch::empty_like(w);
      AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "csr_weighted_sum backward", [&] {
        WithIndexType(indptr, [&](auto tag) {
          using Idx = decltype(tag);
          ForRows(num_dst, indices.numel(), heads * width, [&](int64_t b, int64_t e) {
            kernels::EdgeDot(indptr.data_ptr<Idx>(), indices.data_ptr<Idx>(),
                             g.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), heads, width,
                             gw.data_ptr<scalar_t>(), b, e);
          });
        });
      });
    }
    if (ctx->needs_input_grad(1)) {
      Transposed t = Transpose(indptr, indices, num_dst, num_src);
      gx = RunWeightedRowSum("csr_weighted_sum backward", t.indptr, t.indices, t.edge_ids, num_src,
                             w, g);
    }
    return {gw, gx, Tensor(), Tensor(), Tensor()};
  }
};

// Rows below this go to BLAS: the skinny kernels pay off on tall inputs.
constexpr int64_t kSkinnyMinRows = 1024;

bool UseSkinny(const Tensor& x, const Tensor& w) {
  return x.scalar_type() == torch::kFloat32 && w.scalar_type() == torch::kFloat32 &&
         x.dim() == 2 && x.size(0) >= kSkinnyMinRows && kernels::SkinnyMatmulSupported(w.size(0));
}

// y = x @ w^T; x [n, k] and w [m, k]. A tall x with few output columns runs
// on the skinny kernels both ways (BLAS packs x first: `distgnn bench
// kernels` measures both, x @ w^T ~0.5x and x^T @ g ~0.4x of BLAS's time).
class LinearFn : public torch::autograd::Function<LinearFn> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& w) {
    ctx->save_for_backward({x, w});
    if (!UseSkinny(x, w)) return torch::matmul(x, w.t());
    Tensor xc = x.contiguous(), wt = w.t().contiguous();
    const int64_t n = xc.size(0), k = xc.size(1), m = w.size(0);
    Tensor y = torch::empty({n, m}, xc.options());
    const int64_t grain = std::max<int64_t>(kSkinnyMinRows, n / at::get_num_threads() + 1);
    at::parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      kernels::SkinnyMatmul(xc.data_ptr<float>(), wt.data_ptr<float>(), k, m, y.data_ptr<float>(), b, e);
    });
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &w = saved[1];
    Tensor g = grads[0].contiguous();
    Tensor gx, gw;
    if (ctx->needs_input_grad(0)) gx = torch::matmul(g, w);
    if (ctx->needs_input_grad(1)) {
      if (!UseSkinny(x, w)) {
        gw = torch::matmul(g.t(), x);
      } else {
        // One [k, m] accumulator per thread, summed after.
        Tensor xc = x.contiguous();
        const int64_t n = xc.size(0), k = xc.size(1), m = w.size(0);
        Tensor acc = torch::zeros({at::get_num_threads(), k, m}, xc.options());
        const int64_t grain = std::max<int64_t>(kSkinnyMinRows, n / at::get_num_threads() + 1);
        at::parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
          float* a = acc[at::get_thread_num()].data_ptr<float>();
          kernels::SkinnyMatmulTN(xc.data_ptr<float>(), g.data_ptr<float>(), k, m, a, b, e);
        });
        gw = acc.sum(0).t().contiguous();
      }
    }
    return {gx, gw};
  }
};

Tensor Aggregate(Aggregation a, const Tensor& indptr, const Tensor& indices, const Tensor& x,
                 int64_t num_dst) {
  CheckRows(Name(a), x);
  auto [ip, ix] = CheckBlock(Name(a), indptr, indices, num_dst, x.size(0));
  return ScaledSumFn::apply(x, ip, ix, num_dst, static_cast<int64_t>(a));
}

}  // namespace

Tensor CsrSum(const Tensor& indptr, const Tensor& indices, const Tensor& x, int64_t num_dst) {
  return Aggregate(Aggregation::kSum, indptr, indices, x, num_dst);
}

Tensor CsrMean(const Tensor& indptr, const Tensor& indices, const Tensor& x, int64_t num_dst) {
  return Aggregate(Aggregation::kMean, indptr, indices, x, num_dst);
}

Tensor GcnAggregate(const Tensor& indptr, const Tensor& indices, const Tensor& x,
                    int64_t num_dst) {
  return Aggregate(Aggregation::kGcn, indptr, indices, x, num_dst);
}

Tensor EdgeSoftmax(const Tensor& indptr, const Tensor& scores) {
  TORCH_CHECK(scores.dim() == 1 || scores.dim() == 2,
              "distgnn::edge_softmax: scores must be [E] or [E, H]");
  TORCH_CHECK(scores.scalar_type() == torch::kFloat32 || scores.scalar_type() == torch::kFloat64,
              "distgnn::edge_softmax: scores must be float32 or float64");
  const int64_t num_dst = indptr.numel() - 1;
  Tensor ip = CheckIndptr("distgnn::edge_softmax", indptr, num_dst, scores.size(0));
  return EdgeSoftmaxFn::apply(scores, ip);
}

Tensor CsrWeightedSum(const Tensor& indptr, const Tensor& indices, const Tensor& w,
                      const Tensor& x, int64_t num_dst) {
  CheckRows("csr_weighted_sum", x);
  TORCH_CHECK(x.dim() == 3, "distgnn::csr_weighted_sum: x must be [num_src, H, F]");
  TORCH_CHECK(w.dim() == 2 && w.size(0) == indices.numel() && w.size(1) == x.size(1),
              "distgnn::csr_weighted_sum: w must be [E, H] = [", indices.numel(), ", ",
              x.size(1), "], got ", w.sizes());
  TORCH_CHECK(w.scalar_type() == x.scalar_type(),
              "distgnn::csr_weighted_sum: w and x must have the same dtype");
  auto [ip, ix] = CheckBlock("csr_weighted_sum", indptr, indices, num_dst, x.size(0));
  return WeightedSumFn::apply(w, x, ip, ix, num_dst);
}

namespace {

// Dropout's mask: element i is kept when the i % 4-th 16-bit lane of
// SplitMix64(seed, i / 4) is >= threshold (threshold = round(p * 65536), so p is
// used at 1/65536 resolution and the kept share is exactly 1 - threshold/65536
// in expectation). A pure function of (seed, i): the same on any number of
// threads, and the backward recomputes it instead of storing a mask.
uint64_t SplitMix64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// in * scale where lane >= threshold, else +0: the product's bits ANDed with
// an all-ones or all-zeros mask (a kept/dropped branch would mispredict half
// the time, and compilers turn a bool-to-float multiply back into one).
template <typename T>
T Masked(T in, T scale, uint64_t lane, uint32_t threshold) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const Bits mask = Bits{0} - static_cast<Bits>(lane >= threshold);
  T v = in * scale;
  Bits b;
  std::memcpy(&b, &v, sizeof(T));
  b &= mask;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

// out[i] = keep(i) ? in[i] * scale : 0 for i in [begin, end), begin % 4 == 0.
template <typename T>
void ApplyDropoutMask(const T* in, T* out, int64_t begin, int64_t end, uint64_t seed, uint32_t threshold,
                      T scale) {
  for (int64_t q = begin; q < end; q += 4) {
    const uint64_t h = SplitMix64(seed, static_cast<uint64_t>(q / 4));
    if (q + 4 <= end) {
      for (int j = 0; j < 4; ++j) out[q + j] = Masked(in[q + j], scale, (h >> (16 * j)) & 0xFFFF, threshold);
    } else {
      for (int j = 0; q + j < end; ++j) out[q + j] = Masked(in[q + j], scale, (h >> (16 * j)) & 0xFFFF, threshold);
    }
  }
}

Tensor MaskedScale(const Tensor& in, uint64_t seed, uint32_t threshold) {
  Tensor x = in.contiguous();
  Tensor out = torch::empty_like(x);
  const int64_t n = x.numel();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "distgnn::dropout", [&] {
    const scalar_t scale = threshold >= 65536 ? scalar_t(0) : scalar_t(65536.0 / (65536.0 - threshold));
    const scalar_t* a = x.data_ptr<scalar_t>();
    scalar_t* b = out.data_ptr<scalar_t>();
    // Chunks start at multiples of 4 so each 64-bit draw serves one chunk.
    at::parallel_for(0, (n + 3) / 4, 16384, [&](int64_t qb, int64_t qe) {
      ApplyDropoutMask(a, b, qb * 4, std::min(n, qe * 4), seed, threshold, scale);
    });
  });
  return out;
}

class DropoutFn : public torch::autograd::Function<DropoutFn> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double p) {
    uint64_t seed;
    {
      // One draw from torch's generator: torch.manual_seed and a restored RNG
      // state reproduce the mask.
      auto gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      seed = at::check_generator<at::CPUGeneratorImpl>(gen)->random64();
    }
    const auto threshold = static_cast<uint32_t>(std::lround(p * 65536.0));
    ctx->saved_data["seed"] = static_cast<int64_t>(seed);
    ctx->saved_data["threshold"] = static_cast<int64_t>(threshold);
    return MaskedScale(x, seed, threshold);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto seed = static_cast<uint64_t>(ctx->saved_data["seed"].toInt());
    const auto threshold = static_cast<uint32_t>(ctx->saved_data["threshold"].toInt());
    return {MaskedScale(grads[0], seed, threshold), Tensor()};
  }
};

}  // namespace

Tensor Dropout(const Tensor& x, double p, bool train) {
  TORCH_CHECK(p >= 0.0 && p <= 1.0, "distgnn::dropout: p must be in [0, 1], got ", p);
  TORCH_CHECK(x.is_floating_point(), "distgnn::dropout: x must be float32 or float64, got ", x.scalar_type());
  if (!train || p == 0.0) return x;
  return DropoutFn::apply(x, p);
}

Tensor Linear(const Tensor& x, const Tensor& weight) {
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1),
              "distgnn::linear: x [n, k] and weight [m, k] expected, got ", x.sizes(), " and ",
              weight.sizes());
  return LinearFn::apply(x, weight);
}

std::tuple<Tensor, Tensor> AddSelfLoops(const Tensor& indptr, const Tensor& indices,
                                        int64_t num_dst) {
  auto [ip, ix] = CheckBlock("add_self_loops", indptr, indices, num_dst, num_dst);
  Tensor out_ptr = torch::empty({num_dst + 1}, ip.options());
  Tensor out_ix = torch::empty({ix.numel() + num_dst}, ix.options());
  WithIndexType(ip, [&](auto tag) {
    using Idx = decltype(tag);
    const Idx *p = ip.data_ptr<Idx>(), *s = ix.data_ptr<Idx>();
    Idx *op = out_ptr.data_ptr<Idx>(), *os = out_ix.data_ptr<Idx>();
    op[0] = 0;
    for (int64_t d = 0; d < num_dst; ++d) {
      Idx pos = static_cast<Idx>(p[d] + d);
      for (Idx e = p[d]; e < p[d + 1]; ++e) os[pos++] = s[e];
      os[pos++] = static_cast<Idx>(d);
      op[d + 1] = pos;
    }
  });
  return {out_ptr, out_ix};
}

}  // namespace dg
