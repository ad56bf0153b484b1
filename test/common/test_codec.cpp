// Codec and frame-header round trips, zero-copy encoding, and exact errors on
// malformed payloads.
#include <catch2/catch.hpp>
#include <cstring>

#include "common/net/codec.h"
#include "common/net/protocol.h"

using namespace dg;

namespace {
Decoder DecoderOf(const std::string& s) {
  auto holder = std::make_shared<std::string>(s);
  return Decoder(holder->data(), holder->size(), holder, "test");
}
}  // namespace

TEST_CASE("codec round-trips primitives and strings", "[codec]") {
  Encoder e;
  e.U8(200);
  e.U16(65000);
  e.U32(4000000000u);
  e.U64(0x0123456789ABCDEFull);
  e.I32(-5);
  e.I64(-1234567890123LL);
  e.F64(3.25);
  e.Bool(true);
  e.String("");
  e.String("hello \0 world");
  e.String(std::string(1000, 'x'));
  std::string bytes = e.Finish().Flatten();
  Decoder d = DecoderOf(bytes);
  CHECK(d.U8() == 200);
  CHECK(d.U16() == 65000);
  CHECK(d.U32() == 4000000000u);
  CHECK(d.U64() == 0x0123456789ABCDEFull);
  CHECK(d.I32() == -5);
  CHECK(d.I64() == -1234567890123LL);
  CHECK(d.F64() == 3.25);
  CHECK(d.Bool());
  CHECK(d.String().empty());
  CHECK(d.String() == std::string("hello \0 world"));
  CHECK(d.String() == std::string(1000, 'x'));
  CHECK(d.Finish().ok());
  // Little-endian on the wire.
  CHECK(static_cast<uint8_t>(bytes[1]) == (65000 & 0xFF));
}

TEST_CASE("codec round-trips arrays of every dtype and rank, aligned", "[codec]") {
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kInt64, DType::kInt32, DType::kInt8, DType::kUInt8,
                  DType::kBool}) {
    for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{{}, {0}, {7}, {3, 5}, {2, 0, 4}, {2, 3, 4}}) {
      Array a = Array::Zeros(t, shape);
      auto* p = static_cast<uint8_t*>(a.data);
      for (size_t i = 0; i < a.nbytes(); ++i) p[i] = static_cast<uint8_t>(t == DType::kBool ? i % 2 : i * 7 + 1);
      Encoder e;
      e.U8(1);  // misalign on purpose
      e.ArrayRef(a);
      e.String("tail");
      std::string bytes = e.Finish().Flatten();
      Decoder d(bytes.data(), bytes.size(), nullptr, "test");
      CHECK(d.U8() == 1);
      Array b = d.ArrayView();
      CHECK(d.String() == "tail");
      REQUIRE(d.Finish().ok());
      CHECK(b.dtype == t);
      CHECK(b.shape == shape);
      CHECK((static_cast<const char*>(b.data) - bytes.data()) % 8 == 0);
      CHECK(std::memcmp(a.data, b.data, a.nbytes()) == 0);
    }
  }
}

TEST_CASE("codec references tensor bytes instead of copying them", "[codec]") {
  Array a = Array::Zeros(DType::kFloat32, {1000, 100});
  std::vector<int64_t> ids(5000, 42);
  const int64_t* ids_data = ids.data();
  Encoder e;
  e.String("features");
  e.ArrayRef(a);
  e.Ids(std::move(ids));
  BufferList bl = e.Finish();
  bool found_rows = false, found_ids = false;
  for (const auto& seg : bl.segments()) {
    found_rows |= seg.data == a.data && seg.size == a.nbytes();
    found_ids |= seg.data == ids_data && seg.size == 5000 * 8;
  }
  CHECK(found_rows);
  CHECK(found_ids);
  // The payload keeps the moved ids alive and decodes to the same values.
  std::string flat = bl.Flatten();
  Decoder d = DecoderOf(flat);
  d.String();
  Array rows = d.ArrayView();
  Array got = d.Ids();
  REQUIRE(d.Finish().ok());
  CHECK(rows.shape == std::vector<int64_t>{1000, 100});
  CHECK(got.numel() == 5000);
  CHECK(got.as<int64_t>()[4999] == 42);
}

