// A partitioned graph on disk, as written by `distgnn partition` (docs/formats.md).
//
// PartitionConfig is NAME.json parsed and validated. PartitionBook maps a global
// node id to the partition that owns it (node_map offsets, binary search).
// LocalPartition is one part's arrays, mmap'd read-only: its in-edge CSR over the
// nodes it owns (sources are global ids), and the owned rows of every node/edge array.
//
// A typed (heterogeneous) partition has format_version 2: global ids are
// ordered partition-major then type-major, so the nodes of type t in part p
// are the contiguous range [node_type_offsets[p][t], node_type_offsets[p][t+1]);
// node arrays are per type (node_data key "<type>/<name>", rows = that type's
// nodes, file partP/node_data/<type>/<name>.npy) and every part stores the
// edge type of each in-edge (partP/edge_types.npy, CSR order, each row sorted
// by edge type). LoadPartitionConfig refuses a typed partition (code that
// reads homogeneous graphs); LoadAnyPartitionConfig reads both.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"

namespace dg {

struct ArrayInfo {
  DType dtype;
  std::vector<int64_t> shape;  // global shape (rows = num_nodes or num_edges)
};

struct PartInfo {
  std::string dir;  // relative to the json's folder
  int64_t num_nodes = 0, num_edges = 0, num_train = 0, num_halo = 0;
  // Seeds of this part: partN/train_nids.npy,
  // val_nids.npy, test_nids.npy hold the global ids of the owned nodes with
  // split 0 / 1 / 2 (or train_mask != 0), sorted; -1 = files absent (older output).
  int64_t num_val = -1, num_test = -1;
};

struct PartitionConfig {
  std::string path;      // the json file itself
  std::string base_dir;  // its folder; part dirs are relative to it
  int format_version = 1;
  std::string graph_name, part_method;
  int64_t num_nodes = 0, num_edges = 0;
  int num_parts = 0;
  std::vector<int64_t> node_map;  // size num_parts+1; part p owns [node_map[p], node_map[p+1])
  std::vector<int64_t> edge_map;  // size num_parts+1; part p's k-th edge is edge_map[p]+k
  std::map<std::string, ArrayInfo> node_data, edge_data;
  std::string orig_nids, orig_eids;  // relative paths
  std::vector<PartInfo> parts;
  int64_t edge_cut = 0;
  // 1 + the largest label of a node with split 0/1/2 (0 = unknown: no split or
  // labels, or a negative label). Lets trainers skip reading every label.
  int64_t num_classes = 0;

  // Typed partitions (format_version 2); all empty for a homogeneous one.
  struct EdgeType {
    std::string src, relation, dst;
    int src_type = 0, dst_type = 0;  // node type ids
  };
  std::vector<std::string> node_types;                  // type id = position
  std::vector<EdgeType> edge_types;                     // edge type id = position
  std::vector<std::vector<int64_t>> node_type_offsets;  // [num_parts][T+1], last = node_map[p+1]
  std::vector<int64_t> num_nodes_per_type, num_edges_per_type;
  std::string target;  // node type of the task ("" = none); seed files hold it only

  // "checksums": the SHA-256 (lowercase hex) of every file `distgnn partition`
  // wrote, keyed by its path relative to base_dir (common/storage/partition_checksum.h).
  // Empty: not recorded (a partition written before checksums existed).
  std::map<std::string, std::string> checksums;

  bool typed() const { return format_version == 2; }
  int num_node_types() const { return static_cast<int>(node_types.size()); }
  int NodeTypeId(const std::string& name) const;  // -1 if unknown
  // Node type of a global id (typed only).
  int NodeTypeOf(int64_t gid) const;
  // dtype of partP/edge_types.npy: uint8, int32 beyond 255 edge types.
  DType EdgeTypeDType() const;
  // "type_nids/<type>.npy": int64 [N_type], type-local original id -> global id.
  std::string TypeNidsPath(int t) const;

  std::string PartDir(int p) const;  // absolute-ish: base_dir + "/" + parts[p].dir
};

// Parse and validate NAME.json. Errors name the file and the key. A typed
// partition is refused here, naming the file: callers that handle node and
// edge types use LoadAnyPartitionConfig.
Result<PartitionConfig> LoadPartitionConfig(const std::string& json_path);
Result<PartitionConfig> LoadAnyPartitionConfig(const std::string& json_path);
// Serialize (used by the partitioner and by tools that add node arrays).
std::string PartitionConfigToJson(const PartitionConfig& config);

class PartitionBook {
 public:
  PartitionBook() = default;
  explicit PartitionBook(std::vector<int64_t> node_map) : node_map_(std::move(node_map)) {}
  int num_parts() const { return static_cast<int>(node_map_.size()) - 1; }
  int64_t num_nodes() const { return node_map_.back(); }
  // Owner of a global node id; id must be in [0, num_nodes).
  int Owner(int64_t gid) const;
  int64_t Begin(int p) const { return node_map_[p]; }
  int64_t End(int p) const { return node_map_[p + 1]; }
  const std::vector<int64_t>& node_map() const { return node_map_; }

 private:
  std::vector<int64_t> node_map_;
};

struct LocalPartition {
  int part_id = 0;
  int64_t node_begin = 0, node_end = 0;  // owned global range
  int64_t edge_begin = 0;                // global id of the first in-edge
  Array indptr;    // int64 [n_owned+1]
  Array indices;   // int64 [nnz], global source ids
  std::map<std::string, Array> node_data;  // owned rows, local order
  std::map<std::string, Array> edge_data;  // owned edges, CSR order
  // Typed partitions: node_data keys are "<type>/<name>" with the owned nodes
  // of that type as rows (row = gid - type_offsets[t]); edge_types is uint8
  // (int32 beyond 255 types) [nnz], each row's in-edges sorted by edge type.
  std::vector<int64_t> type_offsets;  // [T+1] global ids: node_type_offsets[part]
  Array edge_types;

  int64_t num_owned() const { return node_end - node_begin; }
  int64_t num_edges() const { return indices.rows(); }
};

// mmap part p of a partitioned graph; checks every array's dtype and shape
// against the config.
Result<LocalPartition> OpenLocalPartition(const PartitionConfig& config, int part);

}  // namespace dg
