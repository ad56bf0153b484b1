// `distgnn partition`: a user's graph (a dataset directory or an edge list with
// node arrays) -> partitions on disk, in memory or, with a memory budget (or
// when the in-memory path would need more than half the RAM), out of core
// (out_of_core.h); same output either way. Every user mistake is one message
// and nothing is written: the options are checked before reading, the input
// before partitioning, and the output appears only by a final rename.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/partition/partition_method.h"

namespace dg {

struct PartitionDatasetOptions {
  std::string dataset;     // dataset directory (plain or typed), or
  InputFormat format = InputFormat::kPlain;  // kOgb: OGB's raw/ + split/ layout, common/storage/ogb_dataset.h
  std::string edges_file;  // an edge list file (with node_data, num_nodes)
  int64_t num_nodes = -1;
  bool num_nodes_given = false;
  std::vector<std::string> node_data, edge_data;  // NAME=FILE.npy
  bool undirected = false, drop_self_loops = false, drop_duplicates = false, normalize_features = false;
  bool merge_types = false;  // a typed dataset as one node and one edge type (merged_input.h)
  int num_parts = 0;
  PartitionMethod method = PartitionMethod::kMetis;
  std::string memory_budget, tmp_dir, run_size;  // sizes as text ("4G")
  int stream_passes = 3, metis_niter = 0;
  std::string balance;  // comma list of train, edges
  std::string name, out;
  bool force = false;
  uint64_t seed = 0;
  std::string edge_split;  // train,val,test fractions
  bool edge_split_given = false;
  std::string link_etype;  // typed dataset: the edge type --edge-split splits (src:relation:dst)
};

Status PartitionDataset(const PartitionDatasetOptions& options);

// `--node-data` / `--edge-data` items NAME=FILE.npy into *out (name -> file);
// a malformed item or a name given twice is one error naming `flag`.
Status ParseNamedFiles(const std::string& flag, const std::vector<std::string>& items,
                       std::map<std::string, std::string>* out);

// A typed dataset already in memory (the OGB reader, tests) -> a typed
// partition; progress and the "done" line on stdout. Empties ds's edges.
// `out`, if given, receives the written partition's config.
struct PartitionOptions;
struct PartitionConfig;
struct TypedDataset;
Status PartitionTypedInMemory(TypedDataset* ds, const PartitionOptions& opts, double read_seconds,
                              PartitionConfig* out = nullptr);

}  // namespace dg
