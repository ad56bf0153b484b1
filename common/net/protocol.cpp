#include "common/net/protocol.h"

#include <cstdio>
#include <cstring>

namespace dg {
namespace {

void PutU16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint16_t GetU16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

std::string MsgTypeName(uint16_t type) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kWelcome: return "WELCOME";
    case MsgType::kError: return "ERROR";
    case MsgType::kHeartbeat: return "HEARTBEAT";
    case MsgType::kChallenge: return "CHALLENGE";
    case MsgType::kAuth: return "AUTH";
    case MsgType::kPull: return "PULL";
    case MsgType::kPush: return "PUSH";
    case MsgType::kInitTensor: return "INIT_TENSOR";
    case MsgType::kSampleNeighbors: return "SAMPLE_NEIGHBORS";
    case MsgType::kInDegrees: return "IN_DEGREES";
    case MsgType::kMetadata: return "METADATA";
    case MsgType::kBarrier: return "BARRIER";
    case MsgType::kStats: return "STATS";
    case MsgType::kShutdown: return "SHUTDOWN";
    case MsgType::kSparseUpdate: return "SPARSE_UPDATE";
    case MsgType::kSaveTensor: return "SAVE_TENSOR";
    case MsgType::kPullAggregate: return "PULL_AGGREGATE";
    case MsgType::kPullBlock: return "PULL_BLOCK";
    case MsgType::kSampleBlock: return "SAMPLE_BLOCK";
    case MsgType::kCheckpoint: return "CHECKPOINT";
    case MsgType::kEpoch: return "EPOCH";
    case MsgType::kCredit: return "CREDIT";
    case MsgType::kMinibatch: return "MINIBATCH";
    case MsgType::kEndOfEpoch: return "END_OF_EPOCH";
    case MsgType::kGradChunk: return "GRAD_CHUNK";
  }
  return "TYPE_" + std::to_string(type);
}

bool IsKnownMsgType(uint16_t type) { return MsgTypeName(type).rfind("TYPE_", 0) != 0; }

void EncodeFrameHeader(const FrameHeader& h, uint8_t* out) {
  PutU32(out + 0, h.magic);
  PutU16(out + 4, h.version);
  PutU16(out + 6, h.type);
  PutU32(out + 8, h.flags);
  PutU32(out + 12, h.reserved);
  PutU64(out + 16, h.request_id);
  PutU64(out + 24, h.payload_length);
}

Result<FrameHeader> DecodeFrameHeader(const uint8_t* in, int64_t max_payload_bytes) {
  FrameHeader h;
  h.magic = GetU32(in + 0);
  h.version = GetU16(in + 4);
  h.type = GetU16(in + 6);
  h.flags = GetU32(in + 8);
  h.reserved = GetU32(in + 12);
  h.request_id = GetU64(in + 16);
  h.payload_length = GetU64(in + 24);
  char buf[160];
  if (h.magic != kFrameMagic) {
    std::snprintf(buf, sizeof(buf), "bad frame magic 0x%08x (expected 0x%08x): not a distgnn peer",
                  h.magic, kFrameMagic);
    return Status::Protocol(buf);
  }
  if (h.version != kProtocolVersion) {
    std::snprintf(buf, sizeof(buf), "protocol version %u not supported (this build speaks %u)",
                  unsigned(h.version), unsigned(kProtocolVersion));
    return Status::Protocol(buf);
  }
  if (h.payload_length > static_cast<uint64_t>(max_payload_bytes)) {
    std::snprintf(buf, sizeof(buf), "frame payload of %llu bytes exceeds the limit of %lld bytes (%s)",
                  static_cast<unsigned long long>(h.payload_length),
                  static_cast<long long>(max_payload_bytes), MsgTypeName(h.type).c_str());
    return Status::Protocol(buf);
  }
  return h;
}

}  // namespace dg
