// The distgnn wire protocol: frame header, message types and limits.
//
// Every message is one frame: a fixed 32-byte little-endian header followed by
// `payload_length` bytes written by common/net/codec.h. The full format of every
// message is in docs/protocol.md. A response carries the request's id and the
// request's type with kFlagResponse set; an ERROR frame (type kError, same
// request id) replaces a response when a request fails. Request id 0 is for
// one-way frames (HELLO/WELCOME use id 0; heartbeats; streamed frames).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/status.h"

namespace dg {

constexpr uint32_t kFrameMagic = 0x4E474744;  // bytes "DGGN" on the wire
constexpr uint16_t kProtocolVersion = 11;  // 2: HMAC challenge-response handshake; 3: SAMPLE_NEIGHBORS edge_ids flag; 4: PULL_BLOCK; 5: SAMPLE_BLOCK, CHECKPOINT, SAMPLE_NEIGHBORS fanouts per edge type; 6: MINIBATCH edge and node types; 7: SAMPLE_BLOCK skip; 8: EPOCH input path, MINIBATCH input_neigh_mean and 16-bit rows; 9: SPARSE_UPDATE weight_decay; 10: SAMPLE_BLOCK history; 11: CHECKPOINT keep best, restore best
constexpr size_t kFrameHeaderSize = 32;
constexpr int64_t kDefaultMaxFrameBytes = int64_t(1) << 30;  // payload limit, 1 GiB

// Header flags.
constexpr uint32_t kFlagResponse = 1u << 0;  // this frame answers request `request_id`

enum class MsgType : uint16_t {
  // Connection management (both directions).
  kHello = 1,
  kWelcome = 2,
  kError = 3,
  kHeartbeat = 4,
  kChallenge = 5,  // acceptor -> dialer, handshake (common/net/handshake.h)
  kAuth = 6,       // dialer -> acceptor, handshake
  // Graph server requests (client -> server; answered with the same type | response flag).
  kPull = 16,
  kPush = 17,
  kInitTensor = 18,
  kSampleNeighbors = 19,
  kInDegrees = 20,
  kMetadata = 21,
  kBarrier = 22,
  kStats = 23,
  kShutdown = 24,
  kSparseUpdate = 25,
  kSaveTensor = 26,
  kPullAggregate = 27,  // common/net/pull_aggregate.h
  kPullBlock = 28,      // an input block's rows and partial sums: common/net/pull_block.h
  kSampleBlock = 29,    // block 0 sampled and partly summed where its destinations live: pull_block.h
  kCheckpoint = 32,     // save or load a step checkpoint of the mutable tensors (docs/protocol.md)
  // Sampler <-> trainer stream; numbers reserved here.
  kEpoch = 64,
  kCredit = 65,
  kMinibatch = 66,
  kEndOfEpoch = 67,
  // Trainer <-> trainer: one piece of the gradient ring all-reduce over TLS
  // (common/net/ring_allreduce.h).
  kGradChunk = 80,
};

// "PULL", "SAMPLE_NEIGHBORS", ...; "TYPE_<n>" for an unknown number.
std::string MsgTypeName(uint16_t type);
bool IsKnownMsgType(uint16_t type);

struct FrameHeader {
  uint32_t magic = kFrameMagic;
  uint16_t version = kProtocolVersion;
  uint16_t type = 0;
  uint32_t flags = 0;
  uint32_t reserved = 0;  // must be 0
  uint64_t request_id = 0;
  uint64_t payload_length = 0;

  bool is_response() const { return (flags & kFlagResponse) != 0; }
};

// Writes exactly kFrameHeaderSize bytes, little-endian.
void EncodeFrameHeader(const FrameHeader& h, uint8_t* out);
// Parses the bytes; checks magic, version and the payload limit. The message
// says exactly what was wrong ("bad magic 0x12345678 (expected 0x4e474744)").
Result<FrameHeader> DecodeFrameHeader(const uint8_t* in, int64_t max_payload_bytes);

// The graph-server request range: [kPull, kLastServerRequest].
constexpr MsgType kLastServerRequest = MsgType::kCheckpoint;

// Roles named in HELLO.
constexpr const char* kRoleServer = "server";
constexpr const char* kRoleSampler = "sampler";
constexpr const char* kRoleTrainer = "trainer";
constexpr const char* kRoleClient = "client";  // tools, tests, benchmarks

// ERROR payload codes: Status::Code values (status.h) travel as u8.
}  // namespace dg
