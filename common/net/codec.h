// The one payload codec of the wire protocol (format: docs/protocol.md).
//
// Encoder appends little-endian primitives, strings and Arrays to a BufferList:
// small fields go to owned chunks, while an Array's bytes are *referenced* (the
// Array's holder is kept alive) so tensor data reaches the socket through
// scatter/gather buffers without being copied into a temporary string.
//
// Array encoding: u8 dtype, u8 ndim, ndim x i64 shape, u64 nbytes, then 0-7 zero
// bytes so the data starts at a payload offset that is a multiple of 8, then the
// raw C-ordered bytes. Id arrays are int64 1-d Arrays. The alignment lets the
// Decoder hand out Arrays that borrow the received payload (no copy).
//
// Decoder reads one payload. A read past the end (truncated payload) or a
// malformed field makes it fail: later reads return zeros, and status() says
// exactly what was wrong and where. Nothing it returns is valid unless
// status().ok() (check once, after the last read; Finish() also rejects
// trailing bytes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

// A payload as a list of byte ranges plus whatever keeps them alive.
class BufferList {
 public:
  struct Segment {
    const void* data;
    size_t size;
  };
  size_t size() const { return total_; }
  const std::vector<Segment>& segments() const { return segments_; }
  // Concatenated copy (tests, tiny frames).
  std::string Flatten() const;

 private:
  friend class Encoder;
  std::vector<Segment> segments_;
  std::vector<std::shared_ptr<void>> holders_;
  size_t total_ = 0;
};

class Encoder {
 public:
  Encoder();
  void U8(uint8_t v) { Raw(&v, 1); }
  void U16(uint16_t v);
  void U32(uint32_t v);
  void U64(uint64_t v);
  void I32(int32_t v) { U32(static_cast<uint32_t>(v)); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v);
  void Bool(bool v) { U8(v ? 1 : 0); }
  void String(const std::string& s);  // u32 length + bytes
  // An Array, bytes by reference (zero copy); the holder is kept alive.
  void ArrayRef(const Array& a);
  // An int64 id array; the vector is moved into the buffer list (zero copy).
  void Ids(std::vector<int64_t> ids);
  // Copies ids (small arrays).
  void Ids(const int64_t* ids, size_t n);
  // Copies n bytes as they are (no length prefix).
  void Bytes(const void* p, size_t n) { Raw(p, n); }
  // n bytes by reference (zero copy); `holder` keeps them alive until the
  // payload is written. A range that starts where the previous referenced one
  // ends extends it (one segment for a run of adjacent rows).
  void BytesRef(const void* p, size_t n, std::shared_ptr<void> holder) { External(p, n, std::move(holder)); }
  // The head of an Array of this dtype and shape whose bytes the caller
  // appends next, piece by piece (Bytes, BytesRef): the same bytes as
  // ArrayRef of that Array, for data that is not one Array in memory.
  void ArrayHeadFor(DType dtype, const std::vector<int64_t>& shape);

  size_t size() const { return size_; }
  // Finishes and returns the payload; the Encoder is empty afterwards.
  BufferList Finish();

  // The bytes ArrayRef writes before the data of an Array of this dtype and
  // shape when the Array starts a payload: a receiver that knows what a reply
  // holds predicts its head and reads the data straight into place.
  static std::string ArrayHead(DType dtype, const std::vector<int64_t>& shape);

 private:
  void Raw(const void* p, size_t n);
  void External(const void* p, size_t n, std::shared_ptr<void> holder);
  void CloseChunk();
  void ArrayHeader(DType dtype, const std::vector<int64_t>& shape, uint64_t nbytes);

  // Chunks are heap strings whose addresses stay put once closed.
  std::shared_ptr<std::string> chunk_;
  size_t chunk_start_ = 0;  // payload offset where chunk_ begins
  BufferList out_;
  size_t size_ = 0;
};

class Decoder {
 public:
  // `holder` keeps data alive; Arrays returned borrow it.
  Decoder(const void* data, size_t size, std::shared_ptr<void> holder, std::string what);
  uint8_t U8();
  uint16_t U16();
  uint32_t U32();
  uint64_t U64();
  int32_t I32() { return static_cast<int32_t>(U32()); }
  int64_t I64() { return static_cast<int64_t>(U64()); }
  double F64();
  bool Bool();
  std::string String();
  // An Array that borrows the payload (aligned by the encoder's padding).
  Array ArrayView();
  // An int64 1-d Array (an id array); other dtypes/ranks fail.
  Array Ids();

  size_t offset() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  const Status& status() const { return status_; }
  // status(), plus an error if bytes are left over.
  Status Finish();
  void Fail(const std::string& msg);

 private:
  bool Need(size_t n, const char* field);
  const uint8_t* data_;
  size_t size_, pos_ = 0;
  std::shared_ptr<void> holder_;
  std::string what_;
  Status status_;
};

}  // namespace dg
