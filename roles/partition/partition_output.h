// Writing a partition: the pieces the in-memory and the out-of-core
// partitioners share, so their outputs are byte-identical.
//
// StagingDir: OUT's temporary sibling (OUT/../.NAME.tmp-PID), removed on
// destruction unless Commit() writes every part's aggregation index
// (roles/partition/source_index.h), the SHA-256 of every file written
// (NAME.json's "checksums", common/storage/partition_checksum.h) and NAME.json,
// and renames it into place (an existing OUT, allowed by force, is moved aside
// first and removed after). RecordAddedFiles is for a writer that adds files to
// a committed partition (--edge-split): it hashes those and rewrites NAME.json.
//
// WritePartNodeData: part p's rows of every node array, rows[i] = original id
// of the part's i-th node (increasing within a part), read from (mmap'd)
// arrays; for arrays named in drop_pages_of the input pages behind the cursor are dropped from
// RSS (only for mmap'd arrays). normalize_features divides each row of
// 'features' by its sum on the way (NormalizeRow). It also writes the part's
// seed files train_nids.npy / val_nids.npy / test_nids.npy (global ids, in id
// order, of split 0/1/2; train_mask != 0 if there is no split) and fills
// PartInfo num_train/num_val/num_test and the running max label.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/storage/partition.h"
#include "common/base/status.h"
#include "common/io/npy.h"
#include "roles/partition/partition_request.h"

namespace dg {

class StagingDir {
 public:
  StagingDir() = default;
  ~StagingDir();
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;

  Status Create(const PartitionOptions& opts);
  const std::string& path() const { return tmp_; }
  // Writes NAME.json, swaps into place; sets cfg->path and cfg->base_dir.
  Status Commit(PartitionConfig* cfg);

 private:
  std::string tmp_, final_, name_;
  bool force_ = false;
};

Status MakeDir(const std::string& path);

// cfg: a committed partition (path, base_dir set).
Status RecordAddedFiles(PartitionConfig* cfg);

// Element i of a 1-D integer/bool/float array as int64 (floats: != 0).
int64_t IntAt(const Array& a, int64_t i);

struct NodeDataOptions {
  std::set<std::string> drop_pages_of;  // names of mmap'd arrays whose pages may be dropped
  bool normalize_features = false;
};

// Label statistics across parts (for PartitionConfig::num_classes).
struct LabelStats {
  int64_t max_label = -1;
  bool negative = false;
  int64_t NumClasses() const { return negative ? 0 : max_label + 1; }
};

Status WritePartNodeData(const std::string& part_dir, const std::map<std::string, Array>& node_data,
                         const int64_t* rows, int64_t count, int64_t first_gid, const NodeDataOptions& opts,
                         PartInfo* info, LabelStats* labels);

// cfg fields that depend only on the input and the node/edge maps.
// part_method is `method` (the method's Name()), or "none" for one part.
PartitionConfig BaseConfig(const std::string& graph_name, int num_parts, const char* method,
                           int64_t num_nodes, int64_t num_edges,
                           const std::vector<int64_t>& node_map, const std::vector<int64_t>& edge_map,
                           const std::map<std::string, Array>& node_data,
                           const std::map<std::string, Array>& edge_data);

// Typed graphs (typed_input.h). TypedConfig turns a BaseConfig into a
// format_version 2 config: types, per-type counts, target, num_classes,
// node_data infos "<type>/<name>". WriteTypedNodeIds fills
// node_type_offsets from orig_nids (new id -> input id, type-major) and
// writes OUT/orig_nids.npy (new id -> type-local id) and
// OUT/type_nids/<type>.npy (type-local id -> new id).
// WriteTypedPartNodeData writes part p's node_data/<type>/<name>.npy rows and
// the seed files (target type only).
void TypedConfig(const TypeLayout& types, PartitionConfig* cfg);
Status WriteTypedNodeIds(const std::string& out_dir, const TypeLayout& types, const std::vector<int64_t>& orig_nids,
                         PartitionConfig* cfg);
Status WriteTypedPartNodeData(const std::string& part_dir, const TypeLayout& types, const int64_t* rows,
                              const std::vector<int64_t>& part_type_offsets, const NodeDataOptions& opts,
                              PartInfo* info, LabelStats* labels);

// Streams partP/edge_types.npy (uint8, or int32 beyond 255 edge types).
class EdgeTypeWriter {
 public:
  Status Open(const std::string& path, int num_edge_types, int64_t n);
  Status Add(int etype);
  Status Finish();

 private:
  Status Flush();
  NpyWriter w_;
  bool wide_ = false;
  std::vector<uint8_t> narrow_;
  std::vector<int32_t> wide_buf_;
};

// The per-part lines and the edge cut line of the progress log.
void LogPartStats(std::FILE* log, const PartitionConfig& cfg);

}  // namespace dg
