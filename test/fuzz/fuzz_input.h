// Helpers shared by the libFuzzer targets: wrap fuzz bytes as a received frame
// (8-byte-aligned heap copy, as Connection delivers payloads).
#pragma once

#include <cstdint>
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
