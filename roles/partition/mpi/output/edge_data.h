// --edge-data NAME=FILE.npy under MPI: edge arrays, one row per input edge,
// written per part as the single-machine partitioner writes them
// (partP/edge_data/NAME.npy, the part's edges in CSR order; NAME.json's
// edge_data with the graph's edge count as rows). Every rank maps FILE.npy
// (storage every rank sees) and the rank of a part gathers its edges' rows.
//
// Normalization renumbers edges (graph/graph.h: an edge's id becomes its
// position in NormalizeEdges' list) and forgets which input row it came from,
// so NormalizedOrigins works that out beside it, on the rank that will hold
// the normalized edge: NormalizeEdges' origin (of duplicates the first in
// the list of input edges followed by their reverses, so a reverse edge added
// by --undirected points at the edge it reverses). Held origins follow the
// ids: rank r holds those of ids [first_r, first_r + n_r) in rank order.
// The writer of a part asks the holders for its edges' origins by id
// (PullOrigins: one all-to-all of requests, one of answers).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "roles/partition/mpi/graph/graph.h"

namespace dg::mpi {

// Maps every file; each must have input_edges rows (one per input edge).
Result<std::map<std::string, Array>> MapEdgeArrays(const std::map<std::string, std::string>& files,
                                                   int64_t input_edges);

// Collective, before NormalizeShards(opts) on the same shard: the input row
// of each edge this rank holds after it, in its order.
std::vector<int64_t> NormalizedOrigins(const Rank& r, const VertexBlocks& blocks, const EdgeListOptions& opts,
                                       int64_t input_edges, int64_t batch, const std::vector<Edge>& edges);

// Collective: the origin of each of `edges` (by id) from the ranks holding them.
std::vector<int64_t> PullOrigins(const Rank& r, const std::vector<int64_t>& held, const std::vector<Edge>& edges,
                                 int64_t batch);

// part_dir/edge_data/NAME.npy: rows origin[0..m) of every array.
Status WriteEdgeRows(const std::string& part_dir, const std::map<std::string, Array>& arrays, const int64_t* origin,
                     int64_t m);

}  // namespace dg::mpi
