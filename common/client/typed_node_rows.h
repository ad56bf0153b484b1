// Node rows of a typed partition (format_version 2, docs/formats.md) in the
// form TypedInMemoryGraph::Gather gives them (common/sampling/typed_graph.h),
// so distributed and in-process typed batches are the same arrays:
//   "features"  float32 [n, F_max]: each node's own "<type>/features" row in
//               its first columns, zeros after them (all zeros for a type
//               without features); F_max = the widest type's features
//   "labels"    int64 [n]: "<target>/labels", -1 off the target type
//   "split"     int8  [n]: "<target>/split", -1 off the target type
// Each type's rows come from one Pull of "<type>/<name>" with that type's
// ids (the mmap for machine-local partitions); with a 16-bit `wire`, the
// remote feature rows come by PULL_BLOCK in that wire dtype instead (rounded
// as common/net/wire_dtype.h says; machine-local ones stay float32), as a
// homogeneous partition's block input does. Any other name is pulled as it
// is (a mutable tensor, or "<type>/<name>" itself).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/client/dist_graph_client.h"
#include "common/net/wire_dtype.h"

namespace dg {

// The node type of every id (the partition book's (partition, type) ranges;
// no request). InvalidArgument for an id outside [0, num_nodes).
Status TypedNodeTypes(const PartitionConfig& config, const std::vector<int64_t>& ids, std::vector<int64_t>* out);

// Widest "<type>/features" of the partition (0 = no type has features).
int64_t TypedFeatureDim(const PartitionConfig& config);

Result<Array> PullTypedNodeRows(DistGraphClient* client, const std::string& name, const std::vector<int64_t>& ids,
                                WireDType wire = WireDType::kFloat32);

// Whether every "<type>/features" of a typed partition can travel as wire
// rows (float32 [n, F], < 2^31 nodes per partition); the error says why not.
Status CheckTypedWireRows(const PartitionConfig& config);

}  // namespace dg
