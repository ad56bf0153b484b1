// AggregateIndex: part q's out-edge index, what PULL_AGGREGATE needs.
//
// A part's in-edge CSR (indptr/indices) lists the in-edges of the nodes it
// OWNS; it does not tell part q which of a node v's in-neighbours q holds.
// This index does: the edges whose SOURCE part q owns, grouped by global
// destination id. Three optional files in the part directory, written by
// `distgnn partition` (roles/partition/source_index.h, both the in-memory and
// the out-of-core partitioner):
//   agg_dst.npy     int64 [m]    global dst ids, strictly increasing, each with
//                                >= 1 in-edge whose source part q owns
//   agg_indptr.npy  int64 [m+1]  CSR offsets into agg_src (0 ... k)
//   agg_src.npy     int64 [k]    LOCAL row (gid - node_map[q]) of each edge's source
// Over all parts the k's sum to num_edges; a multi-edge appears once per copy.
// Older partitions have no such files: Open() then returns an index with
// present() == false and PULL_AGGREGATE answers with a clear error.
//
// AggregateSums computes, for each requested global id, the sum of the rows of
// a float32/float64 node tensor (partition data or a mutable tensor) over the
// in-neighbours of that id that this part owns, and how many such edges there
// are (the partial in-degree). The client adds the parts' partials; mean =
// total sum / total count (0 for a node without in-edges). Rows of a mutable
// tensor are read under its read lock chunk by chunk (like PULL, not one
// snapshot of the whole request). Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/storage/partition_store.h"
#include "common/base/status.h"

namespace dg {

class AggregateIndex {
 public:
  // Maps dir/agg_*.npy and validates them (O(m + k)): dst sorted and in
  // [0, num_nodes), indptr monotone from 0 to k, src in [0, owned). All three
  // absent = an empty index (present() false); some absent or any bad = Corruption
  // naming the file.
  static Result<AggregateIndex> Open(const std::string& part_dir, int64_t num_nodes, int64_t owned);

  bool present() const { return present_; }
  int64_t num_dst() const { return dst_.rows(); }
  int64_t num_edges() const { return src_.rows(); }
  // [begin, end) of gid's run in src(); empty when gid has no source here.
  void Range(int64_t gid, int64_t* begin, int64_t* end) const;
  const int64_t* src() const { return src_.as<int64_t>(); }

 private:
  bool present_ = false;
  Array dst_, indptr_, src_;
};

struct AggregateLimits {
  int64_t max_edges = int64_t(1) << 30;  // edges one request may aggregate (sum of partial degrees)
  int64_t max_answer_bytes = int64_t(1) << 30;
};

// Partial sums and counts for ids[0..n) (global ids in [0, num_nodes);
// duplicates allowed) into *sums ([n, row shape...], the tensor's dtype) and
// *counts (n). Checks every id, the tensor (float32/float64 node tensor), the
// work (sum of partial degrees <= max_edges) and the answer size before
// allocating: ResourceExhausted / InvalidArgument / NotFound name the tensor.
Status AggregateSums(const PartitionStore& store, const AggregateIndex& index, const std::string& name,
                     const int64_t* ids, size_t n, int64_t num_nodes, const AggregateLimits& limits,
                     std::vector<int64_t>* counts, Array* sums);

}  // namespace dg
