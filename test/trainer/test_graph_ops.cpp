// torch.ops.distgnn.* against pure-torch references in float64: values and
// gradients, on random blocks with empty rows and duplicate sources, int64
// and int32 indices, and the errors a malformed block raises.
#include "test/support/torch_catch.h"

#include <ATen/Parallel.h>

#include <random>
#include <string>

#include "roles/trainer/graph_ops/graph_ops.h"
#include "roles/trainer/graph_ops/skinny_matmul.h"
#include "roles/trainer/model/script_resolver.h"

namespace dg {
namespace {

using torch::Tensor;

struct TestBlock {
  Tensor indptr, indices;
  int64_t num_dst = 0, num_src = 0;
};

// Row d has 0..max_deg sources drawn with replacement (duplicates happen);
// about a fifth of the rows are empty.
TestBlock RandomBlock(int64_t num_dst, int64_t num_src, int max_deg, uint64_t seed,
                      torch::Dtype index_type = torch::kInt64) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> ptr{0}, idx;
  for (int64_t d = 0; d < num_dst; ++d) {
    int deg = rng() % 5 == 0 ? 0 : static_cast<int>(rng() % (max_deg + 1));
    for (int k = 0; k < deg; ++k) idx.push_back(static_cast<int64_t>(rng() % num_src));
    // A duplicate on purpose in every non-empty row with two or more edges.
    if (deg >= 2) idx.back() = idx[idx.size() - 2];
    ptr.push_back(static_cast<int64_t>(idx.size()));
  }
  TestBlock b;
  b.indptr = torch::tensor(ptr, torch::kInt64).to(index_type);
  b.indices = torch::tensor(idx, torch::kInt64).to(index_type);
  b.num_dst = num_dst;
  b.num_src = num_src;
  return b;
}

Tensor EdgeDst(const TestBlock& b) {
  Tensor ip = b.indptr.to(torch::kInt64);
  return torch::repeat_interleave(ip.slice(0, 1) - ip.slice(0, 0, -1));
}

Tensor RefSum(const TestBlock& b, const Tensor& x) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape[0] = b.num_dst;
  return torch::zeros(shape, x.options()).index_add(0, EdgeDst(b), x.index_select(0, b.indices.to(torch::kInt64)));
}

Tensor RefMean(const TestBlock& b, const Tensor& x) {
  Tensor ip = b.indptr.to(torch::kInt64);
  Tensor deg = (ip.slice(0, 1) - ip.slice(0, 0, -1)).clamp_min(1).to(x.scalar_type());
  std::vector<int64_t> view(x.dim(), 1);
  view[0] = b.num_dst;
  return RefSum(b, x) / deg.view(view);
}

// D_in^-1/2 (A + I) D_out^-1/2 x, written as the dense matrix product.
Tensor RefGcn(const TestBlock& b, const Tensor& x) {
  Tensor a = torch::zeros({b.num_dst, b.num_src}, x.options());
  Tensor dst = EdgeDst(b), src = b.indices.to(torch::kInt64);
  a.index_put_({dst, src}, torch::ones({src.numel()}, x.options()), /*accumulate=*/true);
  a.slice(1, 0, b.num_dst).add_(torch::eye(b.num_dst, x.options()));
  Tensor d_in = a.sum(1), d_out = a.sum(0);
  Tensor out_scale = torch::where(d_out > 0, d_out.rsqrt(), torch::zeros_like(d_out));
  Tensor norm = d_in.rsqrt().unsqueeze(1) * a * out_scale.unsqueeze(0);
  return torch::matmul(norm, x.reshape({b.num_src, -1})).reshape(RefSum(b, x).sizes());
}

Tensor RefEdgeSoftmax(const TestBlock& b, const Tensor& s) {
  Tensor dst = EdgeDst(b);
  Tensor idx = dst.unsqueeze(1).expand_as(s);
  Tensor mx = torch::full({b.num_dst, s.size(1)}, -1e300, s.options())
                  .scatter_reduce(0, idx, s, "amax", /*include_self=*/true);
  Tensor e = torch::exp(s - mx.index_select(0, dst));
  Tensor den = torch::zeros({b.num_dst, s.size(1)}, s.options()).index_add(0, dst, e);
  return e / den.index_select(0, dst);
}

Tensor RefWeighted(const TestBlock& b, const Tensor& w, const Tensor& x) {
  Tensor msg = x.index_select(0, b.indices.to(torch::kInt64)) * w.unsqueeze(-1);
  return torch::zeros({b.num_dst, x.size(1), x.size(2)}, x.options()).index_add(0, EdgeDst(b), msg);
}

Tensor Leaf(std::vector<int64_t> shape, uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randn(shape, torch::kFloat64).requires_grad_(true);
}

// Compares op(x) and ref(x) and their gradients for a random upstream gradient.
template <typename Op, typename Ref>
void CompareUnary(Op op, Ref ref, std::vector<int64_t> shape, uint64_t seed) {
  Tensor x1 = Leaf(shape, seed), x2 = Leaf(shape, seed);
  Tensor y1 = op(x1), y2 = ref(x2);
  REQUIRE(y1.sizes() == y2.sizes());
  CHECK(torch::allclose(y1, y2, 1e-12, 1e-12));
  Tensor g = torch::randn(y1.sizes(), torch::kFloat64);
  y1.backward(g);
  y2.backward(g);
  CHECK(torch::allclose(x1.grad(), x2.grad(), 1e-12, 1e-12));
}

}  // namespace

