// Link prediction on one edge type of a typed graph (TypedGraphInput,
// typed_graph.h): which edge type, its reverse, and its edges split into
// train / val / test with the held-out ones taken out of the graph.
//
// Contract:
// - FindEdgeType(input, spec, flag): spec is "src:relation:dst",
//   "src__relation__dst" (the edge file's name) or a relation name that
//   belongs to exactly one edge type; anything else is an InvalidArgument
//   naming `flag` and listing the graph's edge types.
// - ReverseEdgeType: the edge type (dst, rev_<relation>, src) that
//   --undirected adds (or, for a rev_ type, its forward type); -1 if absent.
// - HoldOutTypedEdges: the unit of the split is a distinct (src, dst) pair of
//   the edge type (parallel copies share a split), assigned by AssignEdgeSplit
//   (common/storage/link_split.h) with `fractions` and `seed`, so the split
//   depends only on the set of pairs and the seed. Val and test edges are
//   removed from the edge type and their swapped copies from its reverse type
//   (one copy per removed edge), so message passing never sees them. Edges come
//   back as global ids in TypedInMemoryGraph's type-major numbering.
// Torch-free.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/sampling/typed_graph.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"

namespace dg {

Result<int> FindEdgeType(const TypedGraphInput& input, const std::string& spec, const std::string& flag);
int ReverseEdgeType(const TypedGraphInput& input, int etype);
// "src:relation:dst" of edge type `etype`.
std::string EdgeTypeName(const TypedGraphInput& input, int etype);

struct TypedLinkEdges {
  int etype = -1;          // the edge type predicted
  int reverse_etype = -1;  // its reverse type, -1 = none
  int64_t dst_first = 0;   // the destination type's global ids: [dst_first, dst_first + dst_count)
  int64_t dst_count = 0;
  EdgeList train, val, test;  // global ids (train: the edges left in the graph)
};

Result<TypedLinkEdges> HoldOutTypedEdges(TypedGraphInput* input, int etype, const EdgeSplitFractions& fractions,
                                         uint64_t seed);

}  // namespace dg
