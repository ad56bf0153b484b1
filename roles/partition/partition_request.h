// What the partitioning engines take: the graph, in memory (GraphInput, for
// PartitionGraph in partitioner.h) or out of core (OutOfCoreInput, for
// PartitionGraphOutOfCore in out_of_core.h), and the options of the run
// (PartitionOptions, from the PartitionSpec the flags gave). Kept apart from
// the engines so that the writers and the inputs below them can name these
// types without including an engine.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/storage/dataset.h"
#include "config/partition_spec.h"
#include "roles/partition/edge_source.h"

namespace dg {

struct TypeLayout;  // typed_input.h

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

struct OutOfCoreInput {
  int64_t num_nodes = 0;
  EdgeSource edges;                          // normalized already (edge_normalize.h)
  std::map<std::string, Array> node_data;    // num_nodes rows each
  std::set<std::string> mapped;              // names of node_data arrays that are mmaps (pages may be dropped)
  std::shared_ptr<const TypeLayout> types;   // a typed graph (as GraphInput::types)
};

}  // namespace dg
