// `distgnn partition --mpi --format ogb`: OGB's files (common/storage/
// ogb_dataset.h) as the input of a distributed run. Every rank converts the
// node CSVs into .npy files in its own scratch directory with the
// single-machine staging functions (ogb_input.h), so each host has them on
// its own disk whether or not the ranks share storage; the scratch lives in
// the staging directory and goes with it. The edge files are not copied:
// each rank parses OGB's edge.csv.gz as the text edge list it already reads
// and keeps its rows (input/input.h; typed: input/typed_input.h). The rest of the
// run is unchanged, so the partition is the one of the same graph written as
// a plain (or typed) dataset directory, byte for byte.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "roles/partition/mpi/input/input.h"

namespace dg::mpi {

// The homogeneous layout (raw/edge.csv.gz, raw/node-*.csv.gz, split/) or
// ogbn-mag's typed one. Errors name OGB's files, never their staged copies.
Result<ShardInput> ReadOgbShard(const Rank& r, const std::string& dataset_dir, bool undirected,
                                const std::string& scratch_dir);

}  // namespace dg::mpi
