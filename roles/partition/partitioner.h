// The partitioner: a (normalized) graph in memory -> partitions on disk, in
// exactly the layout of docs/formats.md.
//
// Steps: assign nodes to parts (METIS or random), renumber so part p owns the
// contiguous global range [node_map[p], node_map[p+1]) (within a part, nodes keep
// the order of their original ids), build the in-edge CSR over the new ids with a
// counting sort (every edge stored once, in its destination's part; within a row
// edges keep their order in the input edge list), then write every file into a
// temporary sibling directory and rename it into place only when complete.
//
// Edge ids are implicit: part p's k-th edge is global edge edge_map[p] + k;
// orig_eids.npy maps it back to its index in the input edge list given here.
// Progress (stage timings, peak RSS, edge cut, per-part owned/in-edges/train/
// halo) goes to `log` if non-null.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/storage/dataset.h"
#include "common/storage/partition.h"
#include "common/base/status.h"
#include "config/partition_spec.h"
#include "roles/partition/typed_input.h"

namespace dg {

struct GraphInput {
  int64_t num_nodes = 0;
  EdgeList edges;  // ids in [0, num_nodes); released by PartitionGraph once the CSR is built
  std::map<std::string, Array> node_data;  // num_nodes rows each
  std::map<std::string, Array> edge_data;  // one row per edge of the ORIGINAL input list
  // If not empty: edges.src[k] came from input edge edge_origin[k] (see
  // NormalizeEdges), i.e. its edge_data row. Empty: row k is edge k.
  std::vector<int64_t> edge_origin;
  // A typed graph (typed_input.h): ids type-major, edges concatenated by type,
  // node arrays per type in types->node_data (node_data and edge_data empty).
  // The output is a format_version 2 partition.
  std::shared_ptr<const TypeLayout> types;
};

struct PartitionOptions {
  std::string graph_name;
  std::string out_dir;        // OUT: receives NAME.json, orig_*.npy, part*/
  PartitionMethod method = PartitionMethod::kMetis;
  int num_parts = 1;
  bool balance_train = false;  // METIS constraint on train nodes (split == 0 or train_mask)
  bool balance_edges = false;  // METIS constraint on in-degree
  bool force = false;          // replace an existing OUT
  uint64_t seed = 0;
  std::FILE* log = nullptr;    // progress lines; nullptr = quiet
  // --method stream: passes over the adjacency (Fennel, restreamed).
  int stream_passes = 3;
  int metis_niter = 0;  // METIS refinement iterations per level (0 = METIS default 10; DGL uses 1)
  // Out of core (out_of_core.h): memory_budget > 0 selects it.
  uint64_t memory_budget = 0;  // bytes for the partitioner's data (the process itself comes on top)
  std::string tmp_dir;         // spilled runs; default: OUT's parent directory
  uint64_t run_bytes = 0;      // one sorted run; 0 = what the budget leaves (tests force spills with it)
  bool normalize_features = false;  // out of core only: 'features' rows divided by their sum on the way
  int64_t num_classes = 0;  // > 0: recorded as is (merged typed graphs: labels are -1 off the target type)
};

// Checks options against the input before any work (K, names, output).
Status ValidatePartitionRequest(const GraphInput& input, const PartitionOptions& opts);

// Partitions and writes; returns the config as written to OUT/NAME.json.
Result<PartitionConfig> PartitionGraph(GraphInput* input, const PartitionOptions& opts);

// Train flags per node from node_data: split == 0, else train_mask != 0; empty if neither.
std::vector<uint8_t> TrainFlags(const std::map<std::string, Array>& node_data);

}  // namespace dg
