// The stream method of the distributed partitioner (--method stream), and
// the cluster method's plan for a graph that hardly clusters (its cluster
// graph too large for rank 0 and keeping more than half the graph's arcs: a
// graph without communities, such as uniform random edges). A multilevel
// method gains little on such a graph: on one machine the stream partitioner
// cuts a uniform 1M / 20M graph as METIS does, while PT-Scotch's coarse
// levels keep nearly all of its arcs in memory. So each rank streams the
// vertices of its block where they lie.
//
// Each rank takes its vertices in a seeded random order, in `rounds` slices,
// and puts each into the part that maximizes, as linear deterministic greedy
// (LDG) streaming does, its arcs into the part times the room the part has
// left: 1 - the part's load over its capacity (the mean times 1 + tolerance),
// in the measure the part is fullest in. A vertex that fits no part goes to
// the least full. The parts of neighbours on other ranks are asked of their
// owners at the start of each slice (those not yet placed count nothing);
// the loads are summed across ranks then too, and within a slice each rank
// counts the other ranks as adding what it adds itself. Later passes take
// each vertex out of its part and place it again, now that every neighbour
// has one (restreaming, Nishimura & Ugander, KDD 2013, as the single-machine
// stream partitioner does).
//
// Repeatable for the same P, K and seed: the order, the slices and the
// exchanges depend on nothing else.
#pragma once

#include <cstdint>
#include <vector>

#include "roles/partition/mpi/methods/measures.h"

namespace dg::mpi {

struct VertexStreamOptions {
  uint64_t seed = 0;
  int rounds = 16;  // slices of each rank's block; the parts across ranks are exchanged between them
  int passes = 3;   // passes after the first place each vertex again, seeing every neighbour's part
  int64_t batch = 1 << 20;
};

// The part of each vertex of this rank's block, into bo.num_parts parts,
// holding each measure of `loads` (BalancedLoads) under a capacity of the
// mean times 1 + 3/4 of bo.tolerance (as METIS's constraints on the
// clusters). Needs in.adjacency; collective.
std::vector<int32_t> StreamParts(const Rank& r, const RepairInput& in, const BlockLoads& loads,
                                 const BalanceOptions& bo, const VertexStreamOptions& o);

}  // namespace dg::mpi
