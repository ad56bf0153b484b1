// The options of a learnable node embedding (common/storage/node_embedding.h)
// from the spec's train.embedding, for train-local's in-process table and a
// job's DistEmbedding alike.
#pragma once

#include "common/storage/node_embedding.h"
#include "config/train_spec.h"

namespace dg {

Result<NodeEmbeddingOptions> NodeEmbeddingOptionsFrom(const EmbeddingSpec& embedding, uint64_t seed);

}  // namespace dg
