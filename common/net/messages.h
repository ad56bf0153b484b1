// Payloads of the graph-server messages (PULL ... SAVE_TENSOR): one struct per
// request/response, with Encode*/Decode* written once and used by both the
// server and the client. Field order is the wire order (docs/protocol.md).
// Decoded Arrays borrow the frame's payload memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/sample_spec.h"
#include "common/base/sparse_optimizer_spec.h"
#include "common/base/tensor_spec.h"
#include "common/net/codec.h"
#include "common/net/connection.h"

namespace dg {

struct PullRequest {
  TensorKind kind = TensorKind::kNode;  // kNode (node or mutable tensor) or kEdge
  std::string name;
  Array ids;  // int64 [n], global node (or edge) ids
};
// PULL response: Array rows [n, row shape...].

struct PushRequest {
  std::string name;
  PushMode mode = PushMode::kOverwrite;
  Array ids;   // int64 [n]
  Array rows;  // [n, row shape...]
};
// PUSH response: empty.

// INIT_TENSOR request: InitTensorSpec. Response: u8 created.

constexpr uint32_t kMaxSparseContributors = 65536;  // W above this is refused

struct SparseUpdateRequest {
  std::string name;
  SparseOptimizerSpec optimizer;
  uint64_t step = 0;           // with name, identifies the step the contributions belong to
  uint32_t contributors = 0;   // W: how many ranks contribute to every step, 1..kMaxSparseContributors
  uint32_t rank = 0;           // this contribution's rank, < contributors
  Array ids;                   // int64 [n], global ids owned by the receiving partition
  Array grads;                 // float32 [n, row shape...]
};
// SPARSE_UPDATE response: empty (sent once the step is applied).

struct SaveTensorRequest {
  std::string name;  // a persistent mutable tensor
};
// SAVE_TENSOR response: empty.

// CHECKPOINT request: u8 action (0 = save, 1 = load, 2 = keep best, 3 =
// restore best), u64 step, u32 keep (save: older step directories kept
// besides this one). Response: empty (save, keep best: once the directory is
// on disk).
enum class CheckpointAction : uint8_t { kSave = 0, kLoad = 1, kKeepBest = 2, kRestoreBest = 3 };
struct CheckpointRequest {
  CheckpointAction action = CheckpointAction::kSave;
  uint64_t step = 0;
  uint32_t keep = 0;
};

// SAMPLE_NEIGHBORS request: seeds, then the SampleSpec's fields in the wire
// order i64 fanout, bool replace, u64 seed, string weight_name, bool
// edge_ids, u32 count + i32 etype_fanouts (empty = untyped).
struct SampleRequest {
  Array seeds;  // int64 [n]
  SampleSpec spec;
};
constexpr size_t kMaxEdgeTypes = 255;  // etype_fanouts longer than this are refused
// SAMPLE_NEIGHBORS response: Array counts int64 [n], Array src int64 [m], Array eids int64 [m or 0],
// and, for a typed request only, Array etypes uint8 [m].

struct InDegreesRequest {
  Array ids;  // int64 [n], global node ids owned by the receiving partition
};
// IN_DEGREES response: Array int64 [n].

struct MetadataReply {
  std::string graph_name;
  int32_t part_id = 0, server_index = 0;
  int64_t num_nodes = 0, num_edges = 0;
  std::vector<int64_t> node_map, edge_map;
  std::vector<TensorMeta> tensors;
};

constexpr size_t kMaxBarrierName = 256;
constexpr uint32_t kMaxBarrierParticipants = 65536;
struct BarrierRequest {
  std::string name;           // at most kMaxBarrierName bytes
  uint32_t participants = 0;  // 1..kMaxBarrierParticipants
};

struct TypeStats {
  std::string type;  // "PULL"
  uint64_t requests = 0, errors = 0, bytes_in = 0, bytes_out = 0;
  double p50_ms = 0, p99_ms = 0;
};
struct StatsReply {
  int32_t part_id = 0, server_index = 0;
  double uptime_s = 0;
  uint64_t connections = 0;
  std::vector<TypeStats> types;
};

void EncodePull(Encoder* e, TensorKind kind, const std::string& name, const Array& ids);
Result<PullRequest> DecodePull(const Frame& f);

void EncodePush(Encoder* e, const std::string& name, PushMode mode, const Array& ids, const Array& rows);
Result<PushRequest> DecodePush(const Frame& f);

void EncodeInitTensor(Encoder* e, const InitTensorSpec& spec);
Result<InitTensorSpec> DecodeInitTensor(const Frame& f);

void EncodeSparseUpdate(Encoder* e, const SparseUpdateRequest& r);
Result<SparseUpdateRequest> DecodeSparseUpdate(const Frame& f);

void EncodeSample(Encoder* e, const Array& seeds, const SampleSpec& spec);
Result<SampleRequest> DecodeSample(const Frame& f);

void EncodeInDegrees(Encoder* e, const Array& ids);
Result<InDegreesRequest> DecodeInDegrees(const Frame& f);

void EncodeSaveTensor(Encoder* e, const std::string& name);
Result<SaveTensorRequest> DecodeSaveTensor(const Frame& f);

void EncodeCheckpoint(Encoder* e, const CheckpointRequest& r);
Result<CheckpointRequest> DecodeCheckpoint(const Frame& f);

// METADATA and STATS requests carry nothing: anything in the payload is refused.
Status DecodeEmptyRequest(const Frame& f);

void EncodeMetadataReply(Encoder* e, const MetadataReply& m);
Result<MetadataReply> DecodeMetadataReply(const Frame& f);

void EncodeBarrier(Encoder* e, const BarrierRequest& b);
Result<BarrierRequest> DecodeBarrier(const Frame& f);

void EncodeStatsReply(Encoder* e, const StatsReply& s);
Result<StatsReply> DecodeStatsReply(const Frame& f);

// Names in requests are at most 1024 bytes (InvalidArgument naming `what`).
Status CheckTensorName(const char* what, const std::string& name);

// Wraps a vector as an int64 [n] Array sharing its memory.
Array IdsArray(std::vector<int64_t> ids);
Array IdsView(const int64_t* ids, size_t n);  // borrows; caller keeps ids alive

}  // namespace dg
