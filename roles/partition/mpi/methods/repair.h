// The balance repair of the distributed partitioner. PT-Scotch balances one
// vertex weight; the measures a partition is judged by are several (nodes,
// train nodes, in-edges, and the nodes of each node type of a typed graph).
// For each measure in turn, every rank learns the per-rank, per-part loads
// (MPI_Allgather) and computes the same plan: moves of load from parts above
// the cap (the mean times 1 + tolerance) to parts below the mean, then to
// parts below the floor (the mean times 1 - tolerance) from parts above the
// mean, each move split across ranks by their share of the source part. A
// rank then moves its own vertices of that part, those that add the fewest
// cut arcs per unit moved first (a moved vertex's neighbours in the block get
// cheaper, so connected groups move together), until its share is moved; in a typed graph a move
// of nodes takes from each node type in proportion to its count, so it keeps
// the per-type balance. Three sweeps over the measures, as a later measure's
// moves shift the earlier ones.
#pragma once

#include <string>
#include <vector>

#include "roles/partition/mpi/methods/measures.h"

namespace dg::mpi {

// Moves vertices of *part until every measure is within its tolerance (collective).
void RepairBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part);

// Largest part over the mean, per measure ("nodes", "train", "edges",
// "type <name>" per node type).
struct BalanceReport {
  std::vector<std::string> measure;
  std::vector<double> max_over_mean;
};

// The ratios of `part` (collective).
BalanceReport MeasureBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o,
                             const std::vector<int32_t>& part);

}  // namespace dg::mpi
