// Synthetic graphs written in the on-disk partition format, for tests and
// benchmarks of the data plane (not the real partitioner: that is
// roles/partition with METIS). WriteContiguousPartition keeps node ids as
// they are (orig_nids is the identity), splits [0, N) into num_parts even
// ranges, and stores each part's in-edges as CSR sorted by destination (ties
// in input order); orig_eids maps each new edge id back to its input index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

struct SyntheticGraph {
  std::string name = "synthetic";
  int64_t num_nodes = 0;
  std::vector<int64_t> src, dst;  // edge e: src[e] -> dst[e]
  Array features;                 // float32 [N, F]
  Array labels;                   // int64 [N]
  Array edge_weight;              // float32 [E] (> 0)
  // Optional edge types (a typed graph): written as the uint8 edge tensor
  // "edge_types", each destination's in-edges grouped by type (then input order).
  std::vector<uint8_t> edge_types;
};

// Uniformly random edges (src, dst uniform), features/labels/weights from the seed.
SyntheticGraph MakeRandomGraph(int64_t num_nodes, int64_t num_edges, int64_t feat_dim, uint64_t seed);
// In-degrees follow a power law (a few hubs with thousands of in-edges, most
// nodes with a handful); sources uniform. Ids are shuffled so hubs spread over parts.
SyntheticGraph MakePowerLawGraph(int64_t num_nodes, int64_t num_edges, int64_t feat_dim, uint64_t seed);

// Writes OUT/NAME.json and OUT/part*/...; returns the json path.
Result<std::string> WriteContiguousPartition(const SyntheticGraph& g, int num_parts, const std::string& out_dir);

}  // namespace dg
