// Which input path a trainer of a job takes (train.input_aggregation,
// train.feature_wire_dtype): PULL_BLOCK (common/client/block_input.h) or PULL.
#pragma once

#include <string>

#include "common/client/block_input.h"
#include "common/base/status.h"
#include "config/job_config.h"

namespace dg {

// use = false keeps PULL (LocalBatchProvider).
// auto aggregates when the task is node classification by sampling, there is
// no DistEmbedding (on a typed partition there may be: it feeds the
// featureless types, whose relations are not aggregated), the job reads
// features, no save_embeddings, the model has forward_agg, and the
// machines are not all one host (there aggregation only costs CPU); on
// requires it (an error naming the first reason it cannot). A wire dtype
// other than float32 needs node batches by sampling. Trainer threads
// (BlockInputProvider) and sampler processes (the EPOCH's BatchInput,
// roles/sampler/sampler.h) take the same choice.
struct BlockInputChoice {
  bool use = false;
  BlockInputOptions options;
  std::string reason;  // for the log: why aggregated or not
};
Result<BlockInputChoice> ChooseBlockInput(const JobConfig& job, const PartitionConfig& partition,
                                          bool model_has_forward_agg);

// A typed model's forward_agg takes the means of model_relations (its
// agg_relations) from the batch; the servers aggregate the relations whose
// source type has features (TypedAggregatedRelations). An error naming
// train.input_aggregation when they differ.
Status CheckTypedAggRelations(const JobConfig& job, const PartitionConfig& partition,
                              const std::vector<int64_t>& model_relations);

}  // namespace dg
