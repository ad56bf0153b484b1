// The graph server's tensor handlers (handler_table.h): writes to mutable
// tensors, their creation, persistence and sparse optimizer steps.
#include <spdlog/spdlog.h>

#include "roles/server/graph_server.h"
#include "roles/server/handler_table.h"

namespace dg {

Result<Answer> HandlePush(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(PushRequest req, DecodePush(call.frame));
  DG_RETURN_IF_ERROR(ctx.store.Push(req.name, req.ids.as<int64_t>(), req.ids.numel(), req.rows, req.mode));
  return Answer(BufferList());
}

Result<Answer> HandleInitTensor(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(InitTensorSpec spec, DecodeInitTensor(call.frame));
  bool created = false;
  DG_RETURN_IF_ERROR(ctx.store.InitTensor(spec, &created));
  if (created) {
    spdlog::info("created mutable tensor '{}' {} with {} rows here", spec.name, DTypeName(spec.dtype),
                 ctx.store.partition().num_owned());
  }
  Encoder e;
  e.Bool(created);
  return Answer(e.Finish());
}

Result<Answer> HandleSaveTensor(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(SaveTensorRequest req, DecodeSaveTensor(call.frame));
  DG_RETURN_IF_ERROR(ctx.store.SaveTensor(req.name, ctx.part_dir));
  spdlog::info("saved tensor '{}' to {}/tensors/{}.npy", req.name, ctx.part_dir, req.name);
  return Answer(BufferList());
}

// Answered when its step completes (sparse_steps.h): the contribution is
// checked against the tensor at once, so an invalid one gets its ERROR and
// does not count.
Result<Answer> HandleSparseUpdate(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(SparseUpdateRequest req, DecodeSparseUpdate(call.frame));
  DG_RETURN_IF_ERROR(ctx.store.CheckSparseGrad(req.name, req.optimizer, req.step, SparseGrad{req.ids, req.grads}));
  DG_RETURN_IF_ERROR(
      ctx.sparse_steps.Contribute(std::move(req), static_cast<int64_t>(call.frame.size), call.Later()));
  return Answer();
}

}  // namespace dg
