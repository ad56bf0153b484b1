// The settings of the assignment (methods/assign.h) and what each vertex of a
// rank's block weighs in the balance measures: what every method reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/partition_spec.h"

namespace dg::mpi {

struct AssignOptions {
  PartitionMethod method = PartitionMethod::kAuto;
  int num_parts = 1;
  uint64_t seed = 0;
  bool balance_train = false, balance_edges = false;
  double imbalance = 0.03;  // PT-Scotch's load imbalance ratio
  int64_t cluster_max_arcs = 0;  // rank 0's limit (ClusterOptions::max_arcs; auto: the whole graph's too)
  double tolerance = 0.04;  // the repair's cap: the mean times 1 + tolerance
  int64_t batch = 1 << 20;
  std::string spill_dir;    // where the rank's edges wait while PT-Scotch runs ("" = in memory)
};

// What the balance measures count of each vertex of this rank's block.
struct BlockVertices {
  std::vector<uint8_t> train;           // train flags (empty = none)
  std::vector<int32_t> node_type;       // node type ids (empty = untyped)
  std::vector<std::string> type_names;  // by type id
  std::vector<int64_t> type_counts;     // nodes of each type in the whole graph
};

}  // namespace dg::mpi
