// float16 / bfloat16 wire conversions against an independent reference: the
// nearest representable value found by search over every finite 16-bit value
// (ties to the even bit pattern), and every float16 widened by its formula.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/net/wire_dtype.h"
#include "common/storage/neighbor_sampling.h"

using namespace dg;

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

// binary16 by its definition: (-1)^s x 2^(e-15) x 1.m, subnormals 2^-14 x 0.m.
double HalfValue(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1024 + m, e - 25);
  return s ? -v : v;
}

// Round to nearest, ties to even, by search over the non-negative finite halves.
uint16_t ReferenceHalf(float f) {
  if (std::isnan(f)) return 0x7e00;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7c00;  // half-way past 65504 and above: inf
  uint16_t lo = 0, hi = 0x7bff;             // largest finite with value <= a
  while (lo < hi) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (HalfValue(mid) <= a) lo = mid;
    else hi = static_cast<uint16_t>(mid - 1);
  }
  if (HalfValue(lo) == a || lo == 0x7bff) return sign | lo;
  const uint16_t up = static_cast<uint16_t>(lo + 1);
  const double dl = a - HalfValue(lo), du = HalfValue(up) - a;
  if (dl < du) return sign | lo;
  if (du < dl) return sign | up;
  return sign | ((lo & 1) ? up : lo);
}

uint16_t ReferenceBFloat16(float f) {
  if (std::isnan(f)) return 0;  // checked separately
  const uint32_t x = Bits(f);
  const uint32_t down = x & 0xffff0000u, up = down + 0x10000u;
  const double a = std::fabs(static_cast<double>(f));
  const double dl = a - std::fabs(static_cast<double>(FromBits(down)));
  const double du = std::fabs(static_cast<double>(FromBits(up))) - a;  // up may be inf: du = inf unless a ties
  if ((up & 0x7f800000u) == 0x7f800000u && (down & 0x7fffffffu) == 0x7f7f0000u) {
    // Past the largest finite bfloat16: compare with 2^128 as the next step.
    const double next = std::ldexp(1.0, 128);
    const double d2 = next - a;
    if (dl < d2) return static_cast<uint16_t>(down >> 16);
    if (d2 < dl) return static_cast<uint16_t>(up >> 16);
    return static_cast<uint16_t>(((down >> 16) & 1) ? up >> 16 : down >> 16);
  }
  if (dl < du) return static_cast<uint16_t>(down >> 16);
  if (du < dl) return static_cast<uint16_t>(up >> 16);
  return static_cast<uint16_t>(((down >> 16) & 1) ? up >> 16 : down >> 16);
}

std::vector<float> Probes() {
  std::vector<float> v{0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f, 65536.0f, 1e9f, 1e-8f,
                       std::ldexp(1.0f, -24), std::ldexp(1.0f, -25), std::ldexp(3.0f, -26), std::ldexp(1.0f, -14),
                       std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min(),
                       std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  // Every half, the midpoints to the next one (exact ties) and one float ulp either side.
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float x = static_cast<float>(HalfValue(static_cast<uint16_t>(h)));
    const float mid = static_cast<float>((HalfValue(static_cast<uint16_t>(h)) + HalfValue(static_cast<uint16_t>(h + 1))) / 2);
    for (float y : {x, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      v.push_back(y);
      v.push_back(-y);
    }
  }
  Rng rng(42);
  for (int i = 0; i < 300000; ++i) {  // random bit patterns (all exponents) and typical feature values
    const float r = FromBits(static_cast<uint32_t>(rng.Next()));
    if (!std::isnan(r)) v.push_back(r);
    v.push_back(static_cast<float>(static_cast<double>(rng.Uniform(2000000)) / 1e5 - 10.0));
  }
  return v;
}

}  // namespace

TEST_CASE("float16 rounds to nearest even, with subnormals, overflow and NaN", "[wire]") {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const double want = HalfValue(static_cast<uint16_t>(h));
    const float got = HalfToFloat(static_cast<uint16_t>(h));
    INFO("half 0x" << std::hex << h);
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got));
    } else {
      REQUIRE(static_cast<double>(got) == want);
      REQUIRE(std::signbit(got) == static_cast<bool>(h & 0x8000));
      if ((h & 0x7c00) != 0x7c00) REQUIRE(FloatToHalf(got) == h);  // round trip
    }
  }
  for (float f : Probes()) {
    INFO("float " << f << " bits 0x" << std::hex << Bits(f));
    REQUIRE(FloatToHalf(f) == ReferenceHalf(f));
  }
  const uint16_t nan = FloatToHalf(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan & 0x7c00) == 0x7c00);
  CHECK((nan & 0x3ff) != 0);
}

