// The mean L1 size of a partitioned graph's feature rows, for the default
// learning rate (config/default_lr.h): the same evenly spaced global ids on
// every trainer, so every trainer of a job takes the same rate.
#pragma once

#include <cstdint>
#include <optional>

#include "common/base/status.h"
#include "common/client/dist_graph_client.h"
#include "common/storage/partition.h"

namespace dg {

// nullopt: the partition has no "features" (typed: no "<type>/features").
Result<std::optional<double>> PartitionRowL1(DistGraphClient* client, const PartitionConfig& config,
                                             int64_t sample_rows);

}  // namespace dg
