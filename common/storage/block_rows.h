// The row loops of a mini-batch's input block, computed where the features
// live: own rows copied (CopyRows) and the sum of each destination's sampled
// sources (SumRows) from a float32 [owned, F] feature table, with the checks
// of the offsets and counts that name them. Shared by the graph server's
// PULL_BLOCK and SAMPLE_BLOCK answers (roles/server/block_answers.h) and the
// client's machine-local partitions (AddPullBlock), so both paths compute the
// same float32 sums in the same order.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/storage/partition_store.h"

namespace dg {

// The feature table `name`: float32 [owned, F] partition node data (not a
// mutable tensor); errors are prefixed "PULL_BLOCK '<name>'".
Result<const Array*> BlockFeatureTable(const PartitionStore& store, const std::string& name);

// Every v[i] in [0, owned) (offsets from the partition's first node).
Status CheckOffsets(const std::string& what, const char* field, const int32_t* v, int64_t n, int64_t owned);
// Counts >= 0 summing to e; returns k, the destinations with count > 0.
Result<int64_t> CheckCounts(const std::string& what, const int32_t* counts, int64_t m, int64_t e);

// Destination i's sources added to sums row (pos ? pos[i] : the how-many-th
// destination with a source it is), in src order; src has e = sum(counts)
// entries. Prefetches rows ahead (the table is read in random order).
void SumRows(const float* table, int64_t elems, const int32_t* counts, int64_t m, const int32_t* src, int64_t e,
             const int64_t* pos, float* sums);
// Row i of `rows` to out row (pos ? pos[i] : i).
void CopyRows(const float* table, int64_t elems, const int32_t* rows, int64_t r, const int64_t* pos, float* out);

// PULL_BLOCK's computation without the wire, float32, straight into the
// caller's arrays (the client's machine-local partitions): own row i goes to
// own_out row own_pos[i]; the sum of destination i's sources is ADDED to
// sums_out row sums_pos[i] (destinations without sources are left alone).
// Checks offsets and counts as the server's answer does.
Status AddPullBlock(const PartitionStore& store, const std::string& name, const int32_t* rows, int64_t r,
                    const int64_t* own_pos, const int32_t* counts, int64_t m, const int32_t* src, int64_t e,
                    float* own_out, float* sums_out, const int64_t* sums_pos);

}  // namespace dg
