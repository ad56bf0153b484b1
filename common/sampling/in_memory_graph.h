// InMemoryGraph: a whole graph held in one process, as an in-edge CSR plus its
// node arrays; the NeighborSource of train-local and of in-process sampling.
//
// Rows are the destination nodes; each row lists its in-neighbors (sources)
// sorted by id, so a row's content does not depend on edge-list order. Sampling
// uses the shared kernel with row_seed = MixSeed(request_seed, gid), exactly as
// the distributed servers do. Thread-safe for concurrent readers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/storage/dataset.h"
#include "common/sampling/minibatch.h"
#include "common/base/status.h"

namespace dg {

class InMemoryGraph : public NeighborSource {
 public:
  // Builds the in-edge CSR of dataset.edges (ids in [0, num_nodes)); keeps the
  // node arrays (shared, not copied).
  static Result<std::unique_ptr<InMemoryGraph>> FromDataset(const Dataset& dataset);
  // From edge vectors (src[i] -> dst[i]) and node arrays with num_nodes rows.
  static Result<std::unique_ptr<InMemoryGraph>> FromEdges(int64_t num_nodes,
                                                         const std::vector<int64_t>& src,
                                                         const std::vector<int64_t>& dst,
                                                         std::map<std::string, Array> node_data);

  int64_t num_nodes() const override { return num_nodes_; }
  int64_t num_edges() const { return static_cast<int64_t>(indices_.size()); }
  const std::vector<int64_t>& indptr() const { return indptr_; }
  const std::vector<int64_t>& indices() const { return indices_; }
  // The node array `name`, or NotFound naming what exists.
  Result<Array> NodeData(const std::string& name) const;

  Status SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec,
                         SampledNeighbors* out) override;
  Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids) override;

 private:
  int64_t num_nodes_ = 0;
  std::vector<int64_t> indptr_, indices_;
  std::map<std::string, Array> node_data_;
};

// Rows `ids` of `array` copied into a new heap array; an id out of range is an
// InvalidArgument naming `what`.
Result<Array> GatherRows(const Array& array, const std::vector<int64_t>& ids,
                         const std::string& what);

}  // namespace dg
