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

#include <cstdint>
#include <memory>
#include <string>

#include "common/storage/partition.h"
#include "common/base/status.h"

namespace dg {

Status WriteAggregateIndex(const std::string& root, const PartitionConfig& cfg);

// One part's three files from a stream of its edges (those whose source the
// part owns) in increasing destination order, CSR order within a destination;
// num_dsts and num_edges are known beforehand. Shared with the distributed
// partitioner (roles/partition/mpi), which gathers each part's edges itself.
class AggregateIndexWriter {
 public:
  AggregateIndexWriter();
  ~AggregateIndexWriter();
  Status Open(const std::string& part_dir, int64_t num_dsts, int64_t num_edges);
  Status Add(int64_t dst, int64_t local_src);
  Status Finish();

 private:
  struct Streams;
  std::unique_ptr<Streams> s_;
  int64_t last_ = -1, run_ = 0;
};

}  // namespace dg
