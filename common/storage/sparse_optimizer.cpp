#include "common/storage/sparse_optimizer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace dg {

SparseOptimizerState::SparseOptimizerState(const SparseOptimizerSpec& spec, int64_t rows, int64_t dim)
    : spec_(spec), rows_(rows), dim_(dim) {}

void SparseOptimizerState::Apply(const int64_t* local_rows, size_t n, const float* grads, float* weights,
                                 uint64_t step) {
  if (spec_.weight_decay > 0) Decay(local_rows, n, weights, step);
  if (n == 0) return;
  if (spec_.kind == SparseOptimizerKind::kAdam) {
    ApplyAdam(local_rows, n, grads, weights);
  } else {
    ApplyAdagrad(local_rows, n, grads, weights);
  }
}

void SparseOptimizerState::ApplyAdagrad(const int64_t* rows, size_t n, const float* grads, float* weights) {
  if (s_.empty()) s_.assign(static_cast<size_t>(rows_ * dim_), 0.0f);
  const float lr = static_cast<float>(spec_.lr), eps = static_cast<float>(spec_.eps);
  for (size_t i = 0; i < n; ++i) {
    const float* g = grads + i * dim_;
    float* s = s_.data() + rows[i] * dim_;
    float* w = weights + rows[i] * dim_;
    for (int64_t j = 0; j < dim_; ++j) {  // vectorised (-O3 -fno-math-errno, common/CMakeLists.txt)
      const float sj = s[j] + g[j] * g[j];
      s[j] = sj;
      w[j] -= lr * g[j] / (std::sqrt(sj) + eps);
    }
  }
}

void SparseOptimizerState::ApplyAdam(const int64_t* rows, size_t n, const float* grads, float* weights) {
  if (m_.empty()) {
    m_.assign(static_cast<size_t>(rows_ * dim_), 0.0f);
    v_.assign(static_cast<size_t>(rows_ * dim_), 0.0f);
    steps_.assign(static_cast<size_t>(rows_), 0);
  }
  const float lr = static_cast<float>(spec_.lr), eps = static_cast<float>(spec_.eps);
  const float b1 = static_cast<float>(spec_.beta1), b2 = static_cast<float>(spec_.beta2);
  const float ob1 = static_cast<float>(1.0 - spec_.beta1), ob2 = static_cast<float>(1.0 - spec_.beta2);
  for (size_t i = 0; i < n; ++i) {
    const int64_t r = rows[i];
    const double t = static_cast<double>(++steps_[r]);
    // Bias corrections in double (1 - beta^t is tiny for small t), used as float factors.
    const float inv_c1 = static_cast<float>(1.0 / (1.0 - std::pow(spec_.beta1, t)));
    const float inv_c2 = static_cast<float>(1.0 / (1.0 - std::pow(spec_.beta2, t)));
    const float* g = grads + i * dim_;
    float* m = m_.data() + r * dim_;
    float* v = v_.data() + r * dim_;
    float* w = weights + r * dim_;
    for (int64_t j = 0; j < dim_; ++j) {
      const float mj = b1 * m[j] + ob1 * g[j];
      const float vj = b2 * v[j] + ob2 * g[j] * g[j];
      m[j] = mj;
      v[j] = vj;
      w[j] -= lr * (mj * inv_c1) / (std::sqrt(vj * inv_c2) + eps);
    }
  }
}

// ------------------------------------------------------------ weight decay

namespace {

void Scale(float* w, int64_t dim, float factor) {
  for (int64_t j = 0; j < dim; ++j) w[j] *= factor;
}

}  // namespace

float SparseOptimizerState::DecayFactor(uint64_t steps) const {
  return static_cast<float>(std::pow(1.0 - spec_.lr * spec_.weight_decay, static_cast<double>(steps)));
}

float SparseOptimizerState::ReadFactor(int64_t row) const {
  if (decay_next_.empty()) return 1.0f;
  const uint64_t owed = next_step_ - decay_next_[row];
  return owed == 0 ? 1.0f : DecayFactor(owed);
}

