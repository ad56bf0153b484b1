// `partition --format ogb --memory-budget`: OGB's files (common/storage/
// ogb_dataset.h) made into an input of the out-of-core partitioner without
// holding them. The node CSVs are parsed once, a row at a time, into .npy
// files in the out-of-core path's scratch directory (removed with it), which
// the node-data writer then maps; the edge files are not copied: they are
// streamed by the text edge list path (gzip in 8 MB blocks, out_of_core_input.h
// and typed_input.h). Only the split is held whole while it is filled (one
// byte per node; the budget check has allowed 25). The result is the same
// partition, byte for byte, as reading the files in memory.
// `partition --mpi --format ogb` stages with the same functions, each rank
// into its own scratch directory (mpi/input/ogb_input.h).
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "roles/partition/out_of_core_input.h"

namespace dg {

// raw/num-node-list and raw/num-edge-list (-1 where the file is absent), for
// checking the budget before anything is read.
struct OgbCounts {
  int64_t nodes = -1, edges = -1;
};
Result<OgbCounts> ReadOgbCounts(const std::string& dir);

// The homogeneous layout: raw/node-feat, raw/node-label and the split written
// into scratch_dir as ogb-features.npy (float32 [N, F]), ogb-labels.npy
// (int64 [N]) and ogb-split.npy (int8 [N]); the source names them and
// raw/edge.csv.gz. N as in memory: num-node-list, else node-feat's rows, else
// the largest edge id + 1. Errors name OGB's file and line.
Result<OutOfCoreSource> StageOgbDataset(const std::string& dir, const std::string& scratch_dir);

// The typed (ogbn-mag) layout as a typed dataset directory scratch_dir/ogb-typed
// (typed_dataset.h): meta.json, nodes/<type>/{features,labels,split}.npy, and
// edges/<src>__<rel>__<dst>.csv.gz linking to OGB's edge files. Returns it.
Result<std::string> StageOgbTypedDataset(const std::string& dir, const std::string& scratch_dir);

// An error from reading the staged typed directory names OGB's edge file
// instead of its link in the scratch directory (which is gone by then).
Status NameOgbEdgeFiles(const Status& st, const std::string& dir, const std::string& staged);

}  // namespace dg
