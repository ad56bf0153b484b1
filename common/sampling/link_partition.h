// Link prediction over a partitioned graph: what a trainer (or its
// sampler) reads from the partition directory to make link batches.
//
// - TrainEdgeShare: trainer `rank` of `world` trains on the global edge ids
//   NodeSplit([0, num_edges), world, rank, even) -- DGL's edge_split with
//   force_even, so every trainer runs the same number of steps; the (src, dst)
//   of those ids are read from the parts' indptr/indices (mmap) into *table.
// - InDegrees: in-degree of every node in the message-passing graph (the
//   parts' indptr), for the degree^0.75 negative distribution.
// - HeldOutShare: the parts' val_edges.npy / test_edges.npy in part order,
//   cut into `world` contiguous shares (not even; metrics are gathered exactly).
// Every part directory must be readable at pc.base_dir (true on one host and
// for partitions copied whole to every machine with `distgnn copy`). Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/sampling/edge_batch.h"
#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "common/storage/partition.h"

namespace dg {

Status TrainEdgeShare(const PartitionConfig& pc, int world, int rank, EdgeTable* table, std::vector<int64_t>* ids);
Result<std::vector<int64_t>> InDegrees(const PartitionConfig& pc);
Status HeldOutShare(const PartitionConfig& pc, const std::string& which, int world, int rank, EdgeList* out);

}  // namespace dg
