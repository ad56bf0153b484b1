// `distgnn partition`: a user's graph (a dataset directory or an edge list with
// node arrays) -> partitions on disk, in memory or, with a memory budget (or
// when the in-memory path would need more than half the RAM), out of core
// (out_of_core.h); same output either way. Every user mistake is one message
// and nothing is written: the options are checked before reading, the input
// before partitioning, and the output appears only by a final rename.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "config/partition_spec.h"

namespace dg {

// Partitions the graph spec names (spec.mpi is false); the spec's flags are
// checked already (config/partition_spec.h), the input is checked here.
Status PartitionDataset(const PartitionSpec& spec);

}  // namespace dg
