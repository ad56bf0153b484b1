#include "common/net/codec.h"

#include <cstring>

namespace dg {
namespace {
constexpr size_t kChunkReserve = 256;
constexpr size_t kMaxNdim = 8;
}  // namespace

std::string BufferList::Flatten() const {
  std::string s;
  s.reserve(total_);
  for (const Segment& seg : segments_) s.append(static_cast<const char*>(seg.data), seg.size);
  return s;
}

Encoder::Encoder() {}

void Encoder::Raw(const void* p, size_t n) {
  if (!chunk_) {
    chunk_ = std::make_shared<std::string>();
    chunk_->reserve(kChunkReserve);
    chunk_start_ = size_;
  }
  chunk_->append(static_cast<const char*>(p), n);
  size_ += n;
}

void Encoder::CloseChunk() {
  if (!chunk_) return;
  if (!chunk_->empty()) {
    out_.segments_.push_back({chunk_->data(), chunk_->size()});
    out_.total_ += chunk_->size();
    out_.holders_.push_back(chunk_);
  }
  chunk_.reset();
}

void Encoder::External(const void* p, size_t n, std::shared_ptr<void> holder) {
  if (n == 0) return;
  const bool open_chunk = chunk_ != nullptr && !chunk_->empty();
  CloseChunk();
  std::vector<BufferList::Segment>& segs = out_.segments_;
  if (!open_chunk && !segs.empty() && static_cast<const uint8_t*>(segs.back().data) + segs.back().size == p) {
    segs.back().size += n;  // adjacent to the previous range: the same bytes in one segment
  } else {
    segs.push_back({p, n});
  }
  out_.total_ += n;
  // One reference per run of ranges with the same owner (rows of one mapping).
  if (holder && (out_.holders_.empty() || out_.holders_.back() != holder)) out_.holders_.push_back(std::move(holder));
  size_ += n;
}

void Encoder::U16(uint16_t v) {
  uint8_t b[2] = {uint8_t(v), uint8_t(v >> 8)};
  Raw(b, 2);
}
void Encoder::U32(uint32_t v) {
  uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = uint8_t(v >> (8 * i));
  Raw(b, 4);
}
void Encoder::U64(uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
  Raw(b, 8);
}
void Encoder::F64(double v) {
  uint64_t u;
  std::memcpy(&u, &v, 8);
  U64(u);
}
void Encoder::String(const std::string& s) {
  U32(static_cast<uint32_t>(s.size()));
  Raw(s.data(), s.size());
}

void Encoder::ArrayHeader(DType dtype, const std::vector<int64_t>& shape, uint64_t nbytes) {
  U8(static_cast<uint8_t>(dtype));
  U8(static_cast<uint8_t>(shape.size()));
  for (int64_t d : shape) I64(d);
  U64(nbytes);
  static const uint8_t zeros[8] = {0};
  size_t pad = (8 - size_ % 8) % 8;
  if (pad) Raw(zeros, pad);
}

void Encoder::ArrayRef(const Array& a) {
  DG_CHECK(a.shape.size() <= kMaxNdim);
  ArrayHeader(a.dtype, a.shape, a.nbytes());
  if (a.nbytes() <= 64) {
    Raw(a.data, a.nbytes());  // tiny arrays: copying beats a segment
  } else {
    External(a.data, a.nbytes(), a.holder);
  }
}

void Encoder::Ids(std::vector<int64_t> ids) {
  auto holder = std::make_shared<std::vector<int64_t>>(std::move(ids));
  ArrayHeader(DType::kInt64, {static_cast<int64_t>(holder->size())}, holder->size() * 8);
  if (holder->size() <= 8) {
    Raw(holder->data(), holder->size() * 8);
  } else {
    External(holder->data(), holder->size() * 8, holder);
  }
}

void Encoder::Ids(const int64_t* ids, size_t n) {
  ArrayHeader(DType::kInt64, {static_cast<int64_t>(n)}, n * 8);
  Raw(ids, n * 8);
}

void Encoder::ArrayHeadFor(DType dtype, const std::vector<int64_t>& shape) {
  DG_CHECK(shape.size() <= kMaxNdim);
  int64_t elems = 1;
  for (int64_t d : shape) elems *= d;
  ArrayHeader(dtype, shape, static_cast<uint64_t>(elems) * DTypeSize(dtype));
}

std::string Encoder::ArrayHead(DType dtype, const std::vector<int64_t>& shape) {
  Encoder e;
  e.ArrayHeadFor(dtype, shape);
  return e.Finish().Flatten();
}

BufferList Encoder::Finish() {
  CloseChunk();
  BufferList out = std::move(out_);
  out_ = BufferList();
  size_ = 0;
  return out;
}

// ---------------------------------------------------------------- Decoder

Decoder::Decoder(const void* data, size_t size, std::shared_ptr<void> holder, std::string what)
    : data_(static_cast<const uint8_t*>(data)), size_(size), holder_(std::move(holder)),
      what_(std::move(what)) {}

void Decoder::Fail(const std::string& msg) {
  if (status_.ok()) status_ = Status::Protocol(what_ + ": " + msg);
  pos_ = size_;
}

bool Decoder::Need(size_t n, const char* field) {
  if (!status_.ok()) return false;
  if (n > size_ - pos_) {
    Fail("truncated payload: " + std::string(field) + " needs " + std::to_string(n) +
         " bytes at offset " + std::to_string(pos_) + " but the payload has " +
         std::to_string(size_) + " bytes");
    return false;
  }
  return true;
}

uint8_t Decoder::U8() {
  if (!Need(1, "u8")) return 0;
  return data_[pos_++];
}
uint16_t Decoder::U16() {
  if (!Need(2, "u16")) return 0;
  uint16_t v = uint16_t(data_[pos_] | (data_[pos_ + 1] << 8));
  pos_ += 2;
  return v;
}
uint32_t Decoder::U32() {
  if (!Need(4, "u32")) return 0;
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | data_[pos_ + i];
  pos_ += 4;
  return v;
}
uint64_t Decoder::U64() {
  if (!Need(8, "u64")) return 0;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | data_[pos_ + i];
  pos_ += 8;
  return v;
}
double Decoder::F64() {
  uint64_t u = U64();
  double v;
  std::memcpy(&v, &u, 8);
  return v;
}
bool Decoder::Bool() {
  uint8_t v = U8();
  if (v > 1) Fail("bool field has value " + std::to_string(v));
  return v == 1;
}
std::string Decoder::String() {
  uint32_t n = U32();
  if (!Need(n, "string")) return std::string();
  std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
  pos_ += n;
  return s;
}

Array Decoder::ArrayView() {
  Array a;
  uint8_t dt = U8();
  uint8_t ndim = U8();
  if (!status_.ok()) return Array();
  if (dt > static_cast<uint8_t>(DType::kBool)) {
    Fail("unknown dtype code " + std::to_string(dt));
    return Array();
  }
  if (ndim > kMaxNdim) {
    Fail("array rank " + std::to_string(ndim) + " exceeds " + std::to_string(kMaxNdim));
    return Array();
  }
  a.dtype = static_cast<DType>(dt);
  a.shape.resize(ndim);
  // Overflow-safe element count: every dim must be in [0, kMaxDim] and the
  // product of the non-zero dims at most kMaxElems (so numel() never
  // overflows anywhere later); the product must then match nbytes, which
  // itself must fit in the payload.
  unsigned __int128 elems = 1, nonzero = 1;
  for (auto& d : a.shape) {
    d = I64();
    if (!status_.ok()) return Array();
    if (d < 0) {
      Fail("negative array dimension " + std::to_string(d));
      return Array();
    }
    if (d > kMaxDim) {
      Fail("array dimension " + std::to_string(d) + " exceeds the limit of " + std::to_string(kMaxDim));
      return Array();
    }
    elems *= static_cast<uint64_t>(d);
    if (d > 0) nonzero *= static_cast<uint64_t>(d);
    if (nonzero > (unsigned __int128)kMaxElems) {
      Fail("array shape " + a.ShapeString() + " has more than " + std::to_string(kMaxElems) + " elements");
      return Array();
    }
  }
  uint64_t nbytes = U64();
  size_t pad = (8 - pos_ % 8) % 8;
  if (!Need(pad, "array padding")) return Array();
  pos_ += pad;
  if (!status_.ok()) return Array();
  if (elems * DTypeSize(a.dtype) != nbytes) {
    Fail("array byte count " + std::to_string(nbytes) + " does not match shape " +
         a.ShapeString() + " of " + DTypeName(a.dtype));
    return Array();
  }
  if (!Need(nbytes, "array data")) return Array();
  a.data = const_cast<uint8_t*>(data_ + pos_);
  a.holder = holder_;
  pos_ += nbytes;
  return a;
}

Array Decoder::Ids() {
  Array a = ArrayView();
  if (!status_.ok()) return a;
  if (a.dtype != DType::kInt64 || a.shape.size() != 1) {
    Fail("id array must be int64 with one dimension, got " + std::string(DTypeName(a.dtype)) +
         " " + a.ShapeString());
    return Array();
  }
  return a;
}

Status Decoder::Finish() {
  if (status_.ok() && pos_ != size_) {
    Fail(std::to_string(size_ - pos_) + " unexpected trailing bytes at offset " +
         std::to_string(pos_));
  }
  return status_;
}

}  // namespace dg