TEST_CASE("decoder reports truncation, bad fields and trailing bytes exactly", "[codec]") {
  Encoder e;
  e.U32(7);
  e.String("abcdef");
  std::string bytes = e.Finish().Flatten();
  {
    Decoder d = DecoderOf(bytes.substr(0, 6));
    d.U32();
    d.String();
    CHECK(d.status().code() == Status::Code::kProtocol);
    CHECK(d.status().message() == "test: truncated payload: u32 needs 4 bytes at offset 4 but the payload has 6 bytes");
  }
  {
    Decoder d = DecoderOf(bytes.substr(0, 12));
    d.U32();
    CHECK(d.String().empty());
    CHECK(d.status().message().find("string needs 6 bytes at offset 8") != std::string::npos);
  }
  {
    Decoder d = DecoderOf(bytes + "zz");
    d.U32();
    d.String();
    CHECK(d.Finish().message() == "test: 2 unexpected trailing bytes at offset 14");
  }
  {
    Encoder a;
    a.U8(42);  // bad dtype code
    a.U8(1);
    Decoder d = DecoderOf(a.Finish().Flatten());
    d.ArrayView();
    CHECK(d.status().message() == "test: unknown dtype code 42");
  }
  {
    Encoder a;
    a.U8(uint8_t(DType::kFloat32));
    a.U8(2);
    a.I64(4);
    a.I64(-1);
    Decoder d = DecoderOf(a.Finish().Flatten());
    d.ArrayView();
    CHECK(d.status().message() == "test: negative array dimension -1");
  }
  {
    Encoder a;
    a.U8(uint8_t(DType::kInt64));
    a.U8(1);
    a.I64(INT64_MAX);
    a.U64(8);
    a.U64(0);  // padding to 8 (offset 18 -> 24) and 8 bytes of "data"
    a.U64(0);
    Decoder d = DecoderOf(a.Finish().Flatten());
    d.ArrayView();
    CHECK(d.status().message() == "test: array dimension 9223372036854775807 exceeds the limit of 281474976710656");
  }
  {  // dims within bounds whose product would overflow int64 (numel) are refused
    Encoder a;
    a.U8(uint8_t(DType::kInt64));
    a.U8(3);
    a.I64(int64_t(1) << 40);
    a.I64(int64_t(1) << 40);
    a.I64(0);
    a.U64(0);
    Decoder d = DecoderOf(a.Finish().Flatten());
    d.ArrayView();
    CHECK(d.status().message().find("has more than 72057594037927936 elements") != std::string::npos);
  }
  {
    Encoder a;
    a.U8(2);
    Decoder d = DecoderOf(a.Finish().Flatten());
    d.Bool();
    CHECK(d.status().message() == "test: bool field has value 2");
  }
}

TEST_CASE("frame header round trip and validation", "[codec][protocol]") {
  FrameHeader h;
  h.type = uint16_t(MsgType::kSampleNeighbors);
  h.flags = kFlagResponse;
  h.request_id = 0xDEADBEEFCAFEull;
  h.payload_length = 12345;
  uint8_t b[kFrameHeaderSize];
  EncodeFrameHeader(h, b);
  CHECK(std::memcmp(b, "DGGN", 4) == 0);
  auto r = DecodeFrameHeader(b, 1 << 20);
  REQUIRE(r.ok());
  CHECK(r->type == h.type);
  CHECK(r->is_response());
  CHECK(r->request_id == h.request_id);
  CHECK(r->payload_length == 12345);

  auto big = DecodeFrameHeader(b, 100);
  CHECK(big.status().message() == "frame payload of 12345 bytes exceeds the limit of 100 bytes (SAMPLE_NEIGHBORS)");
  b[0] = 'X';
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message().find("bad frame magic") == 0);
  EncodeFrameHeader(h, b);
  b[4] = 1;  // a version-1 peer (before the authenticated handshake)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 1 not supported (this build speaks 11)");
  b[4] = 2;  // a version-2 peer (SAMPLE_NEIGHBORS without the edge_ids flag)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 2 not supported (this build speaks 11)");
  b[4] = 3;  // a version-3 peer (no PULL_BLOCK)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 3 not supported (this build speaks 11)");
  b[4] = 6;  // a version-6 peer (SAMPLE_BLOCK without skip)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 6 not supported (this build speaks 11)");
  b[4] = 7;  // a version-7 peer (MINIBATCH rows in float32 only)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 7 not supported (this build speaks 11)");
  b[4] = 8;  // a version-8 peer (SPARSE_UPDATE without weight_decay)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 8 not supported (this build speaks 11)");
  b[4] = 9;  // a version-9 peer (SAMPLE_BLOCK without stored rows)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 9 not supported (this build speaks 11)");
  b[4] = 10;  // a version-10 peer (CHECKPOINT without keep best / restore best)
  CHECK(DecodeFrameHeader(b, 1 << 20).status().message() == "protocol version 10 not supported (this build speaks 11)");
  CHECK(MsgTypeName(29) == "SAMPLE_BLOCK");
  CHECK(MsgTypeName(66) == "MINIBATCH");
  CHECK(MsgTypeName(1000) == "TYPE_1000");
  CHECK(!IsKnownMsgType(99));
}
