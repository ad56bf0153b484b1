#include "common/net/wire_dtype.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "common/net/table_rows.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace dg {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t Load16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

void Store16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

}  // namespace

// Rows of float16: x86's F16C instructions convert 8 values at a time with
// the same results as FloatToHalf / HalfToFloat (compared over every float32
// and every float16; only the payload bits of a NaN may differ). The scalar
// functions do the tails and CPUs without F16C.
namespace {

#if defined(__x86_64__)
#define DG_F16C __attribute__((target("avx,f16c")))

// AVX (which also says the OS saves the YMM registers) and CPUID.1:ECX.F16C
// (bit 29); clang's __builtin_cpu_supports does not know "f16c".
bool HasF16c() {
  static const bool yes = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
  }();
  return yes;
}

DG_F16C int64_t FloatsToHalvesF16c(const float* in, int64_t n, uint8_t* out) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  return i;
}

DG_F16C int64_t HalvesToFloatsF16c(const uint8_t* in, int64_t n, float* out, bool add) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i)));
    if (add) v = _mm256_add_ps(_mm256_loadu_ps(out + i), v);
    _mm256_storeu_ps(out + i, v);
  }
  return i;
}

DG_F16C int64_t RoundToHalvesF16c(float* v, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(v + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(v + i), _MM_FROUND_TO_NEAREST_INT)));
  return i;
}
#else
bool HasF16c() { return false; }
int64_t FloatsToHalvesF16c(const float*, int64_t, uint8_t*) { return 0; }
int64_t HalvesToFloatsF16c(const uint8_t*, int64_t, float*, bool) { return 0; }
int64_t RoundToHalvesF16c(float*, int64_t) { return 0; }
#endif

// in[0..n) as little-endian float16 into out[0..2n).
void FloatsToHalves(const float* in, int64_t n, uint8_t* out) {
  for (int64_t i = HasF16c() ? FloatsToHalvesF16c(in, n, out) : 0; i < n; ++i) Store16(out + 2 * i, FloatToHalf(in[i]));
}

// n float16 values widened into out (add: added to out).
void HalvesToFloats(const uint8_t* in, int64_t n, float* out, bool add) {
  int64_t i = HasF16c() ? HalvesToFloatsF16c(in, n, out, add) : 0;
  if (add)
    for (; i < n; ++i) out[i] += HalfToFloat(Load16(in + 2 * i));
  else
    for (; i < n; ++i) out[i] = HalfToFloat(Load16(in + 2 * i));
}

// n float32 values as 16-bit wire values of type t (float16 or bfloat16).
void FloatsToWire16(WireDType t, const float* in, int64_t n, uint8_t* out) {
  if (t == WireDType::kFloat16) {
    FloatsToHalves(in, n, out);
  } else {
    for (int64_t i = 0; i < n; ++i) Store16(out + 2 * i, FloatToBFloat16(in[i]));
  }
}

}  // namespace

const char* WireDTypeName(WireDType t) {
  switch (t) {
    case WireDType::kFloat32: return "float32";
    case WireDType::kFloat16: return "float16";
    case WireDType::kBFloat16: return "bfloat16";
  }
  return "unknown";
}

size_t WireDTypeSize(WireDType t) { return t == WireDType::kFloat32 ? 4 : 2; }

Result<WireDType> ParseWireDType(const std::string& what, const std::string& text) {
  for (WireDType t : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16})
    if (text == WireDTypeName(t)) return t;
  return Status::InvalidArgument(what + ": unknown wire dtype '" + text + "' (expected float32, float16 or bfloat16)");
}

Result<WireDType> WireDTypeFromCode(uint8_t code) {
  if (code > 2) return Status::InvalidArgument("wire dtype code " + std::to_string(code) + " (expected 0 float32, 1 float16, 2 bfloat16)");
  return static_cast<WireDType>(code);
}

// Round to nearest even without branches on the value's bits where possible
// (F. Giesen's float_to_half_fast3_rtne): subnormal results use the FPU's own
// round-to-nearest-even by adding a magic number that aligns the bits.
uint16_t FloatToHalf(float f) {
  uint32_t x = Bits(f);
  const uint32_t sign = x & 0x80000000u;
  x ^= sign;
  uint32_t o;
  if (x >= (127u + 16u) << 23) {  // >= 65536, inf or NaN
    o = x > (255u << 23) ? 0x7e00u : 0x7c00u;
  } else if (x < (113u << 23)) {  // below 2^-14: subnormal or zero
    const uint32_t magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    o = Bits(FromBits(x) + FromBits(magic)) - magic;
  } else {
    const uint32_t mant_odd = (x >> 13) & 1u;
    x += ((15u - 127u) << 23) + 0xfffu;  // rebias the exponent, round half up ...
    x += mant_odd;                        // ... or half to even
    o = x >> 13;
  }
  return static_cast<uint16_t>(o | (sign >> 16));
}

float HalfToFloat(uint16_t h) {
  const uint32_t shifted_exp = 0x7c00u << 13;
  uint32_t o = (h & 0x7fffu) << 13;
  const uint32_t exp = shifted_exp & o;
  o += (127u - 15u) << 23;
  if (exp == shifted_exp) {
    o += (128u - 16u) << 23;  // inf / NaN
  } else if (exp == 0) {      // zero / subnormal: renormalise through the FPU
    o += 1u << 23;
    o = Bits(FromBits(o) - FromBits(113u << 23));
  }
  return FromBits(o | ((h & 0x8000u) << 16));
}

