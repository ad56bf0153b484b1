#include "roles/server/handler_table.h"

#include <array>

#include "roles/server/graph_server.h"

namespace dg {
namespace {

constexpr size_t kFirst = static_cast<size_t>(MsgType::kPull);
constexpr size_t kLast = static_cast<size_t>(kLastServerRequest);

struct Table {
  std::array<HandlerEntry, kLast - kFirst + 1> entries{};
  void Add(MsgType t, Handler h, Access a, RunOn r = RunOn::kPool) {
    entries[static_cast<size_t>(t) - kFirst] = HandlerEntry{h, a, r};
  }
};

Table MakeTable() {
  Table t;
  t.Add(MsgType::kPull, HandlePull, Access::kRead);
  t.Add(MsgType::kSampleNeighbors, HandleSampleNeighbors, Access::kRead);
  t.Add(MsgType::kInDegrees, HandleInDegrees, Access::kRead);
  t.Add(MsgType::kMetadata, HandleMetadata, Access::kRead);
  t.Add(MsgType::kStats, HandleStats, Access::kRead);
  t.Add(MsgType::kPullAggregate, HandlePullAggregate, Access::kRead);
  t.Add(MsgType::kPullBlock, HandlePullBlock, Access::kRead);
  t.Add(MsgType::kSampleBlock, HandleSampleBlock, Access::kRead);
  t.Add(MsgType::kPush, HandlePush, Access::kWrite);
  t.Add(MsgType::kInitTensor, HandleInitTensor, Access::kWrite);
  t.Add(MsgType::kSaveTensor, HandleSaveTensor, Access::kWrite);
  t.Add(MsgType::kSparseUpdate, HandleSparseUpdate, Access::kWrite);
  t.Add(MsgType::kCheckpoint, HandleCheckpoint, Access::kWrite);
  t.Add(MsgType::kBarrier, HandleBarrier, Access::kWrite, RunOn::kStrand);
  t.Add(MsgType::kShutdown, HandleShutdown, Access::kStop, RunOn::kStrand);
  return t;
}

}  // namespace

const HandlerEntry* FindHandler(uint16_t type) {
  static const Table table = MakeTable();
  if (type < kFirst || type > kLast) return nullptr;
  const HandlerEntry& e = table.entries[type - kFirst];
  return e.handle ? &e : nullptr;
}

Status ServerContext::CheckAnswerSize(const std::string& what, int64_t bytes) const {
  const int64_t limit = options.connection.max_frame_bytes;
  if (bytes <= limit) return Status::OK();
  return Status::ResourceExhausted(what + ": the answer would be " +
                                   (bytes >= INT64_MAX / 64 ? std::string("too many") : std::to_string(bytes)) +
                                   " bytes, over the frame limit of " + std::to_string(limit) +
                                   " bytes; ask for less per request");
}

DeferredReply Call::Later() const {
  return [conn = conn, id = id(), type = frame.header.type](const Status& st) {
    if (st.ok()) {
      conn->Send(static_cast<MsgType>(type), kFlagResponse, id, BufferList());
    } else {
      conn->SendError(id, st);
    }
  };
}

}  // namespace dg
