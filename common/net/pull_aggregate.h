// PULL_AGGREGATE: the graph store's aggregating pull, DGL's
// g.pull(nodes, copy_src('h'), sum|mean) over the full in-neighbourhood.
//
// Wire (docs/protocol.md): request `string name, ids ids` (global node
// ids, any partition, duplicates allowed) -> reply `ids counts, array sums`:
// for each id, how many of its in-edges have a source this partition owns and
// the sum of those sources' rows of node tensor `name` (partition data or a
// mutable tensor; float32/float64). The server computes it from its
// aggregation index (common/storage/aggregate_index.h).
//
// DistGraphClient::PullAggregate (common/client/pull_aggregate_client.cpp) sends every
// id to every partition (server index 0 for mutable tensors; chunks of
// max_ids_per_request, pipelined), adds the partials in partition order and,
// for kMean, divides by the total count (the full in-degree; 0 rows for nodes
// without in-edges). The bytes on the wire are ids x (8 + row bytes) x
// partitions, independent of the neighbourhood sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/net/codec.h"
#include "common/net/connection.h"
#include "common/base/status.h"
#include "common/base/array.h"

namespace dg {

enum class AggregateOp : uint8_t { kSum = 0, kMean = 1 };

struct PullAggregateRequest {
  std::string name;
  Array ids;  // int64 [n]
};

void EncodePullAggregate(Encoder* e, const std::string& name, const Array& ids);
Result<PullAggregateRequest> DecodePullAggregate(const Frame& f);

}  // namespace dg