uint16_t FloatToBFloat16(float f) {
  const uint32_t x = Bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float BFloat16ToFloat(uint16_t b) { return FromBits(static_cast<uint32_t>(b) << 16); }

void RoundLikeWire(WireDType t, float* v, int64_t n) {
  if (t == WireDType::kFloat16) {
    for (int64_t i = HasF16c() ? RoundToHalvesF16c(v, n) : 0; i < n; ++i) v[i] = HalfToFloat(FloatToHalf(v[i]));
  } else if (t == WireDType::kBFloat16) {
    for (int64_t i = 0; i < n; ++i) v[i] = BFloat16ToFloat(FloatToBFloat16(v[i]));
  }
}

void EncodeWireRows(Encoder* e, WireDType t, const float* rows, int64_t n, int64_t elems,
                    std::shared_ptr<void> holder) {
  e->U8(static_cast<uint8_t>(t));
  Array a;
  if (t == WireDType::kFloat32) {
    a.dtype = DType::kFloat32;
    a.shape = {n, elems};
    if (holder) {
      a.data = const_cast<float*>(rows);
      a.holder = std::move(holder);
    } else {
      a = Array::Zeros(DType::kFloat32, {n, elems});
      if (n * elems > 0) std::memcpy(a.data, rows, static_cast<size_t>(n * elems) * 4);
    }
    e->ArrayRef(a);
    return;
  }
  a = Array::TryUninitialized(DType::kUInt8, {n, 2 * elems}, "wire rows").value();  // every byte written
  FloatsToWire16(t, rows, n * elems, static_cast<uint8_t*>(a.data));
  e->ArrayRef(a);
}

void EncodeTableWireRows(Encoder* e, WireDType t, const RowTable& table, int64_t elems, const int32_t* rows,
                         int64_t r) {
  e->U8(static_cast<uint8_t>(t));
  if (t == WireDType::kFloat32) {
    e->ArrayHeadFor(DType::kFloat32, {r, elems});
    AppendTableRows(e, table, rows, static_cast<size_t>(r));
    return;
  }
  e->ArrayHeadFor(DType::kUInt8, {r, 2 * elems});
  const size_t out_row = static_cast<size_t>(elems) * 2;
  if (out_row == 0) return;
  const int64_t per_chunk = std::max<int64_t>(1, static_cast<int64_t>(kStageBytes / out_row));
  for (int64_t at = 0; at < r; at += per_chunk) {
    const int64_t k = std::min(per_chunk, r - at);
    std::shared_ptr<uint8_t> chunk(new uint8_t[static_cast<size_t>(k) * out_row], std::default_delete<uint8_t[]>());
    for (int64_t i = 0; i < k; ++i) {
      const int64_t row = static_cast<int64_t>(rows[at + i]) - table.first_id;
      const float* in = reinterpret_cast<const float*>(table.base + static_cast<size_t>(row) * table.row_bytes);
      FloatsToWire16(t, in, elems, chunk.get() + static_cast<size_t>(i) * out_row);
    }
    e->BytesRef(chunk.get(), static_cast<size_t>(k) * out_row, std::shared_ptr<void>(chunk));
  }
}

void WireRowsView::Row(int64_t i, float* out) const {
  if (type == WireDType::kFloat32) {
    std::memcpy(out, data + i * elems * 4, static_cast<size_t>(elems) * 4);
    return;
  }
  const uint8_t* p = data + i * elems * 2;
  if (type == WireDType::kFloat16) {
    HalvesToFloats(p, elems, out, /*add=*/false);
  } else {
    for (int64_t j = 0; j < elems; ++j) out[j] = BFloat16ToFloat(Load16(p + 2 * j));
  }
}

void WireRowsView::AddRow(int64_t i, float* out) const {
  if (type == WireDType::kFloat32) {
    // Blocks of 8 so that -O2 vectorizes the adds (the payload may be unaligned: memcpy).
    const uint8_t* p = data + i * elems * 4;
    int64_t j = 0;
    for (; j + 8 <= elems; j += 8) {
      float v[8];
      std::memcpy(v, p + 4 * j, sizeof v);
      for (int k = 0; k < 8; ++k) out[j + k] += v[k];
    }
    for (; j < elems; ++j) {
      float v;
      std::memcpy(&v, p + 4 * j, 4);
      out[j] += v;
    }
    return;
  }
  const uint8_t* p = data + i * elems * 2;
  if (type == WireDType::kFloat16) {
    HalvesToFloats(p, elems, out, /*add=*/true);
  } else {
    for (int64_t j = 0; j < elems; ++j) out[j] += BFloat16ToFloat(Load16(p + 2 * j));
  }
}

Status DecodeWireRows(Decoder* d, WireDType expect_type, int64_t n, int64_t elems, const std::string& what,
                      WireRowsView* out) {
  const uint8_t code = d->U8();
  Array a = d->ArrayView();
  DG_RETURN_IF_ERROR(d->status());
  if (code != static_cast<uint8_t>(expect_type))
    return Status::Protocol(what + ": rows come as wire dtype code " + std::to_string(code) + ", asked for " +
                            WireDTypeName(expect_type));
  const DType want = expect_type == WireDType::kFloat32 ? DType::kFloat32 : DType::kUInt8;
  const int64_t width = expect_type == WireDType::kFloat32 ? elems : 2 * elems;
  if (a.dtype != want || a.shape.size() != 2 || a.shape[0] != n || a.shape[1] != width)
    return Status::Protocol(what + ": rows are " + DTypeName(a.dtype) + " " + a.ShapeString() + ", expected " +
                            DTypeName(want) + " [" + std::to_string(n) + ", " + std::to_string(width) + "]");
  out->type = expect_type;
  out->data = static_cast<const uint8_t*>(a.data);
  out->rows = n;
  out->elems = elems;
  return Status::OK();
}

}  // namespace dg
