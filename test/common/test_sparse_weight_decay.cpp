// Weight decay of the sparse optimizers (common/storage/sparse_optimizer.h):
// the lazy decay against a dense float64 reference that decays every row every
// step, wd = 0 against the undecayed float32 arithmetic bit for bit, and the
// state file's round trip (a resumed run equals one never stopped).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "common/storage/node_embedding.h"
#include "common/storage/sparse_optimizer.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

constexpr int64_t kRows = 20, kDim = 4;
constexpr int kSteps = 30;

// A small deterministic generator (splitmix64), independent of the code under test.
struct Mix {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float Uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>((Next() >> 11) * 0x1.0p-53); }
};

// Rows 0-3 every step; 4-7 skip 1 step, 8-11 skip 3, 12-15 skip 7 between
// touches (the phase differs per row); 16-19 only at step 0; plus one row
// drawn at random per step.
std::vector<int64_t> Touched(int step, Mix* mix) {
  std::vector<int64_t> rows;
  for (int64_t r = 0; r < 16; ++r) {
    const int period = r < 4 ? 1 : r < 8 ? 2 : r < 12 ? 4 : 8;
    if ((step + r) % period == 0) rows.push_back(r);
  }
  if (step == 0)
    for (int64_t r = 16; r < 20; ++r) rows.push_back(r);
  const int64_t extra = static_cast<int64_t>(mix->Next() % 16);
  if (std::find(rows.begin(), rows.end(), extra) == rows.end()) rows.push_back(extra);
  return rows;
}

std::vector<float> Grads(size_t n, Mix* mix) {
  std::vector<float> g(n * kDim);
  for (float& x : g) x = mix->Uniform(-1, 1);
  return g;
}

std::vector<float> StartTable() {
  Mix mix{42};
  std::vector<float> w(kRows * kDim);
  for (float& x : w) x = mix.Uniform(-1, 1);
  return w;
}

// Decoupled decay of every row, then lazy Adam / Adagrad on the touched rows, in double.
struct DenseReference {
  SparseOptimizerSpec spec;
  std::vector<double> w, s, m, v;
  std::vector<int64_t> t;
  void Init(const std::vector<float>& start) {
    w.assign(start.begin(), start.end());
    s.assign(w.size(), 0);
    m.assign(w.size(), 0);
    v.assign(w.size(), 0);
    t.assign(kRows, 0);
  }
  void Step(const std::vector<int64_t>& rows, const std::vector<float>& g) {
    for (double& x : w) x *= 1 - spec.lr * spec.weight_decay;
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t r = rows[i];
      ++t[r];
      for (int64_t j = 0; j < kDim; ++j) {
        const size_t e = r * kDim + j;
        const double gj = g[i * kDim + j];
        if (spec.kind == SparseOptimizerKind::kAdagrad) {
          s[e] += gj * gj;
          w[e] -= spec.lr * gj / (std::sqrt(s[e]) + spec.eps);
          continue;
        }
        m[e] = spec.beta1 * m[e] + (1 - spec.beta1) * gj;
        v[e] = spec.beta2 * v[e] + (1 - spec.beta2) * gj * gj;
        const double mh = m[e] / (1 - std::pow(spec.beta1, t[r])), vh = v[e] / (1 - std::pow(spec.beta2, t[r]));
        w[e] -= spec.lr * mh / (std::sqrt(vh) + spec.eps);
      }
    }
  }
};

// What a reader sees of row r: its stored values times the decay it owes.
std::vector<float> ReadAll(const SparseOptimizerState& st, const std::vector<float>& table) {
  std::vector<float> out = table;
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t j = 0; j < kDim; ++j) out[r * kDim + j] *= st.ReadFactor(r);
  return out;
}

double WorstError(const std::vector<float>& got, const std::vector<double>& want, const std::vector<int64_t>& rows) {
  double worst = 0;
  for (int64_t r : rows)
    for (int64_t j = 0; j < kDim; ++j)
      worst = std::max(worst, std::abs(double(got[r * kDim + j]) - want[r * kDim + j]));
  return worst;
}

std::vector<int64_t> AllRows() {
  std::vector<int64_t> rows(kRows);
  for (int64_t r = 0; r < kRows; ++r) rows[r] = r;
  return rows;
}

SparseOptimizerSpec Spec(SparseOptimizerKind kind, double wd) {
  SparseOptimizerSpec spec = SparseOptimizerSpec::Defaults(kind, 0.05);
  spec.weight_decay = wd;
  return spec;
}

}  // namespace

