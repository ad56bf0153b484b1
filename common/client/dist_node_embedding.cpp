#include "common/client/dist_node_embedding.h"

#include "common/storage/partition_store.h"

namespace dg {

Result<std::unique_ptr<DistNodeEmbedding>> DistNodeEmbedding::Init(DistGraphClient* client,
                                                                   const NodeEmbeddingOptions& options, uint32_t rank,
                                                                   uint32_t world) {
  DG_RETURN_IF_ERROR(ValidateNodeEmbeddingOptions(options));
  DG_RETURN_IF_ERROR(client->InitTensor(NodeEmbeddingTensorSpec(options, client->num_nodes()))
                         .WithContext("create the embedding table '" + options.name + "'"));
  return std::unique_ptr<DistNodeEmbedding>(new DistNodeEmbedding(client, options, rank, world));
}

Result<Array> DistNodeEmbedding::Rows(const std::vector<int64_t>& ids) { return client_->Pull(options_.name, ids); }

Status DistNodeEmbedding::Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) {
  DG_RETURN_IF_ERROR(CheckEmbeddingGrads("embedding update", ids, grads, options_.dim));
  return client_->SparseUpdate(options_.name, options_.optimizer, step, world_, rank_, ids, grads);
}

Status DistNodeEmbedding::Save() { return client_->SaveTensor(options_.name); }

}  // namespace dg
