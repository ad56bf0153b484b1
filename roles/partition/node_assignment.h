// Assigning nodes to partitions: METIS k-way or balanced random.
//
// Both return part[v] in [0, k) for every node v. MetisAssignment builds the
// symmetric, loop-free, duplicate-free adjacency METIS requires from a directed
// edge list (flat idx_t arrays, deduped per row with a marker array, freed
// before returning) and calls METIS_PartGraphKway. Vertex weights select the
// balance constraints: always node count, plus is_train (balance_train) and
// in-degree (balance_edges) as extra METIS constraints. k == 1 never calls METIS.
// RandomAssignment shuffles the nodes (seeded) and deals them into k parts of
// sizes differing by at most one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/edge_source.h"

namespace dg {

struct MetisOptions {
  int num_parts = 1;
  uint64_t seed = 0;
  const std::vector<uint8_t>* is_train = nullptr;  // non-null: balance train nodes
  bool balance_edges = false;                      // balance in-degree sums
  // Non-null (a typed graph, ids type-major): one balance constraint per
  // non-empty node type instead of the node count.
  const std::vector<int64_t>* type_offsets = nullptr;
  int niter = 0;  // refinement iterations per level; 0 = METIS's default (10). DGL passes 1.
};

struct MetisResult {
  std::vector<int32_t> part;
  int64_t objval = 0;             // METIS's edge cut of the symmetric graph
  int64_t adjacency_entries = 0;  // directed entries given to METIS
  double build_seconds = 0, metis_seconds = 0;
};

// Edges are walked in chunks (twice, three times with balance_edges): mmap'd
// inputs are not held in memory, only METIS's adjacency is.
Result<MetisResult> MetisAssignment(int64_t num_nodes, const EdgeSource& edges, const MetisOptions& opts);

// The error of a METIS call that returned rc (not METIS_OK).
Status MetisStatus(const std::string& call, int rc);

// Bytes MetisAssignment needs at most for a graph of num_edges directed edges
// (the adjacency it builds plus METIS's own; measured, see the .cpp). Used to
// refuse before starting when a --memory-budget is smaller.
uint64_t MetisMemoryEstimate(int64_t num_nodes, int64_t num_edges);

std::vector<int32_t> RandomAssignment(int64_t num_nodes, int num_parts, uint64_t seed);
// RandomAssignment per node type (ids type-major, type t = [offsets[t], offsets[t+1])):
// every part gets an equal share (+-1) of every type.
std::vector<int32_t> TypedRandomAssignment(const std::vector<int64_t>& type_offsets, int num_parts, uint64_t seed);

// The renumbering an assignment implies: part p owns the new ids
// [node_map[p], node_map[p+1]), original order kept within a part.
struct Renumbering {
  std::vector<int64_t> node_map;   // [K + 1]
  std::vector<int64_t> new_id;     // original id -> new id
  std::vector<int64_t> orig_nids;  // new id -> original id
};
Renumbering RenumberByPart(const std::vector<int32_t>& part, int num_parts);

}  // namespace dg
