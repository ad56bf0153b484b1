// PartitionStore: the per-partition logic behind every server request, shared
// by the server's handlers and the client's machine-local shortcut (one
// implementation, so both paths answer identically).
//
// It serves one mmap'd LocalPartition (read-only node/edge arrays and the
// in-edge CSR) plus, when holds_mutable, the mutable node tensors created by
// INIT_TENSOR (heap, rows [node_begin, node_end) of the global tensor).
// Persistent mutable tensors are saved as <partition dir>/tensors/<name>.npy
// (SaveTensor, SavePersistent) and loaded back by LoadPersistent when a server
// starts; sparse optimizer steps (SparseUpdate) run here, on the owner's rows.
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

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/sample_spec.h"
#include "common/base/tensor_spec.h"
#include "common/storage/partition.h"
#include "common/storage/sparse_optimizer.h"
#include "common/base/status.h"

namespace dg {

struct SampleResult {
  std::vector<int64_t> counts;  // per seed
  std::vector<int64_t> src;     // global source ids, seed-major
  std::vector<int64_t> eids;    // global edge ids, aligned with src
  std::vector<uint8_t> etypes;  // typed sampling: the edge type of each, aligned with src
};

// One contribution to a sparse optimizer step.
struct SparseGrad {
  Array ids;    // int64 [n]: global node ids owned by this partition, duplicates allowed
  Array grads;  // float32 [n, row shape...] of the tensor
};

// The initial values of row `gid` of a tensor created by `spec` (elems values
// per row): a function of (spec.seed, gid) only.
void InitialRow(const InitTensorSpec& spec, int64_t gid, int64_t elems, double* out);

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
  // Where the rows of ids[0..n) of an immutable tensor (partition data, mmap'd
  // and never written) are, after the checks GatherRows makes: they stay
  // valid while the RowTable's holder lives, so a reply can send them without
  // a copy (common/net/table_rows.h). For a mutable tensor (rows change
  // under SPARSE_UPDATE and PUSH, and may owe weight decay) base is null:
  // copy its rows with GatherRows or Pull, which take its lock. Errors are
  // GatherRows's.
  Result<RowTable> ImmutableRows(TensorKind kind, const std::string& name, const int64_t* ids, size_t n) const;

  // Writes rows into a mutable tensor. rows must be [n, row shape...] of the
  // tensor's dtype. Duplicate ids: overwrite keeps the last, add adds each.
  Status Push(const std::string& name, const int64_t* ids, size_t n, const Array& rows,
              PushMode mode);

  // Creates a mutable tensor; an existing one with the same dtype/shape is kept
  // (*created = false), a different one is AlreadyExists. Row gid's values
  // depend only on (seed, gid), not on the partitioning. spec.persistent marks
  // the tensor persistent (kept: persistence is never turned off); its name
  // must then be a file name: [A-Za-z0-9_.-], not starting with '.'.
  Status InitTensor(const InitTensorSpec& spec, bool* created);

  // Checks one SPARSE_UPDATE contribution without applying it: the tensor is a
  // mutable float32 tensor, grads are float32 [n, row shape...], every id is
  // owned here, spec is valid and the same as the tensor's earlier updates, and
  // a step with weight decay has a number the state can save (CheckDecayStep).
  Status CheckSparseGrad(const std::string& name, const SparseOptimizerSpec& spec, uint64_t step,
                         const SparseGrad& g) const;
  // One optimizer step on `name`: checks every contribution (as above), sums the
  // gradients of each row over all contributions in the order given (then in
  // id order within one), and applies `spec` once to every touched row under
  // the tensor's write lock (SparseOptimizerState; state made on first use and
  // tied to that spec). `step` is the global step number (the lazy weight
  // decay counts steps by it). All-or-nothing: on error nothing is written.
  // Rows read from a tensor whose rows owe weight decay (GatherRows, Pull,
  // SaveTensor) come out with it applied; the table itself keeps it owed.
  Status SparseUpdate(const std::string& name, const SparseOptimizerSpec& spec, uint64_t step,
                      const std::vector<SparseGrad>& contributions);

  // Persistence (server index 0 only; dir = this partition's directory).
  // SaveTensor writes a persistent tensor's rows to dir/tensors/<name>.npy
  // (temp file + rename) under its read lock; a non-persistent tensor is
  // InvalidArgument. SavePersistent saves every persistent tensor.
  Status SaveTensor(const std::string& name, const std::string& dir) const;
  Status SavePersistent(const std::string& dir, std::vector<std::string>* saved) const;
  // Loads every dir/tensors/*.npy as a persistent mutable tensor of global
  // shape [num_nodes, row shape...]; a file whose row count is not the number
  // of owned nodes, or whose name clashes with partition data, is an error
  // naming the file. A missing tensors/ directory is fine.
  Status LoadPersistent(const std::string& dir, std::vector<std::string>* loaded);

