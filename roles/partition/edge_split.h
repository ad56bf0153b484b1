// `partition --edge-split`: writing the held-out (val/test) edges of a link
// prediction split next to a finished partition (layout: common/storage/link_split.h).
//
// WriteLinkSplit maps the held-out edges' original node ids to the new global
// ids (through OUT/orig_nids.npy), gives each edge to the part that owns its
// destination, and writes partP/val_edges.npy, partP/test_edges.npy (int64
// [M, 2], in the order given) and OUT/link_split.json. It runs after the
// partition is committed; a failure leaves a partition without link_split.json,
// which trainers refuse for train.task link.
#pragma once

#include <cstdint>

#include "common/base/status.h"
#include "common/storage/link_split.h"
#include "common/storage/partition.h"

namespace dg {

Status WriteLinkSplit(const PartitionConfig& cfg, const HeldOutEdges& held, const EdgeSplitFractions& fractions,
                      uint64_t seed, bool undirected, int64_t num_train_edges);

}  // namespace dg
