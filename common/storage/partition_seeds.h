// A trainer's seeds from the per-part id files (partN/train_nids.npy,
// val_nids.npy, test_nids.npy; common/storage/partition.h), without reading any
// O(num_nodes) column.
//
// PartSeedSlice returns exactly NodeSplit(all ids with split == value, world,
// rank, even) (common/sampling/minibatch.h): the per-part lists are sorted and parts own
// ascending id ranges, so their concatenation is the global sorted list, and
// the slice is cut from the parts it overlaps (their counts are in NAME.json).
// A part whose file is not on this machine (only its own partition was
// copied) is asked for through `pull_split(begin, end)`, which returns the
// split column of global ids [begin, end): O(that part), once per part.
// HasPartSeeds: the partition has the files and num_classes (every partition
// `distgnn partition` writes has them); RequirePartSeeds says to re-partition
// when they are missing.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/base/array.h"
#include "common/storage/partition.h"
#include "common/base/status.h"

namespace dg {

bool HasPartSeeds(const PartitionConfig& config);
// OK, or InvalidArgument naming the partition's json and saying to re-partition.
Status RequirePartSeeds(const PartitionConfig& config);

using PullSplitFn = std::function<Result<Array>(int64_t begin, int64_t end)>;

// value: 0 train, 1 val, 2 test.
Result<std::vector<int64_t>> PartSeedSlice(const PartitionConfig& config, int value, int world, int rank, bool even,
                                           const PullSplitFn& pull_split);

}  // namespace dg
