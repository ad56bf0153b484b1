// Dense products with a narrow side, the shape of a GNN's input layer: many
// node rows (10^4..10^6) of K features times a weight of few output columns.
//
// BLAS packs the tall matrix into panels before multiplying; for 16 output
// columns that copy costs as much as the arithmetic. These kernels stream the
// rows once instead, with AVX2/FMA when the CPU has it (checked at run time).
// Measured at 86k x 100 rows, 16 columns, 1 thread: x^T @ g 4 ms against
// BLAS's 7 ms; x @ wt 6 ms against 5 ms (so the op keeps BLAS for that one).
// Torch-free; row-major float32; parallel over row ranges by the caller.
#pragma once

#include <cstdint>

namespace dg {
namespace kernels {

// True if the AVX2 kernels can run here and the shape is one they serve:
// at most kMaxSkinnyCols output columns.
constexpr int64_t kMaxSkinnyCols = 32;
bool SkinnyMatmulSupported(int64_t cols);

// y[i, :] = x[i, :] @ wt for rows [row_begin, row_end): x is [rows, k],
// wt is [k, m] (the weight transposed), y is [rows, m].
void SkinnyMatmul(const float* x, const float* wt, int64_t k, int64_t m, float* y,
                  int64_t row_begin, int64_t row_end);

// acc[k, m] += x[row_begin:row_end, :]^T @ g[row_begin:row_end, :]: x is
// [rows, k], g is [rows, m], acc is [k, m] (one per thread; sum them after).
void SkinnyMatmulTN(const float* x, const float* g, int64_t k, int64_t m, float* acc,
                    int64_t row_begin, int64_t row_end);

}  // namespace kernels
}  // namespace dg
