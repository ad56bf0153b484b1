// The typed pieces of a distributed run's output (docs/formats.md, "Typed
// partition"), beside what output/output.h writes for every graph. Within a part
// new ids follow the type-major input ids, so each (part, node type) is a
// contiguous range: node_type_offsets come from an all-reduce of the blocks'
// per-(part, type) counts. type_nids/<type>.npy (type-local id -> new id) is
// the concatenation of the blocks' new ids over the type's input range, each
// rank sending its slice to the leaders (output/shared_column.h); orig_nids.npy
// holds type-local ids.
#pragma once

#include <cstdint>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/mpi/runtime/stage.h"
#include "roles/partition/typed_input.h"

namespace dg::mpi {

// [K][T+1]: the first new id of each type in part p, then node_map[p + 1].
std::vector<std::vector<int64_t>> PartTypeOffsets(const Rank& r, const VertexBlocks& blocks, const TypeLayout& types,
                                                  const std::vector<int32_t>& part,
                                                  const std::vector<int64_t>& node_map);

// Type-major input ids -> ids local to their type.
std::vector<int64_t> TypeLocalIds(const TypeLayout& types, std::vector<int64_t> ids);

// Collective: OUT/type_nids/<type>.npy on every leader. new_id: of this rank's block.
Status WriteTypeNids(const Rank& r, const SharedStage& stage, const VertexBlocks& blocks, const TypeLayout& types,
                     const std::vector<int64_t>& new_id);

}  // namespace dg::mpi
