// The distributed graph of `distgnn-mpi-partition`: each rank's shard of the
// edge list, normalized across ranks, and the assignment of its block of
// vertices to parts (PT-Scotch's SCOTCH_dgraphPart, clusters partitioned by
// METIS, the stream, or random).
//
// Vertices are block-distributed: rank r owns [first[r], first[r+1]) with
// first[r] = r * N / P. Edges start on the rank that read them (rows
// [r * E / P, (r+1) * E / P) of src.npy / dst.npy: byte ranges of files on
// storage every rank sees) with their input index as edge id. Normalization
// (--undirected, --drop-duplicates) routes every edge (and its reverse) to the
// owner of its source, which sorts by (src, dst) and keeps one of each: the
// ranks' lists, concatenated in rank order, are NormalizeEdges' list, ids
// included. --drop-self-loops alone filters in place and renumbers by an
// exclusive scan of the counts (input order, as NormalizeEdges).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/storage/dataset.h"
#include "roles/partition/mpi/mpi_cluster.h"
#include "roles/partition/mpi/mpi_exchange.h"
#include "roles/partition/mpi/mpi_refine.h"
#include "roles/partition/mpi/mpi_repair.h"
#include "config/partition_spec.h"

namespace dg::mpi {

struct Edge {
  int64_t src, dst, id;
};

class VertexBlocks {
 public:
  VertexBlocks(int64_t num_nodes, int ranks);
  int Owner(int64_t v) const;
  int64_t First(int r) const { return first_[r]; }
  int64_t Count(int r) const { return first_[r + 1] - first_[r]; }

 private:
  std::vector<int64_t> first_;
};

// This rank's rows of the mapped src/dst columns, ids checked against [0, N).
Result<std::vector<Edge>> ReadEdgeShard(const Rank& r, const Array& src, const Array& dst, int64_t num_nodes,
                                        const std::string& what);

// Applies the normalization options across ranks (see the file comment);
// returns the global number of edges after it.
int64_t NormalizeShards(const Rank& r, const VertexBlocks& blocks, const EdgeListOptions& opts, int64_t batch,
                        std::vector<Edge>* edges);

struct AssignOptions {
  PartitionMethod method = PartitionMethod::kAuto;
  int num_parts = 1;
  uint64_t seed = 0;
  bool balance_train = false, balance_edges = false;
  double imbalance = 0.03;  // PT-Scotch's load imbalance ratio
  int64_t cluster_max_arcs = 0;  // rank 0's limit (ClusterOptions::max_arcs; auto: the whole graph's too)
  double tolerance = 0.04;  // the repair's cap: the mean times 1 + tolerance
  int64_t batch = 1 << 20;
  std::string spill_dir;    // where the rank's edges wait while PT-Scotch runs ("" = in memory)
};

// What the balance measures count of each vertex of this rank's block.
struct BlockVertices {
  std::vector<uint8_t> train;           // train flags (empty = none)
  std::vector<int32_t> node_type;       // node type ids (empty = untyped)
  std::vector<std::string> type_names;  // by type id
  std::vector<int64_t> type_counts;     // nodes of each type in the whole graph
};

// Part of each vertex of this rank's block. By default (--method auto) a
// graph whose arcs fit rank 0 (RankZeroArcLimit) takes METIS's parts of the
// whole graph on rank 0 (mpi_whole_graph.h), the single-machine assignment,
// kept as they are. Otherwise the block's symmetric adjacency
// (mpi_adjacency.h) gets its first parts from the clusters partitioned by
// METIS (mpi_cluster.h; auto past the limit), from the stream (mpi_stream.h) or from
// PT-Scotch (mpi_scotch.h);
// RepairBalance (mpi_repair.h) then moves vertices off the parts above the
// cap of each measure in turn, and RefineCut (mpi_refine.h) moves vertices
// back to cut fewer arcs within every cap. --method random deals the block's
// shuffled vertices round-robin.
struct Assignment {
  std::vector<int32_t> part;
  BalanceReport balance;
  int64_t initial_cut = 0;  // edges the first parts cut, before the repair
  RefineReport refine;      // all but random
  ClusterReport clusters;   // auto and cluster only
};

// Whether the assignment partitions by the graph (cluster, stream, scotch
// into K > 1 parts): then the repair and the refinement run, and the log
// gives the cut each left.
bool PartitionsByGraph(PartitionMethod method, int num_parts);

// *edges is left as it was (it is parked in opts.spill_dir while the parts are computed).
Result<Assignment> AssignBlock(const Rank& r, const VertexBlocks& blocks, std::vector<Edge>* edges,
                               const BlockVertices& vertices, const AssignOptions& opts);

}  // namespace dg::mpi
