// What a sparse optimizer step is asked to do (DGL's SparseAdagrad and
// SparseAdam and their parameters): the value type the optimizer
// (common/storage/sparse_optimizer.h), the SPARSE_UPDATE codec
// (common/net/messages.h) and the trainer's settings share.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"

namespace dg {

enum class SparseOptimizerKind : uint8_t { kAdagrad = 0, kAdam = 1 };

struct SparseOptimizerSpec {
  SparseOptimizerKind kind = SparseOptimizerKind::kAdagrad;
  double lr = 0.01;
  double eps = 1e-10;  // Adagrad's default; Adam's is 1e-8 (see Defaults())
  double beta1 = 0.9;  // Adam only
  double beta2 = 0.999;
  // Decoupled (AdamW-style) decay of every row, every step: w <- w * (1 - lr *
  // weight_decay), applied lazily (common/storage/sparse_optimizer.h). 0 = none.
  double weight_decay = 0;

  // lr and the kind's default eps/betas.
  static SparseOptimizerSpec Defaults(SparseOptimizerKind kind, double lr);
  // "sparse_adagrad(lr=0.01, eps=1e-10)", "sparse_adam(lr=0.01, eps=1e-08, betas=(0.9, 0.999))";
  // a non-zero weight decay adds ", weight_decay=0.0001" before the ')'.
  std::string ToString() const;
  // Same kind, weight decay and the parameters that kind uses (Adagrad ignores the betas).
  bool SameAs(const SparseOptimizerSpec& o) const;
};

const char* SparseOptimizerName(SparseOptimizerKind kind);  // "sparse_adagrad", "sparse_adam"
// lr > 0, eps > 0 (finite), betas in [0, 1), weight_decay >= 0 with
// lr * weight_decay < 1 (a positive decay factor); the message names the bad field.
Status ValidateSparseOptimizer(const SparseOptimizerSpec& spec);

}  // namespace dg
