// NodeEmbedding: learnable per-node input rows (DGL's DistEmbedding) that a
// trainer reads for a batch's input nodes and updates with a sparse optimizer
// after backward, sending only the touched rows' gradients. Torch-free.
//
// Two homes, one contract:
//  - DistNodeEmbedding (common/client/dist_node_embedding.h): a float32
//    DistTensor [N, dim] on the servers, updated by SPARSE_UPDATE.
//  - LocalNodeEmbedding: the same table and optimizer in this process
//    (train-local, tests); world is 1.
// Initial values: uniform [-init_scale, init_scale), a function of (seed, node)
// only, so both homes start from the same table.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/storage/sparse_optimizer.h"
#include "common/base/status.h"

namespace dg {

struct InitTensorSpec;

struct NodeEmbeddingOptions {
  std::string name = "embedding";  // the DistTensor's name
  int64_t dim = 64;
  SparseOptimizerSpec optimizer = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdam, 0.01);
  double init_scale = 0.1;
  uint64_t seed = 0;
  bool persistent = false;         // DistTensor kept on disk (SaveTensor at the end)
};

class NodeEmbedding {
 public:
  virtual ~NodeEmbedding() = default;
  virtual int64_t dim() const = 0;
  // float32 [ids.size(), dim], rows in the order of ids, with any weight
  // decay they owe applied (their value after the last step).
  virtual Result<Array> Rows(const std::vector<int64_t>& ids) = 0;
  // grads: float32 [ids.size(), dim]; duplicate ids are summed. `step`: the
  // global step number, one more each step (the weight decay counts by it).
  virtual Status Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) = 0;
  // Step checkpoints: the table and its optimizer state into / out of the
  // directory `dir` (embedding.npy, embedding.sparse_opt). A DistNodeEmbedding
  // does nothing here: its table is checkpointed by the servers (CHECKPOINT).
  virtual Status SaveState(const std::string& /*dir*/) { return Status::OK(); }
  virtual Status LoadState(const std::string& /*dir*/) { return Status::OK(); }
};

class LocalNodeEmbedding : public NodeEmbedding {
 public:
  // Checks dim > 0 and the optimizer spec.
  static Result<std::unique_ptr<LocalNodeEmbedding>> Create(int64_t num_nodes, const NodeEmbeddingOptions& options);
  int64_t dim() const override { return dim_; }
  Result<Array> Rows(const std::vector<int64_t>& ids) override;
  Status Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) override;
  Status SaveState(const std::string& dir) override;
  Status LoadState(const std::string& dir) override;
  // The stored rows: without the weight decay they still owe (Rows() applies it).
  const std::vector<float>& table() const { return table_; }

 private:
  LocalNodeEmbedding(int64_t num_nodes, const NodeEmbeddingOptions& options);
  int64_t num_nodes_, dim_;
  std::vector<float> table_;
  SparseOptimizerState state_;
  std::mutex mu_;
};

// Options from the user's settings (the optimizer with its defaults at lr,
// and its weight decay); the table's seed derives from the job seed, the same
// for train-local and a distributed job. Other fields keep their defaults.
Result<NodeEmbeddingOptions> MakeNodeEmbeddingOptions(int64_t dim, SparseOptimizerKind optimizer, double lr,
                                                      uint64_t job_seed, double weight_decay = 0);
// Checks dim > 0 and the optimizer spec.
Status ValidateNodeEmbeddingOptions(const NodeEmbeddingOptions& options);
// The table as a tensor to create: float32 [num_nodes, dim], uniform
// [-init_scale, init_scale) from the seed.
InitTensorSpec NodeEmbeddingTensorSpec(const NodeEmbeddingOptions& options, int64_t num_nodes);
// Checks grads against ids and dim; `what` prefixes the message.
Status CheckEmbeddingGrads(const std::string& what, const std::vector<int64_t>& ids, const Array& grads, int64_t dim);

}  // namespace dg
