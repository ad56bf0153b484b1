#include "roles/trainer/graph_ops/skinny_matmul.h"

#include <immintrin.h>

#include <cstring>
#include <vector>

namespace dg {
namespace kernels {
namespace {

#define DG_AVX2 __attribute__((target("avx2,fma")))

// Rows are processed R at a time with V 8-float vectors per row, so R * V
// independent accumulators hide the FMA latency without spilling registers.
template <int V, int R>
DG_AVX2 void MatmulRows(const float* x, const float* wt_pad, int64_t k, int64_t m, float* y,
                        int64_t begin, int64_t end) {
  int64_t i = begin;
  float tmp[V * 8];
  for (; i + R <= end; i += R) {
    __m256 acc[R][V];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
    for (int64_t kk = 0; kk < k; ++kk) {
      __m256 w[V];
      for (int v = 0; v < V; ++v) w[v] = _mm256_loadu_ps(wt_pad + kk * V * 8 + v * 8);
      for (int r = 0; r < R; ++r) {
        const __m256 b = _mm256_broadcast_ss(x + (i + r) * k + kk);
        for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(b, w[v], acc[r][v]);
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int v = 0; v < V; ++v) _mm256_storeu_ps(tmp + v * 8, acc[r][v]);
      std::memcpy(y + (i + r) * m, tmp, sizeof(float) * m);
    }
  }
  for (; i < end; ++i) MatmulRows<V, 1>(x, wt_pad, k, m, y, i, i + 1);
}

template <int V, int R>
DG_AVX2 void MatmulTNRows(const float* x, const float* g, int64_t k, int64_t m, float* acc_pad,
                          int64_t begin, int64_t end) {
  int64_t i = begin;
  for (; i + R <= end; i += R) {
    __m256 gv[R][V];
    for (int r = 0; r < R; ++r) {
      float row[V * 8] = {};
      std::memcpy(row, g + (i + r) * m, sizeof(float) * m);
      for (int v = 0; v < V; ++v) gv[r][v] = _mm256_loadu_ps(row + v * 8);
    }
    for (int64_t kk = 0; kk < k; ++kk) {
      for (int v = 0; v < V; ++v) {
        float* a = acc_pad + kk * V * 8 + v * 8;
        __m256 s = _mm256_loadu_ps(a);
        for (int r = 0; r < R; ++r)
          s = _mm256_fmadd_ps(_mm256_broadcast_ss(x + (i + r) * k + kk), gv[r][v], s);
        _mm256_storeu_ps(a, s);
      }
    }
  }
  for (; i < end; ++i) MatmulTNRows<V, 1>(x, g, k, m, acc_pad, i, i + 1);
}

int Vectors(int64_t m) { return static_cast<int>((m + 7) / 8); }

}  // namespace

bool SkinnyMatmulSupported(int64_t cols) {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return avx2 && cols > 0 && cols <= kMaxSkinnyCols;
}

void SkinnyMatmul(const float* x, const float* wt, int64_t k, int64_t m, float* y,
                  int64_t row_begin, int64_t row_end) {
  const int V = Vectors(m);
  std::vector<float> pad(static_cast<size_t>(k * V * 8), 0.0f);  // wt with rows padded to V*8
  for (int64_t kk = 0; kk < k; ++kk) std::memcpy(&pad[kk * V * 8], wt + kk * m, sizeof(float) * m);
  switch (V) {
    case 1: MatmulRows<1, 4>(x, pad.data(), k, m, y, row_begin, row_end); break;
    case 2: MatmulRows<2, 4>(x, pad.data(), k, m, y, row_begin, row_end); break;
    case 3: MatmulRows<3, 2>(x, pad.data(), k, m, y, row_begin, row_end); break;
    default: MatmulRows<4, 2>(x, pad.data(), k, m, y, row_begin, row_end); break;
  }
}

void SkinnyMatmulTN(const float* x, const float* g, int64_t k, int64_t m, float* acc,
                    int64_t row_begin, int64_t row_end) {
  const int V = Vectors(m);
  std::vector<float> pad(static_cast<size_t>(k * V * 8), 0.0f);
  switch (V) {
    case 1: MatmulTNRows<1, 4>(x, g, k, m, pad.data(), row_begin, row_end); break;
    case 2: MatmulTNRows<2, 4>(x, g, k, m, pad.data(), row_begin, row_end); break;
    case 3: MatmulTNRows<3, 2>(x, g, k, m, pad.data(), row_begin, row_end); break;
    default: MatmulTNRows<4, 2>(x, g, k, m, pad.data(), row_begin, row_end); break;
  }
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < m; ++j) acc[kk * m + j] += pad[kk * V * 8 + j];
}

}  // namespace kernels
}  // namespace dg
