// How float32 feature rows travel on the wire: as float32, or rounded to
// float16 (IEEE binary16) or bfloat16 (the top half of a float32) to halve
// the bytes (`train.feature_wire_dtype`). Arithmetic stays float32 on both
// sides: a server converts rows just before it sends them, the receiver
// widens them back to float32 exactly (every float16/bfloat16 is a float32).
//
// Rounding is IEEE round-to-nearest-even. float16 overflows to +-inf above
// 65504, keeps subnormals down to 2^-24 and flushes below that to +-0; NaN
// stays NaN (quiet; x86 rows converted with F16C keep part of its payload).
// bfloat16 has float32's range; NaN stays NaN.
//
// Wire rows (common/net/protocol.md, PULL_BLOCK): `u8 wire_dtype, array data`,
// data float32 [rows, elems] for float32, and for the 16-bit types uint8
// [rows, 2 x elems] holding the little-endian 16-bit values. Torch-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/array.h"
#include "common/net/codec.h"
#include "common/base/status.h"

namespace dg {

enum class WireDType : uint8_t { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

const char* WireDTypeName(WireDType t);
size_t WireDTypeSize(WireDType t);
// "float32" | "float16" | "bfloat16"; anything else is InvalidArgument naming `what`.
Result<WireDType> ParseWireDType(const std::string& what, const std::string& text);
// A wire dtype code read from a payload: 0..2, else InvalidArgument.
Result<WireDType> WireDTypeFromCode(uint8_t code);

uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);
uint16_t FloatToBFloat16(float f);
float BFloat16ToFloat(uint16_t b);

// Rounds v[0..n) in place to what a receiver of them as wire rows of type t
// reads (float32: unchanged): the same rounding as EncodeWireRows + Row.
void RoundLikeWire(WireDType t, float* v, int64_t n);
// Appends rows x elems float32 values as wire rows of type t (float32 rows
// are referenced, not copied, when `holder` keeps them alive).
void EncodeWireRows(Encoder* e, WireDType t, const float* rows, int64_t n, int64_t elems,
                    std::shared_ptr<void> holder = nullptr);

// Appends rows[0..r) of a float32 [*, elems] table (row offsets from
// table.first_id, any order, duplicates allowed) as wire rows of type t,
// without gathering them first: float32 rows by reference
// (common/net/table_rows.h), 16-bit rows converted a chunk of at most
// kStageBytes at a time. The same bytes as EncodeWireRows of the gathered rows.
void EncodeTableWireRows(Encoder* e, WireDType t, const RowTable& table, int64_t elems, const int32_t* rows,
                         int64_t r);

// Reads wire rows and checks they are `expect_type`, n rows of `elems`
// values; on success *data points into the payload (valid while the frame is).
struct WireRowsView {
  WireDType type = WireDType::kFloat32;
  const uint8_t* data = nullptr;
  int64_t rows = 0, elems = 0;
  // Row i as float32 into out[0..elems).
  void Row(int64_t i, float* out) const;
  // out[j] += row i value j.
  void AddRow(int64_t i, float* out) const;
};
Status DecodeWireRows(Decoder* d, WireDType expect_type, int64_t n, int64_t elems, const std::string& what,
                      WireRowsView* out);

}  // namespace dg
