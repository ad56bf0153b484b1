// NodeEmbedding: learnable per-node input rows (DGL's DistEmbedding) that a
// trainer reads for a batch's input nodes and updates with a sparse optimizer
// after backward, sending only the touched rows' gradients. Torch-free.
//
// Two homes, one contract:
//  - DistNodeEmbedding: a float32 DistTensor [N, dim] on the servers (created
//    by Init, idempotent). Update is a SPARSE_UPDATE of `step` with this
//    trainer's `rank` of `world` contributors: the servers sum the rows'
//    gradients over all trainers (in rank order) and apply the optimizer once;
//    Update returns when every partition has applied the step, so the next
//    Rows() sees it. Every trainer must call Update once per step (ids may be
//    empty).
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

class DistGraphClient;

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
  // float32 [ids.size(), dim], rows in the order of ids.
  virtual Result<Array> Rows(const std::vector<int64_t>& ids) = 0;
  // grads: float32 [ids.size(), dim]; duplicate ids are summed.
  virtual Status Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) = 0;
};

class LocalNodeEmbedding : public NodeEmbedding {
 public:
  // Checks dim > 0 and the optimizer spec.
  static Result<std::unique_ptr<LocalNodeEmbedding>> Create(int64_t num_nodes, const NodeEmbeddingOptions& options);
  int64_t dim() const override { return dim_; }
  Result<Array> Rows(const std::vector<int64_t>& ids) override;
  Status Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) override;
  const std::vector<float>& table() const { return table_; }

 private:
  LocalNodeEmbedding(int64_t num_nodes, const NodeEmbeddingOptions& options);
  int64_t num_nodes_, dim_;
  std::vector<float> table_;
  SparseOptimizerState state_;
  std::mutex mu_;
};

class DistNodeEmbedding : public NodeEmbedding {
 public:
  // Creates the DistTensor (or keeps an existing one of the same shape, e.g. a
  // persisted table) on every partition. `client` must outlive this object.
  static Result<std::unique_ptr<DistNodeEmbedding>> Init(DistGraphClient* client, const NodeEmbeddingOptions& options,
                                                         uint32_t rank, uint32_t world);
  int64_t dim() const override { return options_.dim; }
  Result<Array> Rows(const std::vector<int64_t>& ids) override;
  Status Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) override;
  // Writes the table to every partition's tensors/ (persistent tables only).
  Status Save();

 private:
  DistNodeEmbedding(DistGraphClient* client, NodeEmbeddingOptions options, uint32_t rank, uint32_t world)
      : client_(client), options_(std::move(options)), rank_(rank), world_(world) {}
  DistGraphClient* client_;
  NodeEmbeddingOptions options_;
  uint32_t rank_, world_;
};

// Options from the user's settings (optimizer "sparse_adam" | "sparse_adagrad");
// the table's seed derives from the job seed, the same for train-local and a
// distributed job. Other fields keep their defaults.
Result<NodeEmbeddingOptions> MakeNodeEmbeddingOptions(int64_t dim, const std::string& optimizer, double lr,
                                                      uint64_t job_seed);
// Checks dim > 0 and the optimizer spec.
Status ValidateNodeEmbeddingOptions(const NodeEmbeddingOptions& options);
// Checks grads against ids and dim; `what` prefixes the message.
Status CheckEmbeddingGrads(const std::string& what, const std::vector<int64_t>& ids, const Array& grads, int64_t dim);

}  // namespace dg
