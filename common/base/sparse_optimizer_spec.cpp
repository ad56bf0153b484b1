#include "common/base/sparse_optimizer_spec.h"

#include <cmath>
#include <cstdio>

namespace dg {

SparseOptimizerSpec SparseOptimizerSpec::Defaults(SparseOptimizerKind kind, double lr) {
  SparseOptimizerSpec s;
  s.kind = kind;
  s.lr = lr;
  s.eps = kind == SparseOptimizerKind::kAdam ? 1e-8 : 1e-10;
  return s;
}

std::string SparseOptimizerSpec::ToString() const {
  char buf[160], wd[48] = "";
  if (weight_decay != 0) std::snprintf(wd, sizeof(wd), ", weight_decay=%g", weight_decay);
  if (kind == SparseOptimizerKind::kAdam) {
    std::snprintf(buf, sizeof(buf), "sparse_adam(lr=%g, eps=%g, betas=(%g, %g)%s)", lr, eps, beta1, beta2, wd);
  } else {
    std::snprintf(buf, sizeof(buf), "%s(lr=%g, eps=%g%s)", SparseOptimizerName(kind), lr, eps, wd);
  }
  return buf;
}

bool SparseOptimizerSpec::SameAs(const SparseOptimizerSpec& o) const {
  if (kind != o.kind || lr != o.lr || eps != o.eps || weight_decay != o.weight_decay) return false;
  return kind != SparseOptimizerKind::kAdam || (beta1 == o.beta1 && beta2 == o.beta2);
}

const char* SparseOptimizerName(SparseOptimizerKind kind) {
  switch (kind) {
    case SparseOptimizerKind::kAdagrad: return "sparse_adagrad";
    case SparseOptimizerKind::kAdam: return "sparse_adam";
  }
  return "sparse_unknown";
}

Status ValidateSparseOptimizer(const SparseOptimizerSpec& s) {
  auto bad = [&](const char* field, double v, const char* want) {
    char buf[200];
    std::snprintf(buf, sizeof(buf), "%s: %s = %g must be %s", SparseOptimizerName(s.kind), field, v, want);
    return Status::InvalidArgument(buf);
  };
  if (s.kind != SparseOptimizerKind::kAdagrad && s.kind != SparseOptimizerKind::kAdam) {
    return Status::InvalidArgument("unknown sparse optimizer kind " + std::to_string(int(s.kind)));
  }
  if (!(s.lr > 0) || !std::isfinite(s.lr)) return bad("lr", s.lr, "> 0 and finite");
  if (!(s.eps > 0) || !std::isfinite(s.eps)) return bad("eps", s.eps, "> 0 and finite");
  if (s.kind == SparseOptimizerKind::kAdam) {
    if (!(s.beta1 >= 0 && s.beta1 < 1)) return bad("beta1", s.beta1, "in [0, 1)");
    if (!(s.beta2 >= 0 && s.beta2 < 1)) return bad("beta2", s.beta2, "in [0, 1)");
  }
  if (!(s.weight_decay >= 0) || !std::isfinite(s.weight_decay))
    return bad("weight_decay", s.weight_decay, ">= 0 and finite");
  // Each step multiplies every row by 1 - lr * weight_decay: it must stay positive.
  if (!(s.lr * s.weight_decay < 1)) return bad("lr * weight_decay", s.lr * s.weight_decay, "< 1");
  return Status::OK();
}

}  // namespace dg
