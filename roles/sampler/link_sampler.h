// The sampler role's link-prediction state: the training edges of
// the trainer it serves (TrainEdgeShare, the same ids the trainer sends in its
// link EPOCHs), the job's negative sampler and a LinkBatchProvider over the
// servers, so sampler processes make exactly the batches the trainer would
// make in-process.
#pragma once

#include <memory>

#include "common/sampling/edge_batch.h"
#include "common/base/status.h"
#include "common/storage/partition.h"
#include "config/job_config.h"

namespace dg {

struct LinkSamplerState {
  EdgeTable table;
  std::unique_ptr<LinkBatchProvider> provider;
};

Result<std::unique_ptr<LinkSamplerState>> MakeLinkSamplerState(const JobConfig& job, const PartitionConfig& pc,
                                                               NeighborSource* source, int trainer_rank, int workers,
                                                               int prefetch);

}  // namespace dg
