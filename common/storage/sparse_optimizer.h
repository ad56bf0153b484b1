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
//
// Weight decay (spec.weight_decay = wd > 0) is decoupled, as in AdamW: every
// step multiplies EVERY row of the table by f = 1 - lr*wd, touched or not,
// before the optimizer's update of the touched rows. Decaying untouched rows
// each step would cost the whole table per step, so it is lazy: each row keeps
// the first step whose decay its stored values lack (decay_next), the state the
// step after the last applied one (next_step). A step `step` touching row r
// first multiplies it by the decay of the steps it skipped as one factor
// f^(step - decay_next[r]) (pow in double, rounded to float32), then by f, then
// applies the update; decay_next[r] = step + 1. Steps are the caller's global
// step numbers (SPARSE_UPDATE's step, the trainer's embedding step count),
// increasing by one per step; a skipped number counts as a step. A step number
// below next_step starts a new numbering (a new job on a long-lived server):
// every row's owed decay is applied first, then counting restarts there.
//
// Reads never change the table: a row is stored without its owed decay, and a
// reader that must see its current value multiplies it by ReadFactor(r) =
// f^(next_step - decay_next[r]) -- the very factor the row's next touch applies
// first, so what a forward pass reads is exactly what the optimizer then
// updates, and the values never depend on when or how often rows were read.
// The server applies it on every row read (PULL, PULL_AGGREGATE, PULL_BLOCK,
// the co-located client) and when SAVE_TENSOR writes a table; a step checkpoint
// stores the table without it plus decay_next and next_step, so a resumed run
// is bit-identical to one never stopped. Settle() applies a row's owed decay in
// place (PUSH, which then overwrites or adds to the current value).
//
// Exact: every value equals a dense float64 reference (all rows decayed every
// step, lazy Adam/Adagrad on touched rows) within float32 rounding; it is not
// bit-identical to that reference nor to decaying every row each step in
// float32 (one pow factor replaces k float32 multiplications). wd = 0 runs the
// code path without decay, bit for bit.
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

// Weight decay numbers the steps, and the state keeps the number after the last
// applied one (next_step, decay_next): the last u64 is no step number, since a
// state holding it could not say what comes after it, nor be saved and loaded.
constexpr uint64_t kLastDecayStep = UINT64_MAX - 1;
// InvalidArgument for a step past kLastDecayStep when spec has weight decay.
Status CheckDecayStep(const SparseOptimizerSpec& spec, uint64_t step);

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
  // weights: the whole [rows, dim] table, updated in place. `step`: the global
  // step number (weight decay only; see above). n may be 0: a step that
  // touches no row here still owes its decay to every row.
  // With weight decay, step <= kLastDecayStep (CheckDecayStep).
  void Apply(const int64_t* local_rows, size_t n, const float* grads, float* weights, uint64_t step);

  // Whether some row may owe weight decay (ReadFactor may be != 1).
  bool owes_decay() const { return !decay_next_.empty(); }
  // What a read multiplies row r's stored values by to see its value after
  // the last applied step: f^(owed steps), 1 when nothing is owed.
  float ReadFactor(int64_t row) const;
  // Applies row r's owed decay to its stored values `w` ([dim] floats) in place.
  void Settle(int64_t row, float* w);

  // The whole state (spec, shape, s / m / v / per-row steps, decay steps) as one binary
  // file (docs/formats.md "Step checkpoint"): Save writes `path` directly
  // (the caller renames a finished directory); Load reads one back and fails
  // with Corruption naming the file when it is short or malformed.
  Status Save(const std::string& path) const;
  static Result<std::unique_ptr<SparseOptimizerState>> Load(const std::string& path);

 private:
  void ApplyAdagrad(const int64_t* rows, size_t n, const float* grads, float* weights);
  void ApplyAdam(const int64_t* rows, size_t n, const float* grads, float* weights);
  void Decay(const int64_t* rows, size_t n, float* weights, uint64_t step);
  void RestartDecay(float* weights, uint64_t step);
  float DecayFactor(uint64_t steps) const;

  SparseOptimizerSpec spec_;
  int64_t rows_, dim_;
  std::vector<float> s_;        // Adagrad: sum of squared gradients
  std::vector<float> m_, v_;    // Adam: first and second moments
  std::vector<int64_t> steps_;  // Adam: per-row step count
  std::vector<uint64_t> decay_next_;  // weight decay: per row, the first step whose decay it lacks
  uint64_t next_step_ = 0;            // weight decay: the step after the last applied one
};

}  // namespace dg