void SparseOptimizerState::Settle(int64_t row, float* w) {
  if (decay_next_.empty()) return;
  const uint64_t owed = next_step_ - decay_next_[row];
  if (owed > 0) Scale(w, dim_, DecayFactor(owed));
  decay_next_[row] = next_step_;
}

// A step numbered below the last: the old numbering's decay is settled in
// every row, and the new numbering owes from `step` on.
void SparseOptimizerState::RestartDecay(float* weights, uint64_t step) {
  for (int64_t r = 0; r < rows_; ++r) Settle(r, weights + r * dim_);
  decay_next_.assign(static_cast<size_t>(rows_), step);
}

// Before the update of step `step`: the touched rows get the decay they owe
// for skipped steps (one factor), then this step's; the others keep owing it.
void SparseOptimizerState::Decay(const int64_t* rows, size_t n, float* weights, uint64_t step) {
  if (decay_next_.empty()) {
    decay_next_.assign(static_cast<size_t>(rows_), step);  // the table's first step: nothing owed before it
  } else if (step < next_step_) {
    RestartDecay(weights, step);
  }
  const float one_step = DecayFactor(1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t r = rows[i];
    float* w = weights + r * dim_;
    const uint64_t skipped = step - decay_next_[r];
    if (skipped > 0) Scale(w, dim_, DecayFactor(skipped));
    Scale(w, dim_, one_step);
    decay_next_[r] = step + 1;
  }
  next_step_ = step + 1;
}

Status CheckDecayStep(const SparseOptimizerSpec& spec, uint64_t step) {
  if (spec.weight_decay == 0 || step <= kLastDecayStep) return Status::OK();
  return Status::InvalidArgument("step " + std::to_string(step) + " with weight_decay > 0: weight decay numbers " +
                                 "steps up to " + std::to_string(kLastDecayStep));
}

SparseGradSum::SparseGradSum(int64_t dim, size_t expected_ids) : dim_(dim) {
  slot_.reserve(expected_ids);
  rows_.reserve(expected_ids);
  sums_.reserve(expected_ids * static_cast<size_t>(dim));
}

void SparseGradSum::Add(const int64_t* ids, size_t n, const float* grads, int64_t offset) {
  for (size_t i = 0; i < n; ++i) {
    const float* src = grads + i * dim_;
    auto [it, fresh] = slot_.emplace(ids[i] - offset, rows_.size());
    if (fresh) {
      rows_.push_back(it->first);
      sums_.insert(sums_.end(), src, src + dim_);
      continue;
    }
    float* dst = sums_.data() + it->second * dim_;
    for (int64_t j = 0; j < dim_; ++j) dst[j] += src[j];
  }
}

// ------------------------------------------------------------ state file
// "DGSPOPT2", u8 kind, f64 lr, eps, beta1, beta2, weight_decay, i64 rows, dim,
// u64 next_step, then five arrays each as i64 count + elements: s, m, v
// (float32), steps (int64), decay_next (uint64). Format 1 ("DGSPOPT1") lacked
// weight_decay, next_step and decay_next.
namespace {

constexpr char kStateMagic[8] = {'D', 'G', 'S', 'P', 'O', 'P', 'T', '2'};
constexpr char kStateMagicV1[8] = {'D', 'G', 'S', 'P', 'O', 'P', 'T', '1'};

template <typename T>
void PutVec(std::ofstream& out, const std::vector<T>& v) {
  const int64_t n = static_cast<int64_t>(v.size());
  out.write(reinterpret_cast<const char*>(&n), sizeof(n));
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

template <typename T>
bool GetVec(std::ifstream& in, int64_t max, std::vector<T>* v) {
  int64_t n = 0;
  if (!in.read(reinterpret_cast<char*>(&n), sizeof(n)) || n < 0 || n > max) return false;
  v->resize(static_cast<size_t>(n));
  return static_cast<bool>(in.read(reinterpret_cast<char*>(v->data()), static_cast<std::streamsize>(n * sizeof(T))));
}

}  // namespace

Status SparseOptimizerState::Save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(kStateMagic, sizeof(kStateMagic));
  const uint8_t kind = static_cast<uint8_t>(spec_.kind);
  out.write(reinterpret_cast<const char*>(&kind), 1);
  for (double d : {spec_.lr, spec_.eps, spec_.beta1, spec_.beta2, spec_.weight_decay})
    out.write(reinterpret_cast<const char*>(&d), 8);
  out.write(reinterpret_cast<const char*>(&rows_), 8);
  out.write(reinterpret_cast<const char*>(&dim_), 8);
  out.write(reinterpret_cast<const char*>(&next_step_), 8);
  PutVec(out, s_);
  PutVec(out, m_);
  PutVec(out, v_);
  PutVec(out, steps_);
  PutVec(out, decay_next_);
  out.flush();
  if (!out) return Status::IOError("write " + path + " failed");
  return Status::OK();
}

