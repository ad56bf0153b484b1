// Out-of-core twin of NormalizeEdges (common/storage/dataset.h): the same edge list,
// edge for edge, without holding it. --drop-self-loops alone filters in input
// order; --undirected / --drop-duplicates sort packed (src << 32 | dst) keys
// with an ExternalSorter (runs under tmp_dir) and keep one of each, so the
// result is sorted by (src, dst) as NormalizeEdges' is. The result is written
// to tmp_dir/normalized-{src,dst}.npy and returned mapped. Ids must be < 2^32.
#pragma once

#include <cstdint>
#include <string>

#include "common/storage/dataset.h"
#include "common/base/status.h"
#include "roles/partition/edge_source.h"

namespace dg {

struct SpillOptions {
  std::string tmp_dir;
  size_t sort_bytes = size_t{256} << 20;   // one sorted run
  size_t merge_bytes = size_t{64} << 20;   // read buffers of a merge, all runs together
};

// True if opts asks for anything NormalizeEdges would change.
bool NeedsNormalization(const EdgeListOptions& opts);

Result<EdgeSource> NormalizeEdgesOutOfCore(const EdgeSource& in, const EdgeListOptions& opts, const SpillOptions& spill,
                                           size_t* runs);

}  // namespace dg
