// Helpers shared by the libFuzzer targets: wrap fuzz bytes as a received frame
// (8-byte-aligned heap copy, as Connection delivers payloads), and check that
// what a decoder accepted encodes back to the same bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "common/net/connection.h"

namespace dg::fuzz {

inline Frame MakeFrame(MsgType type, const uint8_t* data, size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (size) std::memcpy(p, data, size);
  Frame f;
  f.header.type = static_cast<uint16_t>(type);
  f.header.payload_length = size;
  f.holder = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  f.data = static_cast<const uint8_t*>(p);
  f.size = size;
  return f;
}

}  // namespace dg::fuzz

namespace dg::fuzz {

// Where a target writes its per-input scratch files: /dev/shm when there is
// one (a file system in memory: a disk's open/close dominated every input).
inline std::string ScratchRoot() {
  std::error_code ec;
  return std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : "/tmp";
}

}  // namespace dg::fuzz

namespace dg::fuzz {

// Stops the run with a crash libFuzzer reports (and keeps the input) when a
// round trip does not hold.
inline void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz: round trip broken: %s\n", what);
    std::abort();
  }
}

// True when `encoded` is the input bytes, except that the `pad` bytes at
// `pad_at` (an Array's alignment padding, which the decoder skips) are zero in
// `encoded` whatever they were in the input.
inline bool SameBytes(const std::string& encoded, const uint8_t* data, size_t size, size_t pad_at = 0,
                      size_t pad = 0) {
  if (encoded.size() != size) return false;
  for (size_t i = 0; i < size; ++i) {
    const bool in_pad = i >= pad_at && i < pad_at + pad;
    if (in_pad ? encoded[i] != 0 : static_cast<uint8_t>(encoded[i]) != data[i]) return false;
  }
  return true;
}

// The alignment padding after an Array's head (u8 dtype, u8 ndim, ndim x i64
// shape, u64 nbytes) that starts at payload offset `at`.
inline size_t ArrayPadAt(size_t at, size_t ndim) { return at + 2 + 8 * ndim + 8; }
inline size_t ArrayPad(size_t at, size_t ndim) { return (8 - ArrayPadAt(at, ndim) % 8) % 8; }

// Two arrays with the same dtype, shape and bytes.
inline bool SameArray(const Array& a, const Array& b) {
  return a.dtype == b.dtype && a.shape == b.shape &&
         (a.nbytes() == 0 || std::memcmp(a.data, b.data, a.nbytes()) == 0);
}

}  // namespace dg::fuzz
