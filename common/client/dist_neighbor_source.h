// DistNeighborSource: the NeighborSource (common/sampling/minibatch.h) of a partitioned
// graph served by distgnn servers, through a DistGraphClient. Mini-batch code
// written against NeighborSource runs on it unchanged: sampling fans the seeds
// out to their owners in parallel, node data comes from PULL (or the mmap for
// machine-local partitions). Thread-safe, as the client is.
#pragma once

#include "common/client/dist_graph_client.h"
#include "common/sampling/minibatch.h"

namespace dg {

class DistNeighborSource : public NeighborSource {
 public:
  explicit DistNeighborSource(DistGraphClient* client) : client_(client) {}

  int64_t num_nodes() const override { return client_->num_nodes(); }
  Status SampleNeighbors(const std::vector<int64_t>& seeds, int fanout, bool replace, uint64_t seed,
                         SampledNeighbors* out) override;
  Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids) override;
  std::vector<int64_t> owner_offsets() const override { return client_->config().node_map; }

 private:
  DistGraphClient* client_;
};

}  // namespace dg
