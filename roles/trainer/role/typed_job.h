// What a distributed job on a typed partition (format_version 2) supports,
// checked by the trainer before it connects: node classification of the
// partition's target type by sampling (--mode train, optionally followed by
// train.layerwise_inference) and layer-wise inference (--mode infer), or link
// prediction on one edge type by sampling (train.link_etype,
// roles/trainer/source/job_source.h), with a typed model (rgcn, hetero-sage:
// docs/models.md "Typed graphs"). Anything else is one InvalidArgument naming
// the job file and the key.
#pragma once

#include <string>

#include "common/base/status.h"
#include "common/storage/partition.h"
#include "config/job_config.h"

namespace dg {

Status CheckTypedTrainerJob(const JobConfig& job, const PartitionConfig& partition, TrainMode mode);

}  // namespace dg
