// Edge splits for link prediction: every edge is train (0), val (1)
// or test (2); val and test edges are held out of the message-passing graph.
//
// Contract:
// - ParseEdgeSplit("0.85,0.05,0.10"): three fractions >= 0 summing to 1 (within
//   1e-6), else InvalidArgument naming `flag`.
// - AssignEdgeSplit: exact counts. The unit of assignment is an edge, or for an
//   undirected graph the unordered pair {u, v}, so an edge and its reverse share
//   their split. Units are sorted, shuffled with Rng(MixSeed(seed, 0xed9e)),
//   and the first round(f0 * n) are train, the next round(f1 * n) val, the rest
//   test. The result depends only on the set of edges and the seed, never on the
//   order of the list.
// - SplitEdgeList: keeps the train edges in *edges (and *origin, if not empty,
//   in step) and returns the held-out ones.
// - Partition layout (written by `partition --edge-split`, read by trainers):
//     OUT/link_split.json           {"fractions": [..], "seed": S, "undirected": b,
//                                    "num_train": n, "num_val": n, "num_test": n}
//     OUT/partP/val_edges.npy       int64 [M, 2] (src, dst) new global ids, the
//     OUT/partP/test_edges.npy      held-out edges whose destination part P owns
//   The partition's in-edge CSR holds only train edges. A typed partition
//   split on one edge type (`partition --edge-split --link-etype`) adds
//   "etype": "src:relation:dst" and "reverse_etype": "dst:rev_relation:src"
//   (or null) to link_split.json; its held-out edges are that type's, and the
//   CSR lacks them and their reverse copies.
// - Typed graphs, one edge type (train-local --link-etype, partition
//   --link-etype, train.link_etype): MatchEdgeType finds the type named by
//   "src:relation:dst", "src__relation__dst" or a relation of exactly one
//   type, else an InvalidArgument naming `flag` and listing the types;
//   MatchReverseEdgeType is (dst, rev_<relation>, src) or, for a rev_ type,
//   its forward type (-1 if absent). HoldOutTypePairs splits one edge type's
//   type-local pairs: the unit is a distinct (src, dst) pair, assigned by
//   AssignEdgeSplit(undirected = false), so the split depends only on the set
//   of pairs and the seed; val/test pairs leave *src/*dst (order kept) and one
//   swapped copy per held-out edge leaves *rev_src/*rev_dst (may be null).
// Torch-free.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/base/array.h"
#include "common/storage/dataset.h"

namespace dg {

using EdgeSplitFractions = std::array<double, 3>;

Result<EdgeSplitFractions> ParseEdgeSplit(const std::string& text, const std::string& flag);

// One int8 per edge of `edges`: 0 train, 1 val, 2 test.
std::vector<int8_t> AssignEdgeSplit(const EdgeList& edges, const EdgeSplitFractions& fractions,
                                    uint64_t seed, bool undirected);

// A dataset's own split: DIR/edge_split.npy, one int8 (0/1/2) per INPUT edge
// (before normalization). Returns false in *present if there is none.
Status LoadInputEdgeSplit(const std::string& dataset_dir, int64_t input_edges, bool* present, Array* out);
// The split of each normalized edge k: input_split[origin[k]]. For an
// undirected graph a pair takes the split of its (min, max) edge, so an edge
// and its reverse always share it.
Result<std::vector<int8_t>> SplitFromInput(const Array& input_split, const EdgeList& edges,
                                           const std::vector<int64_t>& origin, bool undirected);

struct HeldOutEdges {
  EdgeList val, test;
};

// Removes val (1) and test (2) edges from *edges (and from *origin, if it is
// not empty); entries < 0 or > 2 are an InvalidArgument.
Result<HeldOutEdges> SplitEdgeList(EdgeList* edges, std::vector<int64_t>* origin,
                                   const std::vector<int8_t>& split);

struct EdgeTypeNames {
  std::string src, relation, dst;
  std::string Name() const { return src + ":" + relation + ":" + dst; }
};
Result<int> MatchEdgeType(const std::vector<EdgeTypeNames>& types, const std::string& spec, const std::string& flag);
int MatchReverseEdgeType(const std::vector<EdgeTypeNames>& types, int etype);
// "a:b:c, d:e:f, ..." of every type.
std::string EdgeTypeList(const std::vector<EdgeTypeNames>& types);
Result<HeldOutEdges> HoldOutTypePairs(std::vector<int64_t>* src, std::vector<int64_t>* dst,
                                      std::vector<int64_t>* rev_src, std::vector<int64_t>* rev_dst,
                                      const EdgeSplitFractions& fractions, uint64_t seed);

// The held-out edges of a partitioned graph (see the layout above).
struct LinkSplitInfo {
  bool present = false;   // OUT/link_split.json exists
  bool undirected = false;
  std::string etype, reverse_etype;  // typed: "src:relation:dst" of the split type and of its reverse ("" = none)
  int64_t num_train = 0, num_val = 0, num_test = 0;
};
Result<LinkSplitInfo> ReadLinkSplitInfo(const std::string& partition_base_dir);
// Pairs of one part's val_edges.npy / test_edges.npy (which = "val" | "test").
Status ReadHeldOutEdges(const std::string& part_dir, const std::string& which, EdgeList* out);

}  // namespace dg
