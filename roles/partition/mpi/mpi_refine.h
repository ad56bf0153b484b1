// Cut refinement of the distributed partitioner, after the balance repair:
// size-constrained label propagation under every measure's cap and floor.
// PT-Scotch balances one folded weight and the repair then moves vertices to
// balance each measure, which cuts arcs; the refinement wins them back.
//
// Each round pairs the parts on the two sides of one bit of the part index
// (each bit in turn); a vertex moves to the part across holding most of its
// neighbours when that cuts fewer arcs. Every rank may move into a part 1/P
// of the room under each measure's cap and out of a part 1/P of its load
// above each floor, so the parts stay within the repair's tolerances. Moves go
// best gain first, FM-style: a pass may run past the room by one tolerance
// band so that moves one way can wait for the moves the other way that make
// room for them (a swap), and then keeps the best prefix that fits. Two
// neighbours crossing each other can make a round gain less than it counted,
// so a round that cut more is undone. Rounds stop when a cycle over the bits
// gains less than 0.5 % of the cut, or after max_rounds.
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
