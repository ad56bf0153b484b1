// The graph server's handler table: for every request type, the function that
// answers it, who may send it (the role policy, role_policy.h) and where it
// runs. GraphServer looks a frame's type up here, checks the sender's role
// against the entry, and calls the handler (graph_server.cpp); the handlers
// are grouped by concern:
//   read_handlers.cpp        PULL, SAMPLE_NEIGHBORS, IN_DEGREES, METADATA, STATS,
//                            PULL_AGGREGATE, PULL_BLOCK, SAMPLE_BLOCK (block_answers.h)
//   tensor_handlers.cpp      PUSH, INIT_TENSOR, SAVE_TENSOR, SPARSE_UPDATE (sparse_steps.h)
//   coordination_handlers.cpp BARRIER (barriers.h), SHUTDOWN
//   server_checkpoint.cpp    CHECKPOINT
// A handler decodes its request with the codec (common/net/messages.h), checks
// it against the server's limits before any work, and returns its response
// payload, or nothing when the reply is sent later (BARRIER, SPARSE_UPDATE,
// SHUTDOWN), or the error its client gets as an ERROR frame.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/net/connection.h"
#include "common/net/messages.h"
#include "common/storage/partition_store.h"
#include "roles/server/barriers.h"
#include "roles/server/role_policy.h"
#include "roles/server/sparse_steps.h"

namespace dg {

class AggregateIndex;  // common/storage/aggregate_index.h
struct ServerOptions;  // graph_server.h

// What a handler sees of its server.
struct ServerContext {
  const ServerOptions& options;
  const PartitionConfig& config;
  PartitionStore& store;
  const AggregateIndex& aggregate_index;
  const std::string& part_dir;
  Barriers& barriers;
  SparseSteps& sparse_steps;
  std::function<StatsReply()> stats;
  std::function<void(const std::string& why)> shutdown;
  // An answer of `bytes` must fit in a frame: refused before the work is done.
  Status CheckAnswerSize(const std::string& what, int64_t bytes) const;
};

// One request as a handler receives it.
struct Call {
  const Frame& frame;
  std::shared_ptr<Connection> conn;  // for replies sent later
  uint64_t id() const { return frame.header.request_id; }
  // The reply callback of this request (a response of its type, or its ERROR).
  DeferredReply Later() const;
};

// The response payload, or nullopt when the handler answers later.
using Answer = std::optional<BufferList>;
using Handler = Result<Answer> (*)(ServerContext& ctx, const Call& call);

enum class RunOn : uint8_t {
  kPool,    // decoded and answered on a pool thread (FairScheduler order, queued-bytes limit)
  kStrand,  // at once on the connection's strand: BARRIER and SHUTDOWN, which only file or signal
};

struct HandlerEntry {
  Handler handle = nullptr;
  Access access = Access::kRead;
  RunOn run_on = RunOn::kPool;
};

// The entry of request type `type`, or null for a type no graph server answers.
const HandlerEntry* FindHandler(uint16_t type);

// The handlers, by file.
Result<Answer> HandlePull(ServerContext& ctx, const Call& call);
Result<Answer> HandleSampleNeighbors(ServerContext& ctx, const Call& call);
Result<Answer> HandleInDegrees(ServerContext& ctx, const Call& call);
Result<Answer> HandleMetadata(ServerContext& ctx, const Call& call);
Result<Answer> HandleStats(ServerContext& ctx, const Call& call);
Result<Answer> HandlePullAggregate(ServerContext& ctx, const Call& call);
Result<Answer> HandlePullBlock(ServerContext& ctx, const Call& call);
Result<Answer> HandleSampleBlock(ServerContext& ctx, const Call& call);

Result<Answer> HandlePush(ServerContext& ctx, const Call& call);
Result<Answer> HandleInitTensor(ServerContext& ctx, const Call& call);
Result<Answer> HandleSaveTensor(ServerContext& ctx, const Call& call);
Result<Answer> HandleSparseUpdate(ServerContext& ctx, const Call& call);

Result<Answer> HandleBarrier(ServerContext& ctx, const Call& call);
Result<Answer> HandleShutdown(ServerContext& ctx, const Call& call);

Result<Answer> HandleCheckpoint(ServerContext& ctx, const Call& call);

}  // namespace dg
