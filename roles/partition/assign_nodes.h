// AssignNodes: step 1 of both partitioners (partitioner.cpp in memory,
// out_of_core.cpp under --memory-budget): the part of every node by
// --method (metis | stream | random; a single part needs no method), with the
// progress lines `partition` prints to opts.log.
//
// is_train (may be empty) balances train nodes for METIS with --balance train
// and for stream assignment always; types (may be null) makes METIS balance
// every node type and random assignment deal every type evenly. spill says
// where stream assignment spills its sorted runs: an empty tmp_dir keeps it in
// memory as one run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/edge_source.h"
#include "roles/partition/partition_request.h"
#include "roles/partition/typed_input.h"

namespace dg {

struct StreamSpill {
  std::string tmp_dir;     // empty: in memory
  size_t sort_records = 0;  // records per sorted run
  size_t merge_bytes = 0;   // 0: StreamOptions' default
};

Result<std::vector<int32_t>> AssignNodes(int64_t num_nodes, const EdgeSource& edges, const TypeLayout* types,
                                         const std::vector<uint8_t>& is_train, const PartitionOptions& opts,
                                         const StreamSpill& spill);

}  // namespace dg
