// DistNeighborSource: the NeighborSource (common/sampling/minibatch.h) of a partitioned
// graph served by distgnn servers, through a DistGraphClient. Mini-batch code
// written against NeighborSource runs on it unchanged: sampling fans the seeds
// out to their owners in parallel, node data comes from PULL (or the mmap for
// machine-local partitions). Thread-safe, as the client is.
//
// On a typed partition (format_version 2) it is typed as TypedInMemoryGraph
// is: num_edge_types() > 0, typed SampleSpecs sampled by typed SAMPLE_NEIGHBORS,
// NodeTypes from the partition book, and Gather of "features", "labels",
// "split" in TypedInMemoryGraph's form (common/client/typed_node_rows.h).
#pragma once

#include "common/client/dist_graph_client.h"
#include "common/sampling/minibatch.h"

namespace dg {

class DistNeighborSource : public NeighborSource {
 public:
  explicit DistNeighborSource(DistGraphClient* client) : client_(client) {}

  int64_t num_nodes() const override { return client_->num_nodes(); }
  Status SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec, SampledNeighbors* out) override;
  Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids) override;
  std::vector<int64_t> owner_offsets() const override { return client_->config().node_map; }

  int num_edge_types() const override {
    return client_->config().typed() ? static_cast<int>(client_->config().edge_types.size()) : 0;
  }
  Status NodeTypes(const std::vector<int64_t>& ids, std::vector<int64_t>* out) override;

 private:
  DistGraphClient* client_;
};

}  // namespace dg
