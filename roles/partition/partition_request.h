// What the partitioning engines take: the graph, in memory (GraphInput, for
// PartitionGraph in partitioner.h) or out of core (OutOfCoreInput, for
// PartitionGraphOutOfCore in out_of_core.h), and the options of the run
// (PartitionOptions: the PartitionSpec the flags gave, and what the run adds). Kept apart from
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

// The options of a run: the settings as parsed once in config/ (the
// PartitionSpec of the flags; the engines read the method, the parts, the
// balance, the seed, the output, the budget from it) and what the run adds.
struct PartitionOptions {
  PartitionSpec spec;
  std::FILE* log = nullptr;  // progress lines; nullptr = quiet
  // Out of core only: 'features' rows divided by their sum on the way (the
  // in-memory inputs normalize at load, so they leave it false).
  bool normalize_rows = false;
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
