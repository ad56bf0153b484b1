// The graph server's read handlers (handler_table.h): rows, samples, degrees
// and the server's own description. None writes; a sampler may send each.
#include <spdlog/spdlog.h>

#include <string>

#include "common/net/pull_aggregate.h"
#include "common/net/table_rows.h"
#include "common/storage/aggregate_index.h"
#include "roles/server/block_answers.h"
#include "roles/server/graph_server.h"
#include "roles/server/handler_table.h"

namespace dg {
namespace {

std::string SampleWhat(const SampleRequest& req) {
  const SampleSpec& s = req.spec;
  const std::string how = std::string(s.replace ? " with" : " without") + " replacement for " +
                          std::to_string(req.seeds.numel()) + " seeds";
  if (s.typed()) return "SAMPLE_NEIGHBORS: " + std::to_string(s.etype_fanouts.size()) + " edge type fanouts" + how;
  return "SAMPLE_NEIGHBORS: fanout " + std::to_string(s.fanout) + how;
}

// The request's fanouts against limits.max_fanout (with replacement a fanout
// may exceed every degree) and, typed, one fanout per edge type of the partition.
Status CheckSampleRequest(const ServerContext& ctx, const SampleRequest& req, const std::string& what) {
  const SampleSpec& s = req.spec;
  const int64_t max = ctx.options.limits.max_fanout;
  const std::string over = " is over this server's limit of " + std::to_string(max) + " (limits.max_fanout)";
  if (!s.typed()) {
    if (s.replace && s.fanout > max) return Status::ResourceExhausted(what + ": the fanout" + over);
    return Status::OK();
  }
  if (!s.weight_name.empty())
    return Status::InvalidArgument(what + ": weighted sampling by edge type is not supported");
  if (static_cast<int>(s.etype_fanouts.size()) < ctx.store.num_edge_types())
    return Status::InvalidArgument(what + ": the partition has " + std::to_string(ctx.store.num_edge_types()) +
                                   " edge types; give a fanout for each");
  for (int f : s.etype_fanouts)
    if (s.replace && f > max) return Status::ResourceExhausted(what + ": fanout " + std::to_string(f) + over);
  return Status::OK();
}

}  // namespace

Result<Answer> HandlePull(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(PullRequest req, DecodePull(call.frame));
  DG_ASSIGN_OR_RETURN(TensorMeta meta, ctx.store.Meta(req.kind, req.name));
  meta.shape[0] = req.ids.numel();
  const int64_t bytes = CheckedByteSize(meta.dtype, meta.shape);
  DG_RETURN_IF_ERROR(ctx.CheckAnswerSize("PULL '" + req.name + "' of " + std::to_string(req.ids.numel()) + " rows",
                                         bytes < 0 ? INT64_MAX : bytes + 64));
  const int64_t* ids = req.ids.as<int64_t>();
  const size_t n = static_cast<size_t>(req.ids.numel());
  DG_ASSIGN_OR_RETURN(RowTable table, ctx.store.ImmutableRows(req.kind, req.name, ids, n));
  Encoder e;
  if (table.base != nullptr) {  // partition data: the rows go out of the mapping, not copied
    e.ArrayHeadFor(meta.dtype, meta.shape);
    AppendTableRows(&e, table, ids, n);
    return Answer(e.Finish());
  }
  DG_ASSIGN_OR_RETURN(Array rows, ctx.store.Pull(req.kind, req.name, ids, n));  // mutable: copied under its lock
  e.ArrayRef(rows);
  return Answer(e.Finish());
}

// Untyped: counts, src, eids; typed adds the uint8 edge type of every edge.
Result<Answer> HandleSampleNeighbors(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(SampleRequest req, DecodeSample(call.frame));
  const std::string what = SampleWhat(req);
  DG_RETURN_IF_ERROR(CheckSampleRequest(ctx, req, what));
  const int64_t* seeds = req.seeds.as<int64_t>();
  const size_t n = static_cast<size_t>(req.seeds.numel());
  DG_ASSIGN_OR_RETURN(int64_t bound, ctx.store.SampleBound(seeds, n, req.spec));
  const int64_t per_edge = (req.spec.edge_ids ? 16 : 8) + (req.spec.typed() ? 1 : 0);
  const int64_t head = req.spec.typed() ? 256 : 192;
  DG_RETURN_IF_ERROR(ctx.CheckAnswerSize(what, 8 * static_cast<int64_t>(n) + per_edge * bound + head));
  SampleResult out;
  DG_RETURN_IF_ERROR(ctx.store.Sample(seeds, n, req.spec, &out));
  Encoder e;
  e.Ids(std::move(out.counts));
  e.Ids(std::move(out.src));
  e.Ids(std::move(out.eids));
  if (req.spec.typed()) {
    Array etypes = Array::Zeros(DType::kUInt8, {static_cast<int64_t>(out.etypes.size())});
    std::copy(out.etypes.begin(), out.etypes.end(), etypes.as<uint8_t>());
    e.ArrayRef(etypes);
  }
  return Answer(e.Finish());
}

Result<Answer> HandleInDegrees(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(InDegreesRequest req, DecodeInDegrees(call.frame));
  std::vector<int64_t> deg(static_cast<size_t>(req.ids.numel()));
  DG_RETURN_IF_ERROR(ctx.store.InDegrees(req.ids.as<int64_t>(), deg.size(), deg.data(), nullptr));
  Encoder e;
  e.Ids(std::move(deg));
  return Answer(e.Finish());
}

Result<Answer> HandleMetadata(ServerContext& ctx, const Call& call) {
  DG_RETURN_IF_ERROR(DecodeEmptyRequest(call.frame));
  MetadataReply m;
  m.graph_name = ctx.config.graph_name;
  m.part_id = ctx.options.part;
  m.server_index = ctx.options.index;
  m.num_nodes = ctx.config.num_nodes;
  m.num_edges = ctx.config.num_edges;
  m.node_map = ctx.config.node_map;
  m.edge_map = ctx.config.edge_map;
  m.tensors = ctx.store.ListTensors();
  Encoder e;
  EncodeMetadataReply(&e, m);
  return Answer(e.Finish());
}

Result<Answer> HandleStats(ServerContext& ctx, const Call& call) {
  DG_RETURN_IF_ERROR(DecodeEmptyRequest(call.frame));
  Encoder e;
  EncodeStatsReply(&e, ctx.stats());
  return Answer(e.Finish());
}

Result<Answer> HandlePullAggregate(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(PullAggregateRequest req, DecodePullAggregate(call.frame));
  AggregateLimits limits;
  limits.max_edges = ctx.options.limits.max_aggregate_edges;
  limits.max_answer_bytes = ctx.options.connection.max_frame_bytes;
  std::vector<int64_t> counts;
  Array sums;
  DG_RETURN_IF_ERROR(AggregateSums(ctx.store, ctx.aggregate_index, req.name, req.ids.as<int64_t>(),
                                   static_cast<size_t>(req.ids.numel()), ctx.config.num_nodes, limits, &counts,
                                   &sums));
  Encoder e;
  e.Ids(std::move(counts));
  e.ArrayRef(sums);
  return Answer(e.Finish());
}

Result<Answer> HandlePullBlock(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(PullBlockRequest req, DecodePullBlock(call.frame));
  PullBlockLimits limits;
  limits.max_edges = ctx.options.limits.max_aggregate_edges;
  limits.max_answer_bytes = ctx.options.connection.max_frame_bytes;
  DG_ASSIGN_OR_RETURN(BufferList reply, ServePullBlock(ctx.store, req, limits));
  return Answer(std::move(reply));
}

Result<Answer> HandleSampleBlock(ServerContext& ctx, const Call& call) {
  DG_ASSIGN_OR_RETURN(SampleBlockRequest req, DecodeSampleBlock(call.frame));
  SampleBlockLimits limits;
  limits.max_fanout = ctx.options.limits.max_fanout;
  limits.max_answer_bytes = ctx.options.connection.max_frame_bytes;
  limits.num_nodes = ctx.config.num_nodes;
  DG_ASSIGN_OR_RETURN(BufferList reply, ServeSampleBlock(ctx.store, req, limits));
  return Answer(std::move(reply));
}

}  // namespace dg
