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
// - TypedTrainEdgeShare (a typed partition split on one edge type,
//   link_split.json's "etype"): the training edges are that type's in-edges of
//   every part, numbered 0.. in part then CSR order, and trainer `rank` takes
//   NodeSplit(even) of those numbers; *table holds them all. It returns the
//   type and its reverse (by name in pc.edge_types), the destination type's
//   global ids as one (first, count) range per part (the negatives' candidates)
//   and the training in-degree of each of them, in range order (the degree
//   distribution); SetTypedLinkBatchOptions turns that into link batch options.
// Every part directory must be readable at pc.base_dir (true on one host and
// for partitions copied whole to every machine with `distgnn copy`). Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/sampling/edge_batch.h"
#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "common/storage/partition.h"

namespace dg {

Status TrainEdgeShare(const PartitionConfig& pc, int world, int rank, EdgeTable* table, std::vector<int64_t>* ids);
Result<std::vector<int64_t>> InDegrees(const PartitionConfig& pc);
struct PartitionTypedLink {
  int etype = -1, reverse_etype = -1;  // -1 reverse = none
  IdRanges dst_ranges;
  int64_t dst_count = 0;
  std::vector<int64_t> dst_degrees;
};
Result<PartitionTypedLink> TypedTrainEdgeShare(const PartitionConfig& pc, const LinkSplitInfo& info, int world,
                                               int rank, EdgeTable* table, std::vector<int64_t>* ids);
// LinkBatchOptions for a PartitionTypedLink: negatives from its destination
// ranges by `distribution` (uniform | degree, over its training in-degrees),
// exclusion by (s, d, edge type) of the type and its reverse.
Status SetTypedLinkBatchOptions(const PartitionTypedLink& link, NegativeDistribution distribution,
                                LinkBatchOptions* options);
// The same for a partition of one type: negatives over all its nodes by
// `distribution` (degree: the parts' in-degrees), reverse edges excluded
// when the split says the graph is undirected.
Status SetLinkBatchOptions(const PartitionConfig& pc, const LinkSplitInfo& info, NegativeDistribution distribution,
                           LinkBatchOptions* options);
Status HeldOutShare(const PartitionConfig& pc, const std::string& which, int world, int rank, EdgeList* out);

}  // namespace dg
