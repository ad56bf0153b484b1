#include "common/client/dist_neighbor_source.h"

#include "common/client/typed_node_rows.h"

namespace dg {

Status DistNeighborSource::SampleNeighbors(const std::vector<int64_t>& seeds, int fanout,
                                           bool replace, uint64_t seed, SampledNeighbors* out) {
  if (num_edge_types() > 0)  // as TypedInMemoryGraph: one fanout for every edge type
    return SampleNeighborsTyped(seeds, std::vector<int>(num_edge_types(), fanout), replace, seed, out);
  DG_ASSIGN_OR_RETURN(SampledEdges s, client_->SampleNeighbors(seeds, fanout, replace, seed, "", /*edge_ids=*/false));
  out->indptr = std::move(s.offsets);
  out->sources = std::move(s.src);
  out->etypes.clear();
  return Status::OK();
}

Status DistNeighborSource::SampleNeighborsTyped(const std::vector<int64_t>& seeds, const std::vector<int>& fanouts,
                                                bool replace, uint64_t seed, SampledNeighbors* out) {
  if (num_edge_types() == 0) return NeighborSource::SampleNeighborsTyped(seeds, fanouts, replace, seed, out);
  DG_ASSIGN_OR_RETURN(SampledEdges s, client_->SampleNeighborsTyped(seeds, fanouts, replace, seed));
  out->indptr = std::move(s.offsets);
  out->sources = std::move(s.src);
  out->etypes = std::move(s.etypes);
  return Status::OK();
}

Status DistNeighborSource::NodeTypes(const std::vector<int64_t>& ids, std::vector<int64_t>* out) {
  if (num_edge_types() == 0) return NeighborSource::NodeTypes(ids, out);
  return TypedNodeTypes(client_->config(), ids, out);
}

Result<Array> DistNeighborSource::Gather(const std::string& name, const std::vector<int64_t>& ids) {
  if (client_->config().typed()) return PullTypedNodeRows(client_, name, ids);
  return client_->Pull(name, ids);
}

}  // namespace dg
