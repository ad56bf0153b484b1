// SAMPLE_NEIGHBORS on a typed partition: a fanout per edge type (DGL's
// sample_etype_neighbors); the reply adds the edge type of every sampled edge.
#include <numeric>
#include <string>

#include "roles/server/graph_server.h"

namespace dg {

Status GraphServer::SampleTyped(const SampleRequest& req, Encoder* e) const {
  const std::string what = "SAMPLE_NEIGHBORS: " + std::to_string(req.etype_fanouts.size()) + " edge type fanouts " +
                           (req.replace ? "with" : "without") + " replacement for " +
                           std::to_string(req.seeds.numel()) + " seeds";
  if (!req.weight_name.empty())
    return Status::InvalidArgument(what + ": weighted sampling by edge type is not supported");
  if (static_cast<int>(req.etype_fanouts.size()) < store_->num_edge_types())
    return Status::InvalidArgument(what + ": the partition has " + std::to_string(store_->num_edge_types()) +
                                   " edge types; give a fanout for each");
  int64_t per_seed_extra = 0;  // with replacement a type's fanout may exceed its degree
  for (int f : req.etype_fanouts) {
    if (req.replace && f > options_.limits.max_fanout)
      return Status::ResourceExhausted(what + ": fanout " + std::to_string(f) + " is over this server's limit of " +
                                       std::to_string(options_.limits.max_fanout) + " (limits.max_fanout)");
    if (req.replace && f > 0) per_seed_extra += f;
  }
  DG_ASSIGN_OR_RETURN(int64_t bound, store_->SampleBound(req.seeds.as<int64_t>(), req.seeds.numel(), -1, false));
  bound += per_seed_extra * req.seeds.numel();
  DG_RETURN_IF_ERROR(CheckResponseSize(what, 8 * req.seeds.numel() + (req.edge_ids ? 17 : 9) * bound + 256));
  SampleResult out;
  DG_RETURN_IF_ERROR(store_->SampleTyped(req.seeds.as<int64_t>(), req.seeds.numel(), req.etype_fanouts, req.replace,
                                         req.seed, &out, req.edge_ids));
  Array etypes = Array::Zeros(DType::kUInt8, {static_cast<int64_t>(out.etypes.size())});
  std::copy(out.etypes.begin(), out.etypes.end(), etypes.as<uint8_t>());
  e->Ids(std::move(out.counts));
  e->Ids(std::move(out.src));
  e->Ids(std::move(out.eids));
  e->ArrayRef(etypes);
  return Status::OK();
}

}  // namespace dg