TEST_CASE("bfloat16 rounds to nearest even and keeps NaN", "[wire]") {
  for (float f : Probes()) {
    INFO("float " << f << " bits 0x" << std::hex << Bits(f));
    const uint16_t b = FloatToBFloat16(f);
    REQUIRE(b == ReferenceBFloat16(f));
    REQUIRE(Bits(BFloat16ToFloat(b)) == static_cast<uint32_t>(b) << 16);
  }
  const uint16_t nan = FloatToBFloat16(FromBits(0x7f800001u));  // a NaN whose payload sits in the low half
  CHECK(std::isnan(BFloat16ToFloat(nan)));
}

TEST_CASE("wire rows encode and decode in each dtype", "[wire]") {
  const int64_t n = 3, elems = 5;
  std::vector<float> rows(n * elems);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = 0.1f * static_cast<float>(i) - 0.7f;
  for (WireDType t : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16}) {
    Encoder e;
    EncodeWireRows(&e, t, rows.data(), n, elems);
    const std::string bytes = e.Finish().Flatten();
    auto holder = std::make_shared<std::string>(bytes);
    Decoder d(holder->data(), holder->size(), holder, "test");
    WireRowsView v;
    REQUIRE(DecodeWireRows(&d, t, n, elems, "test", &v).ok());
    REQUIRE(d.Finish().ok());
    std::vector<float> got(elems), acc(elems, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
      v.Row(i, got.data());
      v.AddRow(i, acc.data());
      for (int64_t j = 0; j < elems; ++j) {
        const float x = rows[i * elems + j];
        const float want = t == WireDType::kFloat32   ? x
                           : t == WireDType::kFloat16 ? HalfToFloat(FloatToHalf(x))
                                                      : BFloat16ToFloat(FloatToBFloat16(x));
        REQUIRE(got[j] == want);
      }
    }
    // A reader that expects another dtype or shape refuses the rows.
    Decoder d2(holder->data(), holder->size(), holder, "test");
    CHECK(!DecodeWireRows(&d2, t, n + 1, elems, "test", &v).ok());
    Decoder d3(holder->data(), holder->size(), holder, "test");
    CHECK(!DecodeWireRows(&d3, t == WireDType::kFloat32 ? WireDType::kFloat16 : WireDType::kFloat32, n, elems, "test",
                          &v).ok());
  }
  CHECK(!ParseWireDType("train.feature_wire_dtype", "half").ok());
  CHECK(ParseWireDType("x", "bfloat16").value() == WireDType::kBFloat16);
}

// Rows take a vector path (F16C on x86) and a scalar tail: both must give the
// scalar functions' values for every probe, in every position of a row.
TEST_CASE("float16 wire rows convert like FloatToHalf and HalfToFloat", "[wire]") {
  std::vector<float> probes = Probes();
  const int64_t elems = 13;  // one block of 8 and a tail of 5
  probes.resize(probes.size() - probes.size() % elems);
  const int64_t n = static_cast<int64_t>(probes.size()) / elems;
  Encoder e;
  EncodeWireRows(&e, WireDType::kFloat16, probes.data(), n, elems);
  const std::string bytes = e.Finish().Flatten();
  auto holder = std::make_shared<std::string>(bytes);
  Decoder d(holder->data(), holder->size(), holder, "test");
  WireRowsView v;
  REQUIRE(DecodeWireRows(&d, WireDType::kFloat16, n, elems, "test", &v).ok());
  std::vector<float> got(elems), acc(elems), rounded(probes);
  RoundLikeWire(WireDType::kFloat16, rounded.data(), static_cast<int64_t>(rounded.size()));
  for (int64_t i = 0; i < n; ++i) {
    v.Row(i, got.data());
    for (int64_t j = 0; j < elems; ++j) acc[j] = 0.5f;
    v.AddRow(i, acc.data());
    for (int64_t j = 0; j < elems; ++j) {
      const float x = probes[i * elems + j];
      const float want = HalfToFloat(FloatToHalf(x));
      INFO("float bits 0x" << std::hex << Bits(x) << " at " << std::dec << j);
      REQUIRE(Bits(got[j]) == Bits(want));
      REQUIRE(Bits(rounded[i * elems + j]) == Bits(want));
      REQUIRE(Bits(acc[j]) == Bits(0.5f + want));
    }
  }
}
