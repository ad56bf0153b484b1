// The balance repair of the distributed partitioner. PT-Scotch balances one
// vertex weight; the measures a partition is judged by are several (nodes,
// train nodes, in-edges). For each measure in turn, every rank learns the
// per-rank, per-part loads (MPI_Allgather) and computes the same plan: moves
// of load from parts above the cap (the mean times 1 + tolerance) to parts
// below the mean, each move split across ranks by their share of the source
// part. A rank then moves its own vertices of that part, lowest degree first
// (the fewest cut edges added), until its share is moved. Two sweeps over the
// measures, as a later measure's moves shift the earlier ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "roles/partition/mpi/mpi_exchange.h"

namespace dg::mpi {

struct RepairInput {
  const std::vector<int64_t>* degree;     // arcs of each block vertex (the cost of moving it)
  const std::vector<int64_t>* in_degree;  // in-edges of each block vertex
  const std::vector<uint8_t>* train;      // train flags (empty = none)
};

struct BalanceOptions {
  int num_parts = 1;
  bool balance_train = false, balance_edges = false;
  double tolerance = 0.04;
};

// Largest part over the mean, per measure, after the repair ("nodes", "train", "edges").
struct BalanceReport {
  std::vector<std::string> measure;
  std::vector<double> max_over_mean;
};

BalanceReport RepairBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o, std::vector<int32_t>* part);

// The same ratios without repairing.
BalanceReport MeasureBalance(const Rank& r, const RepairInput& in, const BalanceOptions& o,
                             const std::vector<int32_t>& part);

}  // namespace dg::mpi
