// Dense products with a narrow side, the shape of a GNN's input layer: many
// node rows (10^4..10^6) of K features times a weight of few output columns.
//
// BLAS packs the tall matrix into panels before multiplying; for 16 output
// columns that copy costs as much as the arithmetic. These kernels stream the
// rows once instead, with AVX-512 or AVX2/FMA, whichever the CPU has (checked
// at run time; none = the caller uses BLAS). Measured at 86k x 100 rows, 16
// columns, 1 thread, AVX-512 on an AMD EPYC (Zen 4 class; `distgnn bench
// kernels`, docs/performance.md): x @ w^T 2.9 ms, x^T @ g 3.0 ms, where a
// memcpy of x takes 3.6 ms and BLAS 5.5 / 7.2 ms. That is near the FMA bound:
// 8.6 M zmm FMAs at this CPU's ~1 zmm FMA/cycle take 2.35 ms (the kernels
// reach 2.5 ms on L2-resident x). Prefetching x ~4 KB ahead is what lets the
// DRAM reads overlap the arithmetic (without it: ~5.0 and ~5.3 ms). Fewer
// broadcasts per FMA would not help here: FMAs with a broadcast operand run at
// the same rate as register-only ones.
// Torch-free; row-major float32; parallel over row ranges by the caller.
#pragma once

#include <cstdint>

namespace dg {
namespace kernels {

// The instruction sets the kernels are written for, best last.
enum class SimdLevel { kNone = 0, kAvx2 = 1, kAvx512 = 2 };

// The best level this CPU runs, or the one forced by SetSimdLevel.
SimdLevel CurrentSimdLevel();
// For tests and benchmarks: use `level` (clamped to what the CPU has) from now on.
void SetSimdLevel(SimdLevel level);
const char* SimdLevelName(SimdLevel level);

// True if a kernel can run here and the shape is one they serve: at most
// kMaxSkinnyCols output columns.
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