TEST_CASE("lazy weight decay equals a dense float64 reference that decays every row every step",
          "[storage][sparse][weight_decay]") {
  for (SparseOptimizerKind kind : {SparseOptimizerKind::kAdagrad, SparseOptimizerKind::kAdam}) {
    const SparseOptimizerSpec spec = Spec(kind, 0.4);  // 2% per step: a missed step is ~1000x the tolerance
    INFO(spec.ToString());
    REQUIRE(ValidateSparseOptimizer(spec).ok());
    SparseOptimizerState st(spec, kRows, kDim);
    std::vector<float> table = StartTable();
    DenseReference ref;
    ref.spec = spec;
    ref.Init(table);
    Mix mix{7};
    const uint64_t first = 1000;  // a step numbering that does not start at 0
    for (int k = 0; k < kSteps; ++k) {
      const std::vector<int64_t> rows = Touched(k, &mix);
      const std::vector<float> g = Grads(rows.size(), &mix);
      st.Apply(rows.data(), rows.size(), g.data(), table.data(), first + k);
      ref.Step(rows, g);
      INFO("step " << k);
      CHECK(WorstError(table, ref.w, rows) <= 1e-5);                   // touched rows: stored values are current
      CHECK(WorstError(ReadAll(st, table), ref.w, AllRows()) <= 1e-5);  // every row as read
    }
    // Rows 16-19 owe the decay of steps 1..29; the reference moved them by it.
    for (int64_t r = 16; r < 20; ++r) CHECK(st.ReadFactor(r) == Approx(std::pow(1 - 0.05 * 0.4, 29)).epsilon(1e-6));
    CHECK(std::abs(table[16 * kDim] - ref.w[16 * kDim]) > 0.1 * std::abs(ref.w[16 * kDim]));
    // Settling every row makes the stored table what the readers saw.
    const std::vector<float> read = ReadAll(st, table);
    for (int64_t r = 0; r < kRows; ++r) st.Settle(r, table.data() + r * kDim);
    CHECK(table == read);
    CHECK(WorstError(table, ref.w, AllRows()) <= 1e-5);
    for (int64_t r = 0; r < kRows; ++r) CHECK(st.ReadFactor(r) == 1.0f);
  }
}

TEST_CASE("weight_decay = 0 is the undecayed float32 arithmetic bit for bit, whatever the step numbers",
          "[storage][sparse][weight_decay]") {
  for (SparseOptimizerKind kind : {SparseOptimizerKind::kAdagrad, SparseOptimizerKind::kAdam}) {
    const SparseOptimizerSpec spec = Spec(kind, 0);
    INFO(spec.ToString());
    SparseOptimizerState st(spec, kRows, kDim), renumbered(spec, kRows, kDim);
    std::vector<float> table = StartTable(), table2 = table, plain = table;
    // The float32 loops as they were before weight decay existed (DGL's arithmetic).
    std::vector<float> s(plain.size()), m(plain.size()), v(plain.size());
    std::vector<int64_t> t(kRows);
    const float lr = float(spec.lr), eps = float(spec.eps), b1 = float(spec.beta1), b2 = float(spec.beta2);
    const float ob1 = float(1.0 - spec.beta1), ob2 = float(1.0 - spec.beta2);
    Mix mix{9};
    for (int k = 0; k < kSteps; ++k) {
      const std::vector<int64_t> rows = Touched(k, &mix);
      const std::vector<float> g = Grads(rows.size(), &mix);
      st.Apply(rows.data(), rows.size(), g.data(), table.data(), k);
      renumbered.Apply(rows.data(), rows.size(), g.data(), table2.data(), 5);  // the same number every step
      for (size_t i = 0; i < rows.size(); ++i) {
        const int64_t r = rows[i];
        const double tr = double(++t[r]);
        const float c1 = float(1.0 / (1.0 - std::pow(spec.beta1, tr))), c2 = float(1.0 / (1.0 - std::pow(spec.beta2, tr)));
        for (int64_t j = 0; j < kDim; ++j) {
          const size_t e = r * kDim + j;
          const float gj = g[i * kDim + j];
          if (kind == SparseOptimizerKind::kAdagrad) {
            s[e] = s[e] + gj * gj;
            plain[e] -= lr * gj / (std::sqrt(s[e]) + eps);
            continue;
          }
          m[e] = b1 * m[e] + ob1 * gj;
          v[e] = b2 * v[e] + ob2 * gj * gj;
          plain[e] -= lr * (m[e] * c1) / (std::sqrt(v[e] * c2) + eps);
        }
      }
      REQUIRE(table == plain);
    }
    CHECK(table2 == plain);
    CHECK_FALSE(st.owes_decay());
    for (int64_t r = 0; r < kRows; ++r) CHECK(st.ReadFactor(r) == 1.0f);
  }
}

