// DistNodeEmbedding: the NodeEmbedding (common/storage/node_embedding.h) held
// on the servers: a float32 DistTensor [N, dim] created by Init (idempotent).
// Update is a SPARSE_UPDATE of `step` with this trainer's `rank` of `world`
// contributors: the servers sum the rows' gradients over all trainers (in rank
// order) and apply the optimizer once; Update returns when every partition has
// applied the step, so the next Rows() sees it. Every trainer must call Update
// once per step (ids may be empty).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/client/dist_graph_client.h"
#include "common/storage/node_embedding.h"

namespace dg {

class DistNodeEmbedding : public NodeEmbedding {
 public:
  // Creates the DistTensor (or keeps an existing one of the same shape, e.g. a
  // persisted table) on every partition. `client` must outlive this object.
  static Result<std::unique_ptr<DistNodeEmbedding>> Init(DistGraphClient* client, const NodeEmbeddingOptions& options,
                                                         uint32_t rank, uint32_t world);
  int64_t dim() const override { return options_.dim; }
  Result<Array> Rows(const std::vector<int64_t>& ids) override;
  Status Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) override;
  // Writes the table to every partition's tensors/ (persistent tables only).
  Status Save();

 private:
  DistNodeEmbedding(DistGraphClient* client, NodeEmbeddingOptions options, uint32_t rank, uint32_t world)
      : client_(client), options_(std::move(options)), rank_(rank), world_(world) {}
  DistGraphClient* client_;
  NodeEmbeddingOptions options_;
  uint32_t rank_, world_;
};

}  // namespace dg