namespace {

// The header after the magic: the spec, the shape and next_step.
bool ReadHeader(std::ifstream& in, SparseOptimizerSpec* spec, int64_t* rows, int64_t* dim, uint64_t* next_step) {
  uint8_t kind = 0;
  double d[5];
  if (!in.read(reinterpret_cast<char*>(&kind), 1) || !in.read(reinterpret_cast<char*>(d), sizeof(d)) ||
      !in.read(reinterpret_cast<char*>(rows), 8) || !in.read(reinterpret_cast<char*>(dim), 8) ||
      !in.read(reinterpret_cast<char*>(next_step), 8))
    return false;
  spec->kind = static_cast<SparseOptimizerKind>(kind);
  spec->lr = d[0];
  spec->eps = d[1];
  spec->beta1 = d[2];
  spec->beta2 = d[3];
  spec->weight_decay = d[4];
  return true;
}

}  // namespace

Result<std::unique_ptr<SparseOptimizerState>> SparseOptimizerState::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("open " + path + " failed");
  auto bad = [&path](const std::string& why) { return Status::Corruption(path + ": " + why); };
  char magic[8];
  if (in.read(magic, 8) && std::memcmp(magic, kStateMagicV1, 8) == 0)
    return bad("sparse optimizer state format 1 (written by an older distgnn, without weight decay state); "
               "this distgnn reads format 2: start from a newer step checkpoint or without one");
  if (!in || std::memcmp(magic, kStateMagic, 8) != 0) return bad("not a sparse optimizer state file");
  SparseOptimizerSpec spec;
  int64_t rows = 0, dim = 0;
  uint64_t next_step = 0;
  if (!ReadHeader(in, &spec, &rows, &dim, &next_step)) return bad("truncated header");
  Status valid = ValidateSparseOptimizer(spec);
  if (!valid.ok()) return bad(valid.message());
  if (rows < 0 || dim <= 0 || rows > (int64_t(1) << 40) / dim) return bad("bad shape");
  auto st = std::make_unique<SparseOptimizerState>(spec, rows, dim);
  st->next_step_ = next_step;
  const int64_t elems = rows * dim;
  if (!GetVec(in, elems, &st->s_) || !GetVec(in, elems, &st->m_) || !GetVec(in, elems, &st->v_) ||
      !GetVec(in, rows, &st->steps_) || !GetVec(in, rows, &st->decay_next_))
    return bad("truncated or oversized state arrays");
  auto sized = [&](size_t n, int64_t want) { return n == 0 || static_cast<int64_t>(n) == want; };
  if (!sized(st->s_.size(), elems) || !sized(st->m_.size(), elems) || !sized(st->v_.size(), elems) ||
      !sized(st->steps_.size(), rows) || !sized(st->decay_next_.size(), rows))
    return bad("state arrays do not match the shape");
  if (!st->decay_next_.empty() && spec.weight_decay == 0) return bad("decay steps without a weight decay");
  for (uint64_t next : st->decay_next_)
    if (next > next_step) return bad("a row's decay step is past the state's next step");
  if (in.peek() != std::char_traits<char>::eof()) return bad("trailing bytes after the state arrays");
  return st;
}

}  // namespace dg
