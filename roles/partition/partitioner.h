// The partitioner: a (normalized) graph in memory -> partitions on disk, in
// exactly the layout of docs/formats.md.
//
// Steps: assign nodes to parts (METIS or random), renumber so part p owns the
// contiguous global range [node_map[p], node_map[p+1]) (within a part, nodes keep
// the order of their original ids), build the in-edge CSR over the new ids with a
// counting sort (every edge stored once, in its destination's part; within a row
// edges keep their order in the input edge list), then write every file into a
// temporary sibling directory and rename it into place only when complete.
//
// Edge ids are implicit: part p's k-th edge is global edge edge_map[p] + k;
// orig_eids.npy maps it back to its index in the input edge list given here.
// Progress (stage timings, peak RSS, edge cut, per-part owned/in-edges/train/
// halo) goes to `log` if non-null.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/storage/dataset.h"
#include "common/storage/partition.h"
#include "common/base/status.h"
#include "config/partition_spec.h"
#include "roles/partition/partition_request.h"
#include "roles/partition/typed_input.h"

namespace dg {

// Checks options against the input before any work (K, names, output).
Status ValidatePartitionRequest(const GraphInput& input, const PartitionOptions& opts);

// Partitions and writes; returns the config as written to OUT/NAME.json.
Result<PartitionConfig> PartitionGraph(GraphInput* input, const PartitionOptions& opts);

// Train flags per node from node_data: split == 0, else train_mask != 0; empty if neither.
std::vector<uint8_t> TrainFlags(const std::map<std::string, Array>& node_data);

}  // namespace dg
