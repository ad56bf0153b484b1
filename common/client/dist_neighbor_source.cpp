#include "common/client/dist_neighbor_source.h"

namespace dg {

Status DistNeighborSource::SampleNeighbors(const std::vector<int64_t>& seeds, int fanout,
                                           bool replace, uint64_t seed, SampledNeighbors* out) {
  DG_ASSIGN_OR_RETURN(SampledEdges s, client_->SampleNeighbors(seeds, fanout, replace, seed, "", /*edge_ids=*/false));
  out->indptr = std::move(s.offsets);
  out->sources = std::move(s.src);
  return Status::OK();
}

Result<Array> DistNeighborSource::Gather(const std::string& name, const std::vector<int64_t>& ids) {
  return client_->Pull(name, ids);
}

}  // namespace dg
