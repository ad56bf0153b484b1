// PartitionStore: the per-partition logic behind every server request, shared
// by the server's handlers and the client's machine-local shortcut (one
// implementation, so both paths answer identically).
//
// It serves one mmap'd LocalPartition (read-only node/edge arrays and the
// in-edge CSR) plus, when holds_mutable, the mutable node tensors created by
// INIT_TENSOR (heap, rows [node_begin, node_end) of the global tensor).
// Several server processes of one partition share the mmap'd pages; mutable
// tensors live only in the partition's server index 0 (clients route them
// there), so there is exactly one copy to push to.
//
// Every method validates all its input before touching anything: an id
// outside the partition, an unknown tensor or a dtype/shape mismatch returns
// an error whose message says exactly what was wrong, and stored data is
// unchanged. Thread-safe: reads of immutable data take no lock; mutable
// tensors have a reader/writer lock each.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/array.h"
#include "common/partition.h"
#include "common/status.h"

namespace dg {

enum class TensorKind : uint8_t { kNode = 0, kEdge = 1, kMutableNode = 2 };
enum class PushMode : uint8_t { kOverwrite = 0, kAdd = 1 };
enum class Initializer : uint8_t { kZeros = 0, kUniform = 1, kNormal = 2 };

const char* TensorKindName(TensorKind k);

struct TensorMeta {
  std::string name;
  TensorKind kind;
  DType dtype;
  std::vector<int64_t> shape;  // global shape
};

struct SampleResult {
  std::vector<int64_t> counts;  // per seed
  std::vector<int64_t> src;     // global source ids, seed-major
  std::vector<int64_t> eids;    // global edge ids, aligned with src
};

struct InitTensorSpec {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // global; shape[0] must equal num_nodes
  Initializer init = Initializer::kZeros;
  uint64_t seed = 0;
  double a = 0, b = 0;  // uniform [a, b) or normal(mean a, std b)
};

// Checks what sampling trusts blindly: indptr non-decreasing within [0, nnz].
// O(owned nodes); run once when a partition is opened for serving.
Status ValidatePartitionStructure(const LocalPartition& part, const std::string& where);

class PartitionStore {
 public:
  PartitionStore(const PartitionConfig& config, LocalPartition part, bool holds_mutable);

  int part_id() const { return part_.part_id; }
  int64_t node_begin() const { return part_.node_begin; }
  int64_t node_end() const { return part_.node_end; }
  const LocalPartition& partition() const { return part_; }
  bool holds_mutable() const { return holds_mutable_; }

  // Shape/dtype of a tensor (global shape); NotFound names the tensor.
  Result<TensorMeta> Meta(TensorKind kind, const std::string& name) const;
  std::vector<TensorMeta> ListTensors() const;

  // Rows of `name` for global ids[0..n) into out: row i goes to
  // out + (out_pos ? out_pos[i] : i) * row_bytes. `what` prefixes errors.
  Status GatherRows(TensorKind kind, const std::string& name, const int64_t* ids, size_t n,
                    uint8_t* out, const int64_t* out_pos) const;
  // Same, into a new [n, ...] Array.
  Result<Array> Pull(TensorKind kind, const std::string& name, const int64_t* ids, size_t n) const;

  // Writes rows into a mutable tensor. rows must be [n, row shape...] of the
  // tensor's dtype. Duplicate ids: overwrite keeps the last, add adds each.
  Status Push(const std::string& name, const int64_t* ids, size_t n, const Array& rows,
              PushMode mode);

  // Creates a mutable tensor; an existing one with the same dtype/shape is kept
  // (*created = false), a different one is AlreadyExists. Row gid's values
  // depend only on (seed, gid), not on the partitioning.
  Status InitTensor(const InitTensorSpec& spec, bool* created);

  // Neighbor sampling with the shared kernel; row seed = MixSeed(seed, gid).
  // weight_name: "" or an edge tensor of float32 [E] or [E, 1]. Appends to *out.
  Status Sample(const int64_t* seeds, size_t n, int64_t fanout, bool replace, uint64_t seed,
                const std::string& weight_name, SampleResult* out) const;

  Status InDegrees(const int64_t* ids, size_t n, int64_t* out, const int64_t* out_pos) const;

 private:
  struct MutableTensor {
    Array data;  // rows [node_begin, node_end)
    std::vector<int64_t> global_shape;
    mutable std::shared_mutex mu;
  };
  Status CheckNodeIds(const char* what, const std::string& name, const int64_t* ids, size_t n) const;
  Status CheckEdgeIds(const char* what, const std::string& name, const int64_t* ids, size_t n) const;
  Status UnknownTensor(const char* what, const std::string& name) const;
  std::shared_ptr<MutableTensor> FindMutable(const std::string& name) const;

  std::string graph_name_;
  int64_t num_nodes_ = 0, num_edges_ = 0;
  LocalPartition part_;
  std::map<std::string, ArrayInfo> node_info_, edge_info_;
  bool holds_mutable_;
  mutable std::shared_mutex mutable_mu_;
  std::map<std::string, std::shared_ptr<MutableTensor>> mutable_;
};

}  // namespace dg
