// The settings of the assignment (methods/assign.h) and what each vertex of a
// rank's block weighs in the balance measures: what every method reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/partition_spec.h"

namespace dg::mpi {

// The run's settings as parsed once (config/partition_spec.h) and what the
// run adds: where the rank's edges wait while PT-Scotch runs and the repair's cap.
struct AssignOptions {
  const PartitionSpec& spec;
  std::string spill_dir;    // "" = the edges stay in memory
  double tolerance = 0.04;  // the repair's cap: the mean times 1 + tolerance
};

// What the balance measures count of each vertex of this rank's block.
struct BlockVertices {
  std::vector<uint8_t> train;           // train flags (empty = none)
  std::vector<int32_t> node_type;       // node type ids (empty = untyped)
  std::vector<std::string> type_names;  // by type id
  std::vector<int64_t> type_counts;     // nodes of each type in the whole graph
};

}  // namespace dg::mpi
