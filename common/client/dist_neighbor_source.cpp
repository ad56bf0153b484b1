#include "common/client/dist_neighbor_source.h"

#include "common/client/typed_node_rows.h"

namespace dg {

// SampledNeighbors carries no edge ids: the servers send none.
Status DistNeighborSource::SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec,
                                           SampledNeighbors* out) {
  if (num_edge_types() == 0 && spec.typed())
    return Status::InvalidArgument("typed sampling on a graph without edge types");
  SampleSpec asked = spec;
  asked.edge_ids = false;
  // As TypedInMemoryGraph: an untyped spec takes its fanout of every edge type.
  if (num_edge_types() > 0 && !spec.typed()) asked.etype_fanouts.assign(num_edge_types(), spec.fanout);
  DG_ASSIGN_OR_RETURN(SampledEdges s, client_->SampleNeighbors(seeds, asked));
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
