// The balance measures of the distributed partitioner and their loads: what
// the repair (methods/repair.h) and the cut refinement (methods/refine.h) both count.
// A measure counts one quantity per vertex of a rank's block: 1 (nodes), the
// train flag, the in-degree (in-edges), or 1 for the vertices of one node type.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/partition_spec.h"
#include "roles/partition/mpi/runtime/exchange.h"
#include "roles/partition/mpi/graph/neighbor_parts.h"

namespace dg::mpi {

struct RepairInput {
  const std::vector<int64_t>* degree;     // arcs of each block vertex (the cost of moving it)
  const std::vector<int64_t>* in_degree;  // in-edges of each block vertex
  const std::vector<uint8_t>* train;      // train flags (empty = none)
  const std::vector<int32_t>* node_type = nullptr;       // type id of each block vertex (null or empty = untyped)
  const std::vector<std::string>* type_names = nullptr;  // by type id, for the report
  // Arcs from each block vertex to each part under a given assignment
  // (out[v * K + p]; collective). When set, the repair moves the vertices that
  // add the fewest cut arcs per unit moved (otherwise the lowest degree first),
  // and the cut refinement runs.
  std::function<std::vector<int64_t>(const std::vector<int32_t>& part)> arcs_to_parts;
  // The block's adjacency, with arcs_to_parts: the repair and the refinement
  // follow each move's effect on the neighbours in the block.
  const BlockAdjacency* adjacency = nullptr;
};

struct BalanceOptions {
  int num_parts = 1;
  BalanceMeasures balance;  // --balance: train nodes, in-edges (nodes always)
  double tolerance = 0.04;       // nodes, train nodes, in-edges
  double type_tolerance = 0.09;  // the nodes of each node type
};

enum class MeasureKind { kNodes, kTrain, kEdges, kType };

struct Measure {
  MeasureKind kind;
  int type = -1;  // kType: the node type counted
};

bool Typed(const RepairInput& in);
int NumTypes(const RepairInput& in);

// What vertex v of the block counts in measure m.
int64_t MeasureValue(const RepairInput& in, Measure m, int64_t v);

// "nodes", "train", "edges", "type <name>".
std::string MeasureName(const RepairInput& in, Measure m);

// The measures a partition is judged by, in the report's order: nodes, then
// train and in-edges when balanced, then each node type.
std::vector<Measure> CheckedMeasures(const RepairInput& in, const BalanceOptions& o);

// The tolerance of measure m: the part's load stays within the mean times 1 +- it.
double Tolerance(const BalanceOptions& o, Measure m);

// What each vertex of the block counts in the measures a partitioner that
// balances several at once holds within their caps (METIS on the clusters,
// the stream): those the partition is judged by, with the nodes of each type
// in place of the node count in a typed graph, and without measures that
// count nothing (METIS refuses an all-zero constraint).
struct BlockLoads {
  std::vector<Measure> measures;
  std::vector<int64_t> value;  // value[v * M + i]
  std::vector<int64_t> total;  // the whole graph's, per measure
  int M() const { return static_cast<int>(measures.size()); }
};

BlockLoads BalancedLoads(const Rank& r, const RepairInput& in, const BalanceOptions& o);  // collective

// loads[r * K + p]: rank r's load of part p (collective).
std::vector<int64_t> GatherLoads(const Rank& r, const RepairInput& in, Measure m, int K,
                                 const std::vector<int32_t>& part);

// The whole graph's load of each part, from GatherLoads' per-rank loads.
std::vector<int64_t> PartTotals(const std::vector<int64_t>& loads, int K, int P);

// The largest part's load over the mean (1 when all are empty).
double MaxOverMean(const std::vector<int64_t>& totals);

}  // namespace dg::mpi
