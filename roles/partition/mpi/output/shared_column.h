// A global int64 column (orig_nids.npy, orig_eids.npy, type_nids/<type>.npy)
// written on every storage leader (runtime/stage.h) from slices the ranks hold:
// the column is a sequence of pieces, each held by one rank; every leader
// writes the whole column, receiving the pieces of other ranks in messages of
// at most 1M ids. One leader at a time, so sends and receives always match.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/mpi/runtime/exchange.h"

namespace dg::mpi {

struct ColumnPiece {
  int owner;      // the rank holding it
  int64_t count;  // ids
};

// Collective. mine: this rank's pieces, concatenated in column order.
Status WriteSharedColumn(const Rank& r, const std::string& path, bool leader, const std::vector<ColumnPiece>& pieces,
                         const std::vector<int64_t>& mine);

}  // namespace dg::mpi
