// Cut refinement of the distributed partitioner, after the balance repair:
// size-constrained label propagation under every measure's cap and floor.
// PT-Scotch balances one folded weight and the repair then moves vertices to
// balance each measure, which cuts arcs; the refinement wins them back.
//
// Each round splits the parts into sources and sinks (by one bit of the part
// index, each bit in both directions in turn); a vertex in a source part moves
// to the sink part holding most of its neighbours when that cuts fewer arcs.
// As sink vertices stay put, a move never cuts more than its gain says, even
// when neighbours move in the same round. Every rank may move into a part 1/P
// of the room under each measure's cap (and out of a part 1/P of its load
// above each floor), best gain first, so the parts stay within the repair's
// tolerances. Rounds stop when a full cycle of directions gains less than
// 0.5 % of the cut, or after max_rounds.
#pragma once

#include <cstdint>
#include <vector>

#include "roles/partition/mpi/mpi_measures.h"

namespace dg::mpi {

struct RefineReport {
  int64_t cut_before = 0, cut_after = 0;  // cut edges (arcs / 2)
  int64_t moved = 0;                      // vertex moves, all ranks
  int rounds = 0;
};

// Needs in.arcs_to_parts; collective.
RefineReport RefineCut(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part,
                       int max_rounds = 16);

}  // namespace dg::mpi