TEST_CASE("csr_sum, csr_mean and gcn_aggregate equal their references, values and gradients") {
  // One thread scatters in the backward, two run over the transposed block.
  const int threads_before = at::get_num_threads();
  for (int threads : {1, 2})
  for (auto index_type : {torch::kInt64, torch::kInt32}) {
    at::set_num_threads(threads);
    INFO(threads << " threads");
    for (uint64_t seed : {1, 2, 3}) {
      TestBlock b = RandomBlock(40 + seed * 13, 120 + seed * 7, 9, seed, index_type);
      INFO("seed " << seed << " index " << index_type);
      for (std::vector<int64_t> shape : {std::vector<int64_t>{b.num_src, 5},
                                         std::vector<int64_t>{b.num_src, 3, 4}}) {
        CompareUnary([&](const Tensor& x) { return CsrSum(b.indptr, b.indices, x, b.num_dst); },
                     [&](const Tensor& x) { return RefSum(b, x); }, shape, seed);
        CompareUnary([&](const Tensor& x) { return CsrMean(b.indptr, b.indices, x, b.num_dst); },
                     [&](const Tensor& x) { return RefMean(b, x); }, shape, seed);
        CompareUnary([&](const Tensor& x) { return GcnAggregate(b.indptr, b.indices, x, b.num_dst); },
                     [&](const Tensor& x) { return RefGcn(b, x); }, shape, seed);
      }
    }
  }
  at::set_num_threads(threads_before);
}

TEST_CASE("edge_softmax and csr_weighted_sum equal their references, values and gradients") {
  for (auto index_type : {torch::kInt64, torch::kInt32}) {
    TestBlock b = RandomBlock(37, 90, 8, 11, index_type);
    const int64_t E = b.indices.numel(), H = 3, F = 4;
    CompareUnary([&](const Tensor& s) { return EdgeSoftmax(b.indptr, s); },
                 [&](const Tensor& s) { return RefEdgeSoftmax(b, s); }, {E, H}, 5);
    Tensor w1 = Leaf({E, H}, 6), w2 = Leaf({E, H}, 6);
    Tensor x1 = Leaf({b.num_src, H, F}, 7), x2 = Leaf({b.num_src, H, F}, 7);
    Tensor y1 = CsrWeightedSum(b.indptr, b.indices, w1, x1, b.num_dst);
    Tensor y2 = RefWeighted(b, w2, x2);
    CHECK(torch::allclose(y1, y2, 1e-12, 1e-12));
    Tensor g = torch::randn(y1.sizes(), torch::kFloat64);
    y1.backward(g);
    y2.backward(g);
    CHECK(torch::allclose(w1.grad(), w2.grad(), 1e-12, 1e-12));
    CHECK(torch::allclose(x1.grad(), x2.grad(), 1e-12, 1e-12));
  }
}

TEST_CASE("linear equals x @ w^T, values and gradients, on the skinny kernels and the BLAS path") {
  // 16/10/24/32 columns over 3000 rows take the skinny kernels, at every SIMD
  // level this CPU has (none = BLAS); 40 columns and 100 rows take BLAS. Rows
  // not a multiple of 8 on purpose.
  const kernels::SimdLevel best = kernels::CurrentSimdLevel();
  for (int level = static_cast<int>(best); level >= 0; --level)
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{3001, 16}, {3003, 10}, {2999, 24},
                            {3000, 32}, {3000, 40}, {100, 16}}) {
    kernels::SetSimdLevel(static_cast<kernels::SimdLevel>(level));
    INFO(kernels::SimdLevelName(static_cast<kernels::SimdLevel>(level)) << ": " << rows << " x " << cols);
    torch::manual_seed(rows + cols);
    Tensor x1 = torch::randn({rows, 37}).requires_grad_(true);
    Tensor w1 = torch::randn({cols, 37}).requires_grad_(true);
    Tensor x2 = x1.detach().to(torch::kFloat64).requires_grad_(true);
    Tensor w2 = w1.detach().to(torch::kFloat64).requires_grad_(true);
    Tensor y1 = Linear(x1, w1), y2 = torch::matmul(x2, w2.t());
    CHECK(torch::allclose(y1.to(torch::kFloat64), y2, 1e-4, 1e-4));
    Tensor g = torch::randn({rows, cols}, torch::kFloat64);
    y1.backward(g.to(torch::kFloat32));
    y2.backward(g);
    CHECK(torch::allclose(x1.grad().to(torch::kFloat64), x2.grad(), 1e-4, 1e-4));
    CHECK(torch::allclose(w1.grad().to(torch::kFloat64), w2.grad(), 1e-3, 1e-3));
  }
  kernels::SetSimdLevel(best);
  // float64 goes to BLAS and is exact to rounding.
  CompareUnary([](const Tensor& x) { return Linear(x, torch::ones({8, 5}, torch::kFloat64)); },
               [](const Tensor& x) { return torch::matmul(x, torch::ones({5, 8}, torch::kFloat64)); },
               {2000, 5}, 3);
}