  // Step checkpoints (server index 0; docs/formats.md "Step checkpoint").
  // SaveCheckpoint writes every mutable tensor (persistent or not; not the
  // scratch ones, InitTensorSpec::scratch) into the
  // existing directory `dir`: tensor-I.npy, its sparse optimizer state
  // tensor-I.sparse_opt once it has one, and `tensors` (one line per tensor:
  // "I persistent has_optimizer name") last; each tensor under its read lock.
  // The caller makes the directory durable and atomic (fsync + rename).
  // LoadCheckpoint puts dir's tensors back: an existing tensor of the same
  // dtype and shape has its rows and optimizer state replaced, a missing one is
  // created; a tensor of another shape is AlreadyExists naming it.
  Status SaveCheckpoint(const std::string& dir, std::vector<std::string>* saved) const;
  Status LoadCheckpoint(const std::string& dir, std::vector<std::string>* loaded);

  // Neighbor sampling with the shared kernel (SampleRow); row seed =
  // MixSeed(spec.seed, gid). Appends to *out; out->eids only with
  // spec.edge_ids. Untyped (spec.typed() false): spec.fanout in-edges per
  // seed, weighted when spec.weight_name names an edge tensor of float32 [E]
  // or [E, 1]. Typed: spec.etype_fanouts[t] in-edges of edge type t per seed
  // (SampleRowByType, uniform), out->etypes filled. The edge types are a typed
  // partition's edge_types.npy (uint8 [E], each row's in-edges grouped by
  // type), else the uint8 edge tensor kEdgeTypesTensor; a partition without
  // either is InvalidArgument, as is a weight_name. PULL of a typed
  // partition's node tensor "<type>/<name>" takes global ids of that type's
  // owned range.
  Status Sample(const int64_t* seeds, size_t n, const SampleSpec& spec, SampleResult* out) const;
  static constexpr const char* kEdgeTypesTensor = "edge_types";
  // The number of edge types of a typed partition (1 + the largest edge type), 0 otherwise.
  int num_edge_types() const { return num_edge_types_; }

  Status InDegrees(const int64_t* ids, size_t n, int64_t* out, const int64_t* out_pos) const;

  // Upper bound of the edges Sample would return for `spec` (seeds must be
  // owned; checked): n * fanout with replacement, else the sum of
  // min(degree, fanout) (all in-edges for fanout < 0); typed: the sum of the
  // degrees plus, with replacement, n * the positive etype fanouts. O(n), no
  // allocation; saturates at INT64_MAX / 64.
  Result<int64_t> SampleBound(const int64_t* seeds, size_t n, const SampleSpec& spec) const;

  // Budget for the bytes of all mutable tensors held here (server limit);
  // < 0 = unlimited. An INIT_TENSOR that would exceed it is ResourceExhausted.
  void set_mutable_budget(int64_t bytes) { mutable_budget_ = bytes; }
  int64_t mutable_bytes() const;

 private:
  struct MutableTensor {
    Array data;  // rows [node_begin, node_end)
    std::vector<int64_t> global_shape;
    std::atomic<bool> persistent{false};
    bool scratch = false;  // InitTensorSpec::scratch: not in step checkpoints
    mutable std::shared_mutex mu;                    // data and optimizer
    std::unique_ptr<SparseOptimizerState> optimizer;  // after the first SparseUpdate
  };
  Status SampleUntyped(const int64_t* seeds, size_t n, const SampleSpec& spec, SampleResult* out) const;
  Status SampleTyped(const int64_t* seeds, size_t n, const SampleSpec& spec, SampleResult* out) const;
  Result<const float*> EdgeWeights(const std::string& name) const;
  Status CheckNodeIds(const char* what, const std::string& name, const int64_t* ids, size_t n) const;
  Status CheckEdgeIds(const char* what, const std::string& name, const int64_t* ids, size_t n) const;
  // ids of node type `type` (a typed partition's "<type>/<name>" tensors).
  Status CheckTypedIds(const std::string& name, int type, const int64_t* ids, size_t n) const;
  Status UnknownTensor(const char* what, const std::string& name) const;
  std::shared_ptr<MutableTensor> FindMutable(const std::string& name) const;
  Result<std::shared_ptr<MutableTensor>> SparseTarget(const std::string& name) const;
  static Status CheckOptimizerMatch(const std::string& name, const MutableTensor& t, const SparseOptimizerSpec& spec);

  std::string graph_name_;
  int64_t num_nodes_ = 0, num_edges_ = 0;
  LocalPartition part_;
  std::map<std::string, ArrayInfo> node_info_, edge_info_;
  bool holds_mutable_;
  int num_edge_types_ = 0;  // typed partitions: 1 + the largest edge type
  std::vector<std::string> type_names_;  // typed partitions: node type names (id = position)
  // The uint8 edge types: a typed partition's edge_types.npy, else the edge
  // tensor kEdgeTypesTensor; null when there are none.
  const Array* EdgeTypes() const;
  // Typed partitions: the node type of a "<type>/<name>" node tensor, else -1.
  int TypeOfTensor(const std::string& name) const;
  mutable std::shared_mutex mutable_mu_;
  std::map<std::string, std::shared_ptr<MutableTensor>> mutable_;
  int64_t mutable_budget_ = -1;
  int64_t mutable_bytes_ = 0;   // guarded by mutable_mu_
  mutable std::mutex save_mu_;  // one save at a time (they share "<file>.tmp" names)
};

}  // namespace dg
