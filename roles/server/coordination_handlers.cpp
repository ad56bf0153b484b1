// The graph server's coordination handlers (handler_table.h), run on the
// connection's strand: BARRIER files the arrival (barriers.h) and SHUTDOWN
// answers, then stops the server.
#include "roles/server/graph_server.h"
#include "roles/server/handler_table.h"

namespace dg {

Result<Answer> HandleBarrier(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(BarrierRequest req, DecodeBarrier(call.frame));
  DG_RETURN_IF_ERROR(ctx.barriers.Arrive(req.name, req.participants, call.Later()));
  return Answer();
}

// The reply goes out before the drain starts, so it is written before the
// connection closes.
Result<Answer> HandleShutdown(ServerContext& ctx, const Call& call) {
  DG_RETURN_IF_ERROR(DecodeEmptyRequest(call.frame));
  call.conn->Send(MsgType::kShutdown, kFlagResponse, call.id(), BufferList());
  ctx.shutdown("SHUTDOWN from " + call.conn->peer());
  return Answer();
}

}  // namespace dg