TEST_CASE("add_self_loops appends each row's own source") {
  TestBlock b = RandomBlock(20, 50, 4, 3);
  auto [ip, ix] = AddSelfLoops(b.indptr, b.indices, b.num_dst);
  auto p = b.indptr.accessor<int64_t, 1>();
  auto q = ip.accessor<int64_t, 1>();
  auto s = b.indices.accessor<int64_t, 1>();
  auto t = ix.accessor<int64_t, 1>();
  for (int64_t d = 0; d < b.num_dst; ++d) {
    REQUIRE(q[d + 1] - q[d] == p[d + 1] - p[d] + 1);
    for (int64_t k = 0; k < p[d + 1] - p[d]; ++k) CHECK(t[q[d] + k] == s[p[d] + k]);
    CHECK(t[q[d + 1] - 1] == d);
  }
}

TEST_CASE("the operators work from TorchScript and in float32") {
  TestBlock b = RandomBlock(30, 70, 6, 4);
  torch::jit::Module m("M");
  m.define(R"TS(
def forward(self, indptr: Tensor, indices: Tensor, x: Tensor, num_dst: int) -> Tensor:
    return torch.ops.distgnn.csr_mean(indptr, indices, x, num_dst)
)TS",
           ScriptResolver());
  Tensor x = torch::randn({b.num_src, 8});
  Tensor y = m.forward({b.indptr, b.indices, x, b.num_dst}).toTensor();
  CHECK(torch::allclose(y, RefMean(b, x), 1e-5, 1e-6));
}

TEST_CASE("a malformed block raises an error naming the operator") {
  TestBlock b = RandomBlock(10, 20, 4, 9);
  Tensor x = torch::randn({20, 3});
  auto fails_with = [](auto f, const std::string& what) {
    try {
      f();
    } catch (const c10::Error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(what) != std::string::npos);
      return;
    }
    FAIL("no error");
  };
  fails_with([&] { CsrSum(b.indptr.slice(0, 0, 5), b.indices, x, 10); }, "distgnn::csr_sum: indptr has");
  Tensor bad = b.indices.clone();
  bad[0] = 20;
  fails_with([&] { CsrMean(b.indptr, bad, x, 10); }, "out of range");
  fails_with([&] { GcnAggregate(b.indptr, bad, x, 10); }, "out of range");
  Tensor dec = b.indptr.clone();
  dec[3] = dec[4] + 1;
  fails_with([&] { CsrSum(dec, b.indices, x, 10); }, "never decrease");
  fails_with([&] { CsrSum(b.indptr, b.indices.to(torch::kInt32), x, 10); }, "dtype");
  fails_with([&] { CsrSum(b.indptr, b.indices, x.to(torch::kInt64), 10); }, "float32 or float64");
  fails_with([&] { CsrSum(b.indptr, b.indices, x, 30); }, "exceeds");
}


TEST_CASE("dropout keeps 1 - p of the elements, scaled, and its gradient uses the same mask") {
  torch::manual_seed(3);
  Tensor x = torch::rand({1000, 1001}, torch::kFloat64) + 0.5;  // no zeros: a zero in y is a dropped element
  CHECK(Dropout(x, 0.0, true).data_ptr() == x.data_ptr());
  CHECK(Dropout(x, 0.5, false).data_ptr() == x.data_ptr());
  for (double p : {0.5, 0.1}) {
    INFO("p = " << p);
    Tensor leaf = x.clone().requires_grad_(true);
    Tensor y = Dropout(leaf, p, true);
    Tensor kept = y.ne(0);
    const double share = kept.to(torch::kFloat64).mean().item<double>();
    CHECK(std::abs(share - (1 - p)) < 0.003);  // ~10 standard deviations of 1M draws
    const double scale = 1 / (1 - std::round(p * 65536) / 65536);
    CHECK(torch::allclose(y.masked_select(kept), x.masked_select(kept) * scale, 1e-15, 0));
    y.backward(torch::full_like(y, 3.0));
    CHECK(torch::equal(leaf.grad(), kept.to(torch::kFloat64) * (3.0 * scale)));
  }
  Tensor zeros = Dropout(x, 1.0, true);
  CHECK(zeros.abs().sum().item<double>() == 0);
}

TEST_CASE("dropout's mask follows torch's generator and not the thread count") {
  Tensor x = torch::ones({300, 777});  // several parallel chunks
  const int threads = at::get_num_threads();
  torch::manual_seed(11);
  at::set_num_threads(1);
  Tensor a = Dropout(x, 0.3, true);
  Tensor b = Dropout(x, 0.3, true);  // the next draw: another mask
  torch::manual_seed(11);
  at::set_num_threads(2);
  Tensor c = Dropout(x, 0.3, true);
  at::set_num_threads(threads);
  CHECK(torch::equal(a, c));
  CHECK_FALSE(torch::equal(a, b));
}

}  // namespace dg
