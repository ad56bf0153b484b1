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
#include <functional>
#include <map>
#include <string>

#include "common/base/status.h"
#include "common/io/csv_reader.h"
#include "roles/partition/out_of_core_input.h"

namespace dg {

// raw/num-node-list and raw/num-edge-list (-1 where the file is absent), for
// checking the budget before anything is read.
struct OgbCounts {
  int64_t nodes = -1, edges = -1;
};
Result<OgbCounts> ReadOgbCounts(const std::string& dir);

// One node set's files: the homogeneous dataset's, or one type's of ogbn-mag.
// `rows` is its node count (-1: unknown, then no node file exists);
// out_prefix + {features,labels,split}.npy are the staged files.
struct OgbNodeSet {
  std::string feat, label, split_dir;
  int64_t rows = -1;
  std::string out_prefix;
};

// Stages a node set's files; returns name -> path of what it wrote.
using OgbNodeWriter = std::function<Result<std::map<std::string, std::string>>(const OgbNodeSet&)>;

// The one-machine writer: every row, parsed once, a row at a time.
Result<std::map<std::string, std::string>> WriteOgbNodeSet(const OgbNodeSet& set);

// The pieces of it a rank of `partition --mpi` uses (mpi/input/ogb_input.h).
// Rows [share.first, share.end) of node-feat and node-label into
// out_prefix{features,labels}.npy ([share rows, F], [share rows]): only those
// rows are parsed (and line 1, for F); the share that ends at set.rows reads to
// the end of each file and checks its row count, the others that the file
// reaches their end.
Result<std::map<std::string, std::string>> WriteOgbNodeShare(const OgbNodeSet& set, CsvRowRange share,
                                                             const std::string& out_prefix);
// The split (set.split_dir's train/valid/test ids) as out_prefix + "split.npy"
// (int8 [rows]); "" when the set has none.
Result<std::string> WriteOgbSplit(const OgbNodeSet& set);

// The homogeneous layout: raw/node-feat, raw/node-label and the split written
// into scratch_dir as ogb-features.npy (float32 [N, F]), ogb-labels.npy
// (int64 [N]) and ogb-split.npy (int8 [N]); the source names them and
// raw/edge.csv.gz. N as in memory: num-node-list, else node-feat's rows, else
// the largest edge id + 1. Errors name OGB's file and line.
// The node files go through `write` (the one-machine writer by default).
Result<OutOfCoreSource> StageOgbDataset(const std::string& dir, const std::string& scratch_dir,
                                        const OgbNodeWriter& write = WriteOgbNodeSet);

// The typed (ogbn-mag) layout as a typed dataset directory scratch_dir/ogb-typed
// (typed_dataset.h): meta.json, nodes/<type>/{features,labels,split}.npy, and
// edges/<src>__<rel>__<dst>.csv.gz linking to OGB's edge files. Returns it.
Result<std::string> StageOgbTypedDataset(const std::string& dir, const std::string& scratch_dir,
                                         const OgbNodeWriter& write = WriteOgbNodeSet);

// An error from reading the staged typed directory names OGB's edge file
// instead of its link in the scratch directory (which is gone by then).
Status NameOgbEdgeFiles(const Status& st, const std::string& dir, const std::string& staged);

}  // namespace dg
