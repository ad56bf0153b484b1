// The inputs of `distgnn partition` on one machine, each reading its files
// into what the engines (engines.h) take and choosing the engine: in memory,
// or out of core under --memory-budget or when in memory would need more than
// half the RAM. PartitionDataset (partition_dataset.h) looks the input up.
#pragma once

#include "common/base/status.h"
#include "config/partition_spec.h"
#include "roles/partition/partition_request.h"

namespace dg {

// A plain dataset directory, an edge list with node arrays (--edges), or
// OGB's homogeneous CSV files (--format ogb): dataset_plain.cpp.
Status PartitionPlainDataset(PartitionOptions opts);

// A typed dataset directory (meta.json; --merge-types merges its types):
// dataset_typed.cpp.
Status PartitionTypedDataset(const PartitionOptions& opts);

// OGB's typed CSV files (ogbn-mag's layout; --merge-types too), and the
// homogeneous ones out of core: dataset_ogb.cpp.
Status PartitionOgbTypedDataset(const PartitionOptions& opts);
Status PartitionOgbOutOfCore(const EdgeListOptions& eo, PartitionOptions po);

}  // namespace dg