TEST_CASE("a step numbered below the last starts a new numbering after settling the old one",
          "[storage][sparse][weight_decay]") {
  const SparseOptimizerSpec spec = Spec(SparseOptimizerKind::kAdagrad, 0.4);
  const double f = 1 - 0.05 * 0.4;
  SparseOptimizerState st(spec, kRows, kDim);
  std::vector<float> table = StartTable();
  const std::vector<float> start = table;
  const std::vector<int64_t> row0{0};
  const std::vector<float> g(kDim, 0.0f);  // zero gradients: only the decay moves rows
  for (uint64_t step = 10; step < 15; ++step) st.Apply(row0.data(), 1, g.data(), table.data(), step);
  // Steps 10..14 applied: row 1 owes 5 steps. Then a new job numbers from 0.
  CHECK(st.ReadFactor(1) == Approx(std::pow(f, 5)).epsilon(1e-6));
  st.Apply(row0.data(), 1, g.data(), table.data(), 0);
  CHECK(table[1 * kDim] == Approx(start[1 * kDim] * std::pow(f, 5)).epsilon(1e-6));  // settled in place
  CHECK(st.ReadFactor(1) == Approx(f).epsilon(1e-6));                                 // owes step 0 only
  st.Apply(nullptr, 0, nullptr, table.data(), 1);  // a step touching no row here still counts
  CHECK(st.ReadFactor(1) == Approx(f * f).epsilon(1e-6));
}

// The same steps (numbered first_step, first_step + 1, ...) on an embedding
// never stopped (whole) and on one saved after the step of index `stop` and
// loaded into a fresh embedding that takes the rest (resumed).
struct ResumedRun {
  std::unique_ptr<LocalNodeEmbedding> whole, resumed;
};
ResumedRun TrainAcrossResume(const NodeEmbeddingOptions& o, uint64_t mix_seed, uint64_t first_step, int steps,
                             int stop) {
  auto whole = LocalNodeEmbedding::Create(kRows, o);
  auto first = LocalNodeEmbedding::Create(kRows, o);
  auto resumed = LocalNodeEmbedding::Create(kRows, o);
  REQUIRE(whole.ok());
  REQUIRE(first.ok());
  REQUIRE(resumed.ok());
  test::TempDir dir;
  Mix mix{mix_seed};
  for (int k = 0; k < steps; ++k) {
    const std::vector<int64_t> ids = Touched(k, &mix);
    Array g = Array::Zeros(DType::kFloat32, {int64_t(ids.size()), kDim});
    const std::vector<float> gv = Grads(ids.size(), &mix);
    std::memcpy(g.data, gv.data(), g.nbytes());
    REQUIRE((*whole)->Update(ids, g, first_step + k).ok());
    LocalNodeEmbedding* other = k <= stop ? first->get() : resumed->get();
    REQUIRE(other->Update(ids, g, first_step + k).ok());
    if (k == stop) {
      REQUIRE((*first)->SaveState(dir.path()).ok());
      REQUIRE((*resumed)->LoadState(dir.path()).ok());
    }
  }
  return {std::move(*whole), std::move(*resumed)};
}

TEST_CASE("a resumed embedding with owed weight decay equals one never stopped", "[storage][sparse][weight_decay]") {
  for (SparseOptimizerKind kind : {SparseOptimizerKind::kAdagrad, SparseOptimizerKind::kAdam}) {
    NodeEmbeddingOptions o;
    o.dim = kDim;
    o.optimizer = Spec(kind, 0.4);
    o.seed = 3;
    INFO(o.optimizer.ToString());
    // a checkpoint after step 12, while rows 16-19 owe 12 steps of decay
    const ResumedRun run = TrainAcrossResume(o, 11, 0, kSteps, 12);
    CHECK(run.resumed->table() == run.whole->table());
    auto a = run.whole->Rows(AllRows());
    auto b = run.resumed->Rows(AllRows());
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(std::memcmp(a->data, b->data, a->nbytes()) == 0);
    CHECK(std::memcmp(a->data, run.whole->table().data(), a->nbytes()) != 0);  // Rows() applied owed decay
  }
}

