// --edge-split TRAIN,VAL,TEST under MPI (link prediction, homogeneous): the
// layout `distgnn partition --edge-split` writes (common/storage/link_split.h:
// partP/val_edges.npy and test_edges.npy by the destination's part,
// OUT/link_split.json; the parts' CSRs hold only train edges).
//
// The unit of the split is an edge, or under --undirected the unordered pair
// {u, v} (an edge and its reverse share a split), as on one machine. One
// machine shuffles the sorted units with one generator, which needs every
// unit in one place; here each unit gets the key h(seed, u, v), a bijection
// of u * N + v (so keys are distinct while N^2 < 2^64), the units are ordered
// by key, and the first round(f0 * n) are train, the next round(f1 * n) val,
// the rest test. The counts are one machine's; the edges chosen differ from
// one machine's, and depend only on the set of edges and the seed, never on P
// or the input order. Each rank dedupes the keys sent to it (key mod P), and
// the two boundary keys are found by bisection over the 64-bit key range,
// one all-reduce per step.
//
// SplitShards runs after normalization, before assignment (the partition is
// of the train graph, as on one machine): held-out edges leave the shards
// (and the origins of --edge-data, output/edge_data.h, in step) and the train
// edges are renumbered in order, so ids are positions in the train list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/storage/link_split.h"
#include "roles/partition/mpi/graph/graph.h"

namespace dg::mpi {

struct LinkSplitOptions {
  EdgeSplitFractions fractions{};
  uint64_t seed = 0;
  bool undirected = false;
  int64_t num_nodes = 0;
};

struct HeldOut {
  std::vector<Edge> val, test;  // this rank's, original node ids; id = position in the normalized list
  int64_t num_train = 0, num_val = 0, num_test = 0;  // over all ranks
};

// Collective. origins: null, or one per edge of *edges (kept in step).
HeldOut SplitShards(const Rank& r, const LinkSplitOptions& o, int64_t batch, std::vector<Edge>* edges,
                    std::vector<int64_t>* origins);

// part_dir/{val,test}_edges.npy: int64 [M, 2] (new src, new dst) of the given edges.
Status WriteHeldOutEdges(const std::string& part_dir, const Edge* val, int64_t num_val, const Edge* test,
                         int64_t num_test);

}  // namespace dg::mpi
