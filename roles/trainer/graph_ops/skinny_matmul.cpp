#include "roles/trainer/graph_ops/skinny_matmul.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace dg {
namespace kernels {
namespace {

#define DG_AVX2 __attribute__((target("avx2,fma")))
#define DG_AVX512 __attribute__((target("avx512f")))

// Software prefetch of x, this many bytes ahead of the rows being multiplied.
// The kernels run at ~1 zmm FMA/cycle (the FMA throughput of this Zen 4 class
// CPU: 16 independent chains reach 3.7 G/s), and without prefetch the cold
// reads of x did not overlap that arithmetic (86k x 100 x 16: 2.5 ms on
// L2-resident x, 5 ms streamed from DRAM). One prefetch per feature step,
// spread over the loop, covers the R rows' bytes once; issuing them all at a
// row group's start, or hinting only into L2 (T1), was slower. 4 KB (10 rows
// of 100 features) measured best of 2..16 KB.
constexpr int64_t kPrefetchBytes = 4096;

// ---- AVX2: 8-float vectors ------------------------------------------------

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
    const char* ahead = reinterpret_cast<const char*>(x + i * k) + kPrefetchBytes;
    for (int64_t kk = 0; kk < k; ++kk) {
      _mm_prefetch(ahead + kk * R * sizeof(float), _MM_HINT_T0);
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
    const char* ahead = reinterpret_cast<const char*>(x + i * k) + kPrefetchBytes;
    for (int64_t kk = 0; kk < k; ++kk) {
      _mm_prefetch(ahead + kk * R * sizeof(float), _MM_HINT_T0);
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

// ---- AVX-512: 16-float vectors, masked at the last column -----------------

__mmask16 LastMask(int64_t m) {
  const int64_t rem = m % 16;
  return rem == 0 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << rem) - 1);
}

// y rows R at a time: per feature kk, V weight vectors from L1 and R
// broadcasts of x feed R * V independent FMA chains.
template <int V, int R>
DG_AVX512 void MatmulRows512(const float* x, const float* wt_pad, int64_t k, int64_t m, float* y,
                             int64_t begin, int64_t end) {
  const __mmask16 last = LastMask(m);
  int64_t i = begin;
  for (; i + R <= end; i += R) {
    __m512 acc[R][V];
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
    const float* xr = x + i * k;
    const char* ahead = reinterpret_cast<const char*>(xr) + kPrefetchBytes;
    for (int64_t kk = 0; kk < k; ++kk) {
      _mm_prefetch(ahead + kk * R * sizeof(float), _MM_HINT_T0);
      __m512 w[V];
      for (int v = 0; v < V; ++v) w[v] = _mm512_loadu_ps(wt_pad + kk * V * 16 + v * 16);
      for (int r = 0; r < R; ++r) {
        const __m512 b = _mm512_set1_ps(xr[r * k + kk]);
        for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(b, w[v], acc[r][v]);
      }
    }
    for (int r = 0; r < R; ++r) {
      float* yr = y + (i + r) * m;
      for (int v = 0; v + 1 < V; ++v) _mm512_storeu_ps(yr + v * 16, acc[r][v]);
      _mm512_mask_storeu_ps(yr + (V - 1) * 16, last, acc[r][V - 1]);
    }
  }
  if (i < end) MatmulRows512<V, 1>(x, wt_pad, k, m, y, i, end);
}

// acc_pad += x[rows]^T @ g[rows], R rows at a time: their g rows stay in
// registers; per feature kk the accumulator row is loaded once, takes R
// broadcast FMAs (two independent chains) and is stored back.
template <int V, int R>
DG_AVX512 void MatmulTNRows512(const float* x, const float* g, int64_t k, int64_t m, float* acc_pad,
                               int64_t begin, int64_t end) {
  const __mmask16 last = LastMask(m);
  int64_t i = begin;
  for (; i + R <= end; i += R) {
    __m512 gv[R][V];
    for (int r = 0; r < R; ++r) {
      const float* gr = g + (i + r) * m;
      for (int v = 0; v + 1 < V; ++v) gv[r][v] = _mm512_loadu_ps(gr + v * 16);
      gv[r][V - 1] = _mm512_maskz_loadu_ps(last, gr + (V - 1) * 16);
    }
    const float* xr = x + i * k;
    const char* ahead = reinterpret_cast<const char*>(xr) + kPrefetchBytes;
    for (int64_t kk = 0; kk < k; ++kk) {
      _mm_prefetch(ahead + kk * R * sizeof(float), _MM_HINT_T0);
      for (int v = 0; v < V; ++v) {
        float* a = acc_pad + kk * V * 16 + v * 16;
        __m512 s0 = _mm512_loadu_ps(a), s1 = _mm512_setzero_ps();
        for (int r = 0; r < R; r += 2) {
          s0 = _mm512_fmadd_ps(_mm512_set1_ps(xr[r * k + kk]), gv[r][v], s0);
          if (r + 1 < R) s1 = _mm512_fmadd_ps(_mm512_set1_ps(xr[(r + 1) * k + kk]), gv[r + 1][v], s1);
        }
        _mm512_storeu_ps(a, _mm512_add_ps(s0, s1));
      }
    }
  }
  if (i < end) MatmulTNRows512<V, 1>(x, g, k, m, acc_pad, i, end);
}

// ---- dispatch --------------------------------------------------------------

// What the CPU has, lowered by DISTGNN_SIMD=avx2|none if set (to compare
// levels, or to keep a mixed cluster on one code path).
SimdLevel DetectedLevel() {
  static const SimdLevel level = [] {
    SimdLevel cpu = SimdLevel::kNone;
    if (__builtin_cpu_supports("avx512f")) cpu = SimdLevel::kAvx512;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) cpu = SimdLevel::kAvx2;
    const char* env = std::getenv("DISTGNN_SIMD");
    if (env == nullptr) return cpu;
    const std::string want = env;
    if (want == "none") return SimdLevel::kNone;
    if (want == "avx2") return std::min(cpu, SimdLevel::kAvx2);
    if (want != "avx512")
      std::fprintf(stderr, "distgnn: DISTGNN_SIMD=%s ignored (expected avx512, avx2 or none)\n", env);
    return cpu;
  }();
  return level;
}

std::atomic<int> g_forced_level{-1};

// Weight rows padded to `width` floats (zeros beyond m), so vector loads never
// read past a row.
std::vector<float> PadRows(const float* wt, int64_t k, int64_t m, int64_t width) {
  std::vector<float> pad(static_cast<size_t>(k * width), 0.0f);
  if (wt != nullptr)
    for (int64_t kk = 0; kk < k; ++kk) std::memcpy(&pad[kk * width], wt + kk * m, sizeof(float) * m);
  return pad;
}

}  // namespace

