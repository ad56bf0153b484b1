// Graph kernels over a block's CSR, torch-free: the loops behind the
// distgnn::* custom operators (graph_ops.h).
//
// A block is a CSR over destination rows: the sources of row d are
// indices[indptr[d] .. indptr[d+1]), each in [0, num_src). Every kernel here
// works on a range of destination rows [row_begin, row_end) and writes only
// those rows of its output, so callers parallelise over rows without atomics;
// a backward pass runs the same kernel on the transposed CSR (TransposeCsr).
// Inner loops run over the contiguous feature dimension, which the compiler
// vectorises. Callers validate shapes; kernels report a source index out of
// range by returning false (and leave that row unspecified).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace dg {
namespace kernels {

constexpr int64_t kPrefetchEdges = 8;

// out[d, :] = dst_scale[d] * ( [d < self_rows] * src_scale[d] * x[d, :]
//                              + sum_e src_scale[s_e] * x[s_e, :] )
// for rows d in [row_begin, row_end). A null scale means 1; rows below
// self_rows add their own source row d once (a self loop: the first num_dst
// sources are the destinations). x is [num_src, width] row-major, out is
// [rows, width]. W > 0 fixes the width at compile time (the row then sums in
// registers); W = 0 reads it from `width`.
template <int W, typename Idx, typename T>
bool ScaledRowSumW(const Idx* indptr, const Idx* indices, int64_t num_src, const T* x,
                   int64_t width_arg, const T* src_scale, const T* dst_scale, int64_t self_rows,
                   T* out, int64_t row_begin, int64_t row_end) {
  const int64_t width = W > 0 ? W : width_arg;
  constexpr int64_t kAcc = W > 0 ? W : 1;
  bool ok = true;
  for (int64_t d = row_begin; d < row_end; ++d) {
    T acc[kAcc];
    T* o = W > 0 ? acc : out + d * width;
    for (int64_t f = 0; f < width; ++f) o[f] = T(0);
    if (d < self_rows) {
      const T w = src_scale ? src_scale[d] : T(1);
      const T* xr = x + d * width;
      for (int64_t f = 0; f < width; ++f) o[f] += w * xr[f];
    }
    const int64_t e_end = indptr[d + 1];
    for (int64_t e = indptr[d]; e < e_end; ++e) {
      const int64_t s = indices[e];
      if (s < 0 || s >= num_src) {
        ok = false;
        continue;
      }
      // Rows are read in random order: fetch a few edges ahead.
      if (e + kPrefetchEdges < e_end) {
        const int64_t p = indices[e + kPrefetchEdges];
        if (p >= 0 && p < num_src) __builtin_prefetch(x + p * width);
      }
      const T* xr = x + s * width;
      if (src_scale) {
        const T w = src_scale[s];
        for (int64_t f = 0; f < width; ++f) o[f] += w * xr[f];
      } else {
        for (int64_t f = 0; f < width; ++f) o[f] += xr[f];
      }
    }
    const T w = dst_scale ? dst_scale[d] : T(1);
    T* od = out + d * width;
    for (int64_t f = 0; f < width; ++f) od[f] = o[f] * w;
  }
  return ok;
}

// ScaledRowSumW at the width of a hidden layer when it is a common one.
template <typename Idx, typename T>
bool ScaledRowSum(const Idx* indptr, const Idx* indices, int64_t num_src, const T* x, int64_t width,
                  const T* src_scale, const T* dst_scale, int64_t self_rows, T* out,
                  int64_t row_begin, int64_t row_end) {
  switch (width) {
    case 8: return ScaledRowSumW<8>(indptr, indices, num_src, x, width, src_scale, dst_scale, self_rows, out, row_begin, row_end);
    case 16: return ScaledRowSumW<16>(indptr, indices, num_src, x, width, src_scale, dst_scale, self_rows, out, row_begin, row_end);
    case 32: return ScaledRowSumW<32>(indptr, indices, num_src, x, width, src_scale, dst_scale, self_rows, out, row_begin, row_end);
    case 64: return ScaledRowSumW<64>(indptr, indices, num_src, x, width, src_scale, dst_scale, self_rows, out, row_begin, row_end);
    default: return ScaledRowSumW<0>(indptr, indices, num_src, x, width, src_scale, dst_scale, self_rows, out, row_begin, row_end);
  }
}

// The transpose of ScaledRowSum without building the transposed block, for
// one thread: out[s, :] += src_scale[s] * dst_scale[d] * g[d, :] for every
// edge (s -> d) of rows [0, num_dst), plus the self loops of rows below
// self_rows. out is [num_src, width], zeroed by the caller. Indices must be
// in range (the forward checked them). (A compile-time width, which helps
// ScaledRowSum, measured 2 ms slower here at width 16: docs/performance.md.)
template <typename Idx, typename T>
void ScaledRowScatter(const Idx* indptr, const Idx* indices, int64_t num_dst, const T* g,
                      int64_t width, const T* src_scale, const T* dst_scale, int64_t self_rows,
                      T* out) {
  for (int64_t d = 0; d < num_dst; ++d) {
    const T* gr = g + d * width;
    const T wd = dst_scale ? dst_scale[d] : T(1);
    if (d < self_rows) {
      const T w = wd * (src_scale ? src_scale[d] : T(1));
      T* o = out + d * width;
      for (int64_t f = 0; f < width; ++f) o[f] += w * gr[f];
    }
    const int64_t e_end = indptr[d + 1];
    for (int64_t e = indptr[d]; e < e_end; ++e) {
      const int64_t s = indices[e];
      if (e + kPrefetchEdges < e_end) __builtin_prefetch(out + indices[e + kPrefetchEdges] * width);
      const T w = wd * (src_scale ? src_scale[s] : T(1));
      T* o = out + s * width;
      for (int64_t f = 0; f < width; ++f) o[f] += w * gr[f];
    }
  }
}

// Per-head weighted sum (GAT): x is [num_src, heads, width], w is [E, heads],
// out[d, h, :] = sum_e w[eid(e), h] * x[s_e, h, :], where eid(e) = e, or
// edge_ids[e] when given (the transposed CSR keeps the original edge ids).
template <typename Idx, typename T>
bool WeightedRowSum(const Idx* indptr, const Idx* indices, const Idx* edge_ids, int64_t num_src,
                    const T* x, int64_t heads, int64_t width, const T* w, T* out,
                    int64_t row_begin, int64_t row_end) {
  bool ok = true;
  const int64_t row = heads * width;
  for (int64_t d = row_begin; d < row_end; ++d) {
    T* o = out + d * row;
    for (int64_t f = 0; f < row; ++f) o[f] = T(0);
    for (int64_t e = indptr[d]; e < indptr[d + 1]; ++e) {
      const int64_t s = indices[e];
      if (s < 0 || s >= num_src) {
        ok = false;
        continue;
      }
      const int64_t eid = edge_ids ? static_cast<int64_t>(edge_ids[e]) : e;
      const T* xr = x + s * row;
      for (int64_t h = 0; h < heads; ++h) {
        const T a = w[eid * heads + h];
        T* oh = o + h * width;
        const T* xh = xr + h * width;
        for (int64_t f = 0; f < width; ++f) oh[f] += a * xh[f];
      }
    }
  }
  return ok;
}

// grad_w[e, h] = <grad_out[d, h, :], x[s_e, h, :]> for the edges of rows
// [row_begin, row_end) (each edge belongs to exactly one row).
template <typename Idx, typename T>
void EdgeDot(const Idx* indptr, const Idx* indices, const T* grad_out, const T* x, int64_t heads,
             int64_t width, T* grad_w, int64_t row_begin, int64_t row_end) {
  const int64_t row = heads * width;
  for (int64_t d = row_begin; d < row_end; ++d) {
    const T* g = grad_out + d * row;
    for (int64_t e = indptr[d]; e < indptr[d + 1]; ++e) {
      const T* xr = x + static_cast<int64_t>(indices[e]) * row;
      for (int64_t h = 0; h < heads; ++h) {
        T acc = 0;
        for (int64_t f = 0; f < width; ++f) acc += g[h * width + f] * xr[h * width + f];
        grad_w[e * heads + h] = acc;
      }
    }
  }
}

// Softmax over the edges of each destination row, per head: scores and out
// are [E, heads]. An empty row has nothing to normalise.
template <typename Idx, typename T>
void RowSoftmax(const Idx* indptr, const T* scores, int64_t heads, T* out, int64_t row_begin,
                int64_t row_end) {
  for (int64_t d = row_begin; d < row_end; ++d) {
    const int64_t b = indptr[d], e_end = indptr[d + 1];
    for (int64_t h = 0; h < heads; ++h) {
      T mx = -std::numeric_limits<T>::infinity();
      for (int64_t e = b; e < e_end; ++e) mx = std::max(mx, scores[e * heads + h]);
      T sum = 0;
      for (int64_t e = b; e < e_end; ++e) {
        const T v = std::exp(scores[e * heads + h] - mx);
        out[e * heads + h] = v;
        sum += v;
      }
      for (int64_t e = b; e < e_end; ++e) out[e * heads + h] /= sum;
    }
  }
}

// Backward of RowSoftmax: grad_s[e,h] = a[e,h] * (g[e,h] - sum_row a*g).
template <typename Idx, typename T>
void RowSoftmaxBackward(const Idx* indptr, const T* a, const T* grad, int64_t heads, T* grad_s,
                        int64_t row_begin, int64_t row_end) {
  for (int64_t d = row_begin; d < row_end; ++d) {
    const int64_t b = indptr[d], e_end = indptr[d + 1];
    for (int64_t h = 0; h < heads; ++h) {
      T dot = 0;
      for (int64_t e = b; e < e_end; ++e) dot += a[e * heads + h] * grad[e * heads + h];
      for (int64_t e = b; e < e_end; ++e)
        grad_s[e * heads + h] = a[e * heads + h] * (grad[e * heads + h] - dot);
    }
  }
}

// The transposed CSR of a block: for every source s, the destinations of its
// edges (t_indices) and those edges' ids in the block (t_edge_ids), in edge
// order. t_indptr has num_src + 1 entries. Sequential, O(E + num_src); the
// indices must be in range (the forward kernel checked them).
template <typename Idx>
void TransposeCsr(const Idx* indptr, const Idx* indices, int64_t num_dst, int64_t num_src,
                  std::vector<Idx>* t_indptr, std::vector<Idx>* t_indices,
                  std::vector<Idx>* t_edge_ids) {
  const int64_t num_edges = indptr[num_dst];
  t_indptr->assign(static_cast<size_t>(num_src + 1), 0);
  for (int64_t e = 0; e < num_edges; ++e) ++(*t_indptr)[static_cast<size_t>(indices[e]) + 1];
  for (int64_t s = 0; s < num_src; ++s) (*t_indptr)[s + 1] += (*t_indptr)[s];
  t_indices->resize(static_cast<size_t>(num_edges));
  t_edge_ids->resize(static_cast<size_t>(num_edges));
  std::vector<Idx> next(t_indptr->begin(), t_indptr->end() - 1);
  for (int64_t d = 0; d < num_dst; ++d) {
    for (int64_t e = indptr[d]; e < indptr[d + 1]; ++e) {
      const Idx pos = next[static_cast<size_t>(indices[e])]++;
      (*t_indices)[pos] = static_cast<Idx>(d);
      (*t_edge_ids)[pos] = static_cast<Idx>(e);
    }
  }
}

}  // namespace kernels
}  // namespace dg
