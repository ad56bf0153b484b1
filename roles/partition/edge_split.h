// `partition --edge-split`: writing the held-out (val/test) edges of a link
// prediction split next to a finished partition (layout: common/storage/link_split.h).
//
// WriteLinkSplit maps the held-out edges' original node ids to the new global
// ids (through OUT/orig_nids.npy), gives each edge to the part that owns its
// destination, and writes partP/val_edges.npy, partP/test_edges.npy (int64
// [M, 2], in the order given) and OUT/link_split.json. It runs after the
// partition is committed; a failure leaves a partition without link_split.json,
// which trainers refuse for train.task link.
//
// HoldOutTypedDatasetEdges (`partition --edge-split --link-etype` on a typed
// dataset): the edge type named by `spec` (MatchEdgeType) split by
// HoldOutTypePairs exactly as train-local --link-etype splits it (same
// fractions and seed = same pairs held out); val/test edges leave the type
// and their swapped copies its rev_ type. The held-out edges come back in
// ids local to their types. WriteTypedLinkSplit writes them as WriteLinkSplit
// does, mapped through OUT/type_nids/<type>.npy, with "etype" and
// "reverse_etype" in link_split.json.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/storage/link_split.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"

namespace dg {

// What OUT/link_split.json records (layout: common/storage/link_split.h).
struct LinkSplitSummary {
  EdgeSplitFractions fractions{};  // fractions[0] < 0: the dataset's own edge_split.npy (null)
  uint64_t seed = 0;
  bool undirected = false;
  int64_t num_train = 0, num_val = 0, num_test = 0;
  std::string etype, reverse_etype;  // a typed split's edge type ("" = homogeneous); reverse "" = none
};
// Writes base_dir/link_split.json under a temporary name and renames it into place.
Status WriteLinkSplitJson(const std::string& base_dir, const LinkSplitSummary& s);

Status WriteLinkSplit(const PartitionConfig& cfg, const HeldOutEdges& held, const EdgeSplitFractions& fractions,
                      uint64_t seed, bool undirected, int64_t num_train_edges);

struct TypedEdgeSplit {
  HeldOutEdges held;                 // src: local to src_type, dst: local to dst_type
  int src_type = 0, dst_type = 0;    // node type ids
  std::string etype, reverse_etype;  // "src:relation:dst"; reverse "" = none
  int64_t num_train = 0;             // edges of the type left in the graph
};
Result<TypedEdgeSplit> HoldOutTypedDatasetEdges(TypedDataset* ds, const std::string& spec,
                                                const EdgeSplitFractions& fractions, uint64_t seed);
Status WriteTypedLinkSplit(const PartitionConfig& cfg, const TypedEdgeSplit& split,
                           const EdgeSplitFractions& fractions, uint64_t seed, bool undirected);

}  // namespace dg
