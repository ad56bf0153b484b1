// Cut refinement of the distributed partitioner, after the balance repair:
// Fiduccia-Mattheyses passes under every measure's cap and floor. PT-Scotch
// balances one folded weight and the repair then moves vertices to balance
// each measure, which cuts arcs; the refinement wins them back.
//
// Each round pairs the parts on the two sides of one bit of the part index
// (each bit in turn). Every rank may move into a part 1/P of the room under
// each measure's cap and out of a part 1/P of its load above each floor, so
// the parts stay within the repair's tolerances, and runs one pass over its
// block with the neighbours on other ranks held where they are: the best
// move by gain first (arcs uncut less arcs cut, weighted by the edges they
// stand for), even at a loss; a move may overrun the room by one tolerance
// band so that moves one way can wait for the moves the other way that make
// room for them, and the pass keeps its best prefix within the room. Two
// neighbours on two ranks crossing each other can make a round gain less
// than it counted, so a round that cut more is undone. Rounds stop when a
// cycle over the bits gains less than 0.5 % of the cut, or after max_rounds.
#pragma once

#include <cstdint>
#include <vector>

#include "roles/partition/mpi/methods/measures.h"

namespace dg::mpi {

struct RefineReport {
  int64_t cut_before = 0, cut_after = 0;  // cut edges (weighted arcs / 2)
  int64_t moved = 0;                      // vertex moves, all ranks
  int rounds = 0;                         // rounds whose moves were kept
};

// The edges `part` cuts: arcs between parts weighted by the edges they
// stand for, halved (needs in.arcs_to_parts; collective).
int64_t EdgeCut(const Rank& r, const RepairInput& in, const std::vector<int32_t>& part, int K);

// Needs in.arcs_to_parts and in.adjacency; collective.
RefineReport RefineCut(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part,
                       int max_rounds = 16);

}  // namespace dg::mpi
