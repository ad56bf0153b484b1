// The partitioner under a memory budget (`partition --memory-budget SIZE`):
// the same output as PartitionGraph (partitioner.h), byte for byte, without
// holding the edge list, the CSR or the node arrays.
//
// Steps: train flags and the assignment (random; METIS if its estimate fits the
// budget, else an error before anything is written; stream) -> renumbering
// (O(N) arrays: 25 B per node) -> one pass over the mmap'd edges emitting
// (new dst, new src, edge id) records into an ExternalSorter whose sorted runs
// are spilled to tmp_dir -> a k-way merge in (dst, edge id) order, which is the
// in-memory counting sort's order, streamed into each part's indptr/indices/
// orig_eids in turn (edge cut and halo counted on the way) -> node arrays
// copied part by part from the mmap'd inputs in id order, pages dropped
// behind. Peak RSS: the budget plus the process itself (~170 MB with LibTorch).
// Edge arrays (--edge-data) are not supported here.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "common/base/array.h"
#include "common/storage/partition.h"
#include "common/base/status.h"
#include "roles/partition/edge_source.h"
#include "roles/partition/partition_request.h"
#include "roles/partition/scratch_dir.h"

namespace dg {

// Per-node bytes the out-of-core path holds whatever the method (plus 4 for stream).
constexpr uint64_t kOutOfCoreBytesPerNode = 25;

// Checks that the budget can hold the per-node arrays, and METIS if asked for
// (num_edges: an upper bound of the edges after normalization). The message
// says how much is needed and what to use instead.
Status CheckMemoryBudget(int64_t num_nodes, int64_t num_edges, const PartitionOptions& opts);

Result<PartitionConfig> PartitionGraphOutOfCore(OutOfCoreInput* input, const PartitionOptions& opts);

}  // namespace dg
