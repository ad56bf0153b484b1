#include "common/storage/node_embedding.h"

#include <algorithm>
#include <cstring>

#include "common/io/npy.h"
#include "common/storage/neighbor_sampling.h"
#include "common/storage/partition_store.h"

namespace dg {

InitTensorSpec NodeEmbeddingTensorSpec(const NodeEmbeddingOptions& o, int64_t num_nodes) {
  InitTensorSpec spec;
  spec.name = o.name;
  spec.dtype = DType::kFloat32;
  spec.shape = {num_nodes, o.dim};
  spec.init = Initializer::kUniform;
  spec.a = -o.init_scale;
  spec.b = o.init_scale;
  spec.seed = o.seed;
  spec.persistent = o.persistent;
  return spec;
}

Status CheckEmbeddingGrads(const std::string& what, const std::vector<int64_t>& ids, const Array& grads, int64_t dim) {
  if (grads.dtype != DType::kFloat32 || grads.shape.size() != 2 ||
      grads.shape[0] != static_cast<int64_t>(ids.size()) || grads.shape[1] != dim)
    return Status::InvalidArgument(what + ": gradients must be float32 [" + std::to_string(ids.size()) + ", " +
                                   std::to_string(dim) + "], got " + DTypeName(grads.dtype) + " " + grads.ShapeString());
  return Status::OK();
}

Result<NodeEmbeddingOptions> MakeNodeEmbeddingOptions(int64_t dim, SparseOptimizerKind optimizer, double lr,
                                                      uint64_t job_seed, double weight_decay) {
  NodeEmbeddingOptions eo;
  eo.dim = dim;
  eo.optimizer = SparseOptimizerSpec::Defaults(optimizer, lr);
  eo.optimizer.weight_decay = weight_decay;
  DG_RETURN_IF_ERROR(ValidateSparseOptimizer(eo.optimizer));
  eo.seed = MixSeed(job_seed, 0xe3b);
  return eo;
}

Status ValidateNodeEmbeddingOptions(const NodeEmbeddingOptions& options) {
  if (options.dim <= 0) return Status::InvalidArgument("embedding dim must be > 0, got " + std::to_string(options.dim));
  return ValidateSparseOptimizer(options.optimizer);
}

Result<std::unique_ptr<LocalNodeEmbedding>> LocalNodeEmbedding::Create(int64_t num_nodes,
                                                                       const NodeEmbeddingOptions& options) {
  DG_RETURN_IF_ERROR(ValidateNodeEmbeddingOptions(options));
  return std::unique_ptr<LocalNodeEmbedding>(new LocalNodeEmbedding(num_nodes, options));
}

LocalNodeEmbedding::LocalNodeEmbedding(int64_t num_nodes, const NodeEmbeddingOptions& options)
    : num_nodes_(num_nodes),
      dim_(options.dim),
      table_(static_cast<size_t>(num_nodes * options.dim)),
      state_(options.optimizer, num_nodes, options.dim) {
  const InitTensorSpec spec = NodeEmbeddingTensorSpec(options, num_nodes);
  std::vector<double> row(static_cast<size_t>(dim_));
  for (int64_t i = 0; i < num_nodes; ++i) {
    InitialRow(spec, i, dim_, row.data());
    for (int64_t j = 0; j < dim_; ++j) table_[i * dim_ + j] = static_cast<float>(row[j]);
  }
}

Result<Array> LocalNodeEmbedding::Rows(const std::vector<int64_t>& ids) {
  Array out = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(ids.size()), dim_});
  std::lock_guard<std::mutex> l(mu_);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= num_nodes_)
      return Status::InvalidArgument("embedding: node " + std::to_string(ids[i]) + " out of range [0, " +
                                     std::to_string(num_nodes_) + ")");
    float* row = out.as<float>() + i * dim_;
    std::memcpy(row, table_.data() + ids[i] * dim_, dim_ * sizeof(float));
    const float f = state_.ReadFactor(ids[i]);  // weight decay the row still owes (sparse_optimizer.h)
    if (f != 1.0f)
      for (int64_t j = 0; j < dim_; ++j) row[j] *= f;
  }
  return out;
}

Status LocalNodeEmbedding::Update(const std::vector<int64_t>& ids, const Array& grads, uint64_t step) {
  DG_RETURN_IF_ERROR(CheckEmbeddingGrads("embedding update", ids, grads, dim_));
  DG_RETURN_IF_ERROR(CheckDecayStep(state_.spec(), step).WithContext("embedding update"));
  for (int64_t id : ids)
    if (id < 0 || id >= num_nodes_)
      return Status::InvalidArgument("embedding update: node " + std::to_string(id) + " out of range [0, " +
                                     std::to_string(num_nodes_) + ")");
  SparseGradSum sum(dim_, ids.size());  // duplicates summed, then one optimizer apply
  sum.Add(ids.data(), ids.size(), grads.as<float>());
  std::lock_guard<std::mutex> l(mu_);
  state_.Apply(sum.rows().data(), sum.rows().size(), sum.sums(), table_.data(), step);
  return Status::OK();
}

Status LocalNodeEmbedding::SaveState(const std::string& dir) {
  std::lock_guard<std::mutex> l(mu_);
  Array a;
  a.dtype = DType::kFloat32;
  a.shape = {num_nodes_, dim_};
  a.data = table_.data();
  DG_RETURN_IF_ERROR(NpyWrite(dir + "/embedding.npy", a));
  return state_.Save(dir + "/embedding.sparse_opt");
}

Status LocalNodeEmbedding::LoadState(const std::string& dir) {
  DG_ASSIGN_OR_RETURN(Array a, NpyRead(dir + "/embedding.npy"));
  if (a.dtype != DType::kFloat32 || a.shape != std::vector<int64_t>{num_nodes_, dim_})
    return Status::Corruption(dir + "/embedding.npy: expected float32 [" + std::to_string(num_nodes_) + ", " +
                              std::to_string(dim_) + "], got " + DTypeName(a.dtype) + " " + a.ShapeString());
  DG_ASSIGN_OR_RETURN(auto state, SparseOptimizerState::Load(dir + "/embedding.sparse_opt"));
  if (state->rows() != num_nodes_ || state->dim() != dim_)
    return Status::Corruption(dir + "/embedding.sparse_opt: its shape does not match the embedding");
  std::lock_guard<std::mutex> l(mu_);
  std::memcpy(table_.data(), a.data, table_.size() * sizeof(float));
  state_ = std::move(*state);
  return Status::OK();
}

}  // namespace dg