SimdLevel CurrentSimdLevel() {
  const int forced = g_forced_level.load(std::memory_order_relaxed);
  if (forced >= 0) return static_cast<SimdLevel>(std::min(forced, static_cast<int>(DetectedLevel())));
  return DetectedLevel();
}

void SetSimdLevel(SimdLevel level) { g_forced_level.store(static_cast<int>(level)); }

const char* SimdLevelName(SimdLevel level) {
  switch (level) {
    case SimdLevel::kAvx512: return "avx512";
    case SimdLevel::kAvx2: return "avx2";
    default: return "none";
  }
}

bool SkinnyMatmulSupported(int64_t cols) {
  return CurrentSimdLevel() != SimdLevel::kNone && cols > 0 && cols <= kMaxSkinnyCols;
}

void SkinnyMatmul(const float* x, const float* wt, int64_t k, int64_t m, float* y,
                  int64_t row_begin, int64_t row_end) {
  if (CurrentSimdLevel() == SimdLevel::kAvx512) {
    const int V = static_cast<int>((m + 15) / 16);
    std::vector<float> pad = PadRows(wt, k, m, V * 16);
    if (V == 1) MatmulRows512<1, 8>(x, pad.data(), k, m, y, row_begin, row_end);
    else MatmulRows512<2, 4>(x, pad.data(), k, m, y, row_begin, row_end);
    return;
  }
  const int V = static_cast<int>((m + 7) / 8);
  std::vector<float> pad = PadRows(wt, k, m, V * 8);
  switch (V) {
    case 1: MatmulRows<1, 4>(x, pad.data(), k, m, y, row_begin, row_end); break;
    case 2: MatmulRows<2, 4>(x, pad.data(), k, m, y, row_begin, row_end); break;
    case 3: MatmulRows<3, 2>(x, pad.data(), k, m, y, row_begin, row_end); break;
    default: MatmulRows<4, 2>(x, pad.data(), k, m, y, row_begin, row_end); break;
  }
}

void SkinnyMatmulTN(const float* x, const float* g, int64_t k, int64_t m, float* acc,
                    int64_t row_begin, int64_t row_end) {
  const bool avx512 = CurrentSimdLevel() == SimdLevel::kAvx512;
  const int V = avx512 ? static_cast<int>((m + 15) / 16) : static_cast<int>((m + 7) / 8);
  const int64_t width = avx512 ? V * 16 : V * 8;
  std::vector<float> pad = PadRows(nullptr, k, m, width);
  if (avx512) {
    if (V == 1) MatmulTNRows512<1, 8>(x, g, k, m, pad.data(), row_begin, row_end);
    else MatmulTNRows512<2, 4>(x, g, k, m, pad.data(), row_begin, row_end);
  } else {
    switch (V) {
      case 1: MatmulTNRows<1, 4>(x, g, k, m, pad.data(), row_begin, row_end); break;
      case 2: MatmulTNRows<2, 4>(x, g, k, m, pad.data(), row_begin, row_end); break;
      case 3: MatmulTNRows<3, 2>(x, g, k, m, pad.data(), row_begin, row_end); break;
      default: MatmulTNRows<4, 2>(x, g, k, m, pad.data(), row_begin, row_end); break;
    }
  }
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < m; ++j) acc[kk * m + j] += pad[kk * width + j];
}

}  // namespace kernels
}  // namespace dg
