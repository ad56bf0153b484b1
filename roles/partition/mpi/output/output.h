// From an assignment of the block-distributed vertices to the partition on
// disk, in the single-machine layout (docs/formats.md), each part written by
// the rank that serves it.
//
// Renumbering is the single-machine rule: part p owns [node_map[p],
// node_map[p+1]) and keeps its nodes in original id order; a vertex's new id
// is node_map[its part] + the vertices of that part on lower ranks (an
// all-gather of per-rank counts) + its rank among the local ones. Edges reach
// their part's rank in three bounded all-to-all rounds (to the destination's
// owner for the new destination id, to the source's owner for the new source
// id, to the part's rank), and each (new id, original id) pair of a vertex in
// one more. There every part's in-edge CSR is sorted by (destination, edge id),
// the in-memory partitioner's order, and written with the shared writers
// (WritePartNodeData, AggregateIndexWriter): a run gives the files a
// single-machine run with the same assignment gives. A typed graph's parts
// add edge_types.npy and their node rows per type (WriteTypedPartNodeData),
// and the shared files the typed ids (output/typed_output.h). Edge arrays
// (--edge-data, output/edge_data.h) and held-out link prediction edges
// (--edge-split, graph/edge_split.h) go to the parts of their edges; every rank
// hashes the files it wrote and NAME.json records the digests (output/checksums.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/storage/partition.h"
#include "roles/partition/mpi/graph/edge_split.h"
#include "roles/partition/mpi/graph/graph.h"
#include "roles/partition/mpi/runtime/stage.h"
#include "config/partition_spec.h"
#include "roles/partition/typed_input.h"

namespace dg::mpi {

// Part p is written by rank p * P / K: rank m writes part m when K = P, and a
// contiguous run of parts when P < K.
struct PartLayout {
  int num_parts = 1, ranks = 1;
  int RankOf(int p) const { return static_cast<int>((static_cast<int64_t>(p) * ranks) / num_parts); }
};

struct OutputOptions {
  std::string graph_name;
  // NAME.json's part_method: the method asked for, or "metis" when --method
  // auto partitioned the whole graph with METIS (PartMethodName, partition_over_mpi.cpp).
  std::string part_method = "scotch";
  int num_parts = 1;
  bool normalize_features = false;
  int64_t batch = 1 << 20;
  LinkSplitOptions link;  // with GraphShards::held
};

struct GraphShards {
  int64_t num_nodes = 0, num_edges = 0;
  const VertexBlocks* blocks = nullptr;
  std::vector<Edge>* edges = nullptr;           // this rank's; consumed
  const std::vector<int32_t>* part = nullptr;   // of this rank's block
  const std::map<std::string, Array>* node_data = nullptr;  // every row, mapped (shared storage)
  const TypeLayout* types = nullptr;  // a typed graph (output/typed_output.h); null = homogeneous
  // --edge-data: the mapped arrays (one row per input edge) and the input row
  // of each edge this rank holds (output/edge_data.h); null = none.
  const std::map<std::string, Array>* edge_data = nullptr;
  const std::vector<int64_t>* origins = nullptr;
  HeldOut* held = nullptr;  // --edge-split: this rank's held-out edges, consumed; null = none
};

// Writes this rank's parts into the stage, and the leaders' shared files;
// returns the config (NAME.json as written, on every rank).
Result<PartitionConfig> WritePartition(const Rank& r, GraphShards* g, const SharedStage& stage,
                                       const OutputOptions& o);

}  // namespace dg::mpi
