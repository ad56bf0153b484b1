// Sparse optimizers for embedding tables (DGL's SparseAdagrad and SparseAdam),
// torch-free: plain float32 rows. Used by the graph server (SPARSE_UPDATE on a
// DistTensor) and by in-process trainers.
//
// A SparseOptimizerState belongs to one float32 table of [rows, dim]. Apply()
// updates the given rows with their gradients; rows must be unique (callers sum
// duplicate ids first) and in [0, rows). Rows not in an update are untouched:
// their state, and for Adam their step count, do not move ("lazy" updates).
//
//   Adagrad:  s += g*g;                   w -= lr * g / (sqrt(s) + eps)
//   Adam:     t_r += 1 (per row);
//             m = beta1*m + (1-beta1)*g;  v = beta2*v + (1-beta2)*g*g
//             w -= lr * (m / (1 - beta1^t_r)) / (sqrt(v / (1 - beta2^t_r)) + eps)
//
// All element-wise; s, m, v are float32 [rows, dim], t_r an int64 per row, all
// zero-initialised lazily on the first Apply(). Arithmetic is float32 (as in
// DGL), except Adam's bias corrections 1 - beta^t (double). Not thread-safe: the owner
// serialises Apply() with every other access to the table (the server holds
// the tensor's write lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/base/sparse_optimizer_spec.h"
#include "common/base/status.h"

namespace dg {

// Sums gradient rows that share a row: Add() each contribution in a fixed
// order; rows() lists every distinct row (id - offset) in first-seen order and
// sums() their summed gradients [rows().size(), dim], so the sums are
// deterministic. Ids are not checked (callers have).
class SparseGradSum {
 public:
  explicit SparseGradSum(int64_t dim, size_t expected_ids = 0);
  void Add(const int64_t* ids, size_t n, const float* grads, int64_t offset = 0);
  const std::vector<int64_t>& rows() const { return rows_; }
  const float* sums() const { return sums_.data(); }

 private:
  int64_t dim_;
  std::unordered_map<int64_t, size_t> slot_;
  std::vector<int64_t> rows_;
  std::vector<float> sums_;
};

class SparseOptimizerState {
 public:
  SparseOptimizerState(const SparseOptimizerSpec& spec, int64_t rows, int64_t dim);

  const SparseOptimizerSpec& spec() const { return spec_; }
  int64_t rows() const { return rows_; }
  int64_t dim() const { return dim_; }

  // grads: [n, dim] row-major, grads row i for table row local_rows[i];
  // weights: the whole [rows, dim] table, updated in place.
  void Apply(const int64_t* local_rows, size_t n, const float* grads, float* weights);

  // The whole state (spec, shape, s / m / v / per-row steps) as one binary
  // file (docs/formats.md "Step checkpoint"): Save writes `path` directly
  // (the caller renames a finished directory); Load reads one back and fails
  // with Corruption naming the file when it is short or malformed.
  Status Save(const std::string& path) const;
  static Result<std::unique_ptr<SparseOptimizerState>> Load(const std::string& path);

 private:
  void ApplyAdagrad(const int64_t* rows, size_t n, const float* grads, float* weights);
  void ApplyAdam(const int64_t* rows, size_t n, const float* grads, float* weights);

  SparseOptimizerSpec spec_;
  int64_t rows_, dim_;
  std::vector<float> s_;        // Adagrad: sum of squared gradients
  std::vector<float> m_, v_;    // Adam: first and second moments
  std::vector<int64_t> steps_;  // Adam: per-row step count
};

}  // namespace dg