TEST_CASE("the last step numbers weight decay takes save and load and the one past them is refused",
          "[storage][sparse][weight_decay]") {
  NodeEmbeddingOptions o;
  o.dim = kDim;
  o.optimizer = Spec(SparseOptimizerKind::kAdam, 0.4);
  o.seed = 5;
  // the last ten step numbers, a checkpoint after the fifth
  const ResumedRun run = TrainAcrossResume(o, 17, kLastDecayStep - 9, 10, 4);
  LocalNodeEmbedding& whole = *run.whole;
  CHECK(run.resumed->table() == whole.table());
  test::TempDir last;  // the state after step kLastDecayStep saves and loads too
  REQUIRE(whole.SaveState(last.path()).ok());
  auto again = LocalNodeEmbedding::Create(kRows, o);
  REQUIRE(again.ok());
  REQUIRE((*again)->LoadState(last.path()).ok());
  CHECK((*again)->table() == whole.table());
  Array g = Array::Zeros(DType::kFloat32, {1, kDim});
  const Status past = whole.Update({0}, g, kLastDecayStep + 1);
  CHECK(past.code() == Status::Code::kInvalidArgument);
  CHECK(past.message() == "embedding update: step 18446744073709551615 with weight_decay > 0: weight decay numbers "
                          "steps up to 18446744073709551614");
  o.optimizer.weight_decay = 0;  // without weight decay a step number is only a key
  auto plain = LocalNodeEmbedding::Create(kRows, o);
  REQUIRE(plain.ok());
  CHECK((*plain)->Update({0}, g, kLastDecayStep + 1).ok());
}

TEST_CASE("the sparse optimizer state file refuses format 1, truncation and bad decay steps naming the file",
          "[storage][sparse][weight_decay]") {
  test::TempDir dir;
  const std::string path = dir / "s.sparse_opt";
  SparseOptimizerState st(Spec(SparseOptimizerKind::kAdam, 0.4), kRows, kDim);
  std::vector<float> table = StartTable();
  const std::vector<int64_t> rows{1, 5};
  const std::vector<float> g(2 * kDim, 0.5f);
  st.Apply(rows.data(), 2, g.data(), table.data(), 0);
  st.Apply(rows.data(), 1, g.data(), table.data(), 1);
  REQUIRE(st.Save(path).ok());
  auto back = SparseOptimizerState::Load(path);
  REQUIRE(back.ok());
  CHECK((*back)->spec().SameAs(st.spec()));
  for (int64_t r = 0; r < kRows; ++r) CHECK((*back)->ReadFactor(r) == st.ReadFactor(r));

  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto write = [&](const std::string& b) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(b.data(), static_cast<std::streamsize>(b.size()));
  };
  auto refused = [&](const std::string& why) {
    auto r = SparseOptimizerState::Load(path);
    REQUIRE_FALSE(r.ok());
    INFO(r.status().ToString());
    CHECK(r.status().code() == Status::Code::kCorruption);
    CHECK(r.status().message().find(path + ": " + why) != std::string::npos);
  };
  std::string v1 = bytes;
  v1[7] = '1';
  write(v1);
  refused("sparse optimizer state format 1");
  write(bytes.substr(0, 30));
  refused("truncated header");
  write(bytes.substr(0, bytes.size() - 3));
  refused("truncated or oversized state arrays");
  write(bytes + "x");
  refused("trailing bytes");
  // next_step (after magic, kind, five f64, rows, dim) set to 0: rows are past it.
  std::string early = bytes;
  std::memset(&early[8 + 1 + 40 + 16], 0, 8);
  write(early);
  refused("a row's decay step is past the state's next step");
}

TEST_CASE("weight decay validation and its place in the optimizer's description", "[storage][sparse][weight_decay]") {
  SparseOptimizerSpec s = Spec(SparseOptimizerKind::kAdagrad, 0.001);
  CHECK(s.ToString() == "sparse_adagrad(lr=0.05, eps=1e-10, weight_decay=0.001)");
  CHECK(Spec(SparseOptimizerKind::kAdagrad, 0).ToString() == "sparse_adagrad(lr=0.05, eps=1e-10)");
  CHECK_FALSE(s.SameAs(Spec(SparseOptimizerKind::kAdagrad, 0)));
  s.weight_decay = -1;
  CHECK(ValidateSparseOptimizer(s).message() == "sparse_adagrad: weight_decay = -1 must be >= 0 and finite");
  s.weight_decay = 20;
  CHECK(ValidateSparseOptimizer(s).message() == "sparse_adagrad: lr * weight_decay = 1 must be < 1");
}
