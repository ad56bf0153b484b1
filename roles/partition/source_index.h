// Writes every part's aggregation index (format and reader in
// common/storage/aggregate_index.h): for part q, the edges whose SOURCE q
// owns, grouped by global destination: agg_dst.npy, agg_indptr.npy,
// agg_src.npy (local source rows) in <root>/partQ/.
//
// Derived from the parts' in-edge CSRs already written under root (the
// staging directory), so the in-memory and the out-of-core partitioner share
// it and produce identical files. Two streaming passes over all parts'
// indices (count, then write; destinations come out in increasing global id
// because parts and their CSR rows are visited in order; the write pass runs
// once per 128 parts, so at most 384 files are open); memory is O(parts)
// buffers, not O(edges).
#pragma once

#include <string>

#include "common/storage/partition.h"
#include "common/base/status.h"

namespace dg {

Status WriteAggregateIndex(const std::string& root, const PartitionConfig& cfg);

}  // namespace dg
