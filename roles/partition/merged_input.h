// `partition --merge-types`: a typed dataset with all node types merged into
// one and all edge types into one, partitioned as a homogeneous graph, so that
// untyped models (sage, gcn, gat, mlp) train on it with launch. The graph is
// the one train-local --merge-types trains on (common/sampling/typed_graph.h,
// merged = true):
//   - nodes: every node of every type, input ids type-major (TypeLayout);
//   - edges: those of every edge type (rev_<relation> ones with --undirected),
//     an edge present in two relations kept twice;
//   - "features": float32 [N, F_max], F_max the widest type's width, a type's
//     own columns first and zeros after them, all zeros for a featureless
//     type (a job's train.embedding gives every node a learnable input beside
//     them, as train-local's --embedding-dim does);
//   - "labels" int64 and "split" int8: the target type's, -1 on every other
//     type. Other node arrays are not kept.
// The partition records the dataset's class count (its labels hold -1s).
#pragma once

#include <string>

#include "common/base/status.h"
#include "common/storage/typed_dataset.h"
#include "roles/partition/partitioner.h"

namespace dg {

// A typed dataset in memory (read with the load options already applied):
// its edges are moved out, its arrays copied into the merged ones.
Status PartitionMergedInMemory(TypedDataset* ds, const PartitionOptions& opts, double read_seconds);

// A typed dataset directory out of core (opts.memory_budget > 0): the flat
// edge columns and the merged node arrays are written into scratch_dir, a
// chunk of rows at a time, and mapped from there.
Status PartitionMergedOutOfCore(const std::string& dir, bool undirected, const std::string& scratch_dir,
                                const PartitionOptions& opts);

}  // namespace dg
