// `distgnn bench kernels`: the dense products of a GNN's input layer (a tall
// x of node features times a narrow weight), on the skinny kernels at every
// SIMD level this CPU has and on BLAS (torch::matmul), 1 thread. The baseline,
// measured in the same run, is a memcpy of x: each product reads x once, so
// "x memcpys" near 1 means the kernel runs at memory speed; "vs torch" is the
// time over BLAS's (or torch's own dropout). Default shape:
// DGL's benchmark batch (86k input nodes, 100 features, hidden 16).
// Prints a table and, last, one JSON line.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_kernels.h"
#include "roles/trainer/graph_ops/graph_ops.h"
#include "roles/trainer/graph_ops/skinny_matmul.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;

struct Variant {
  std::string name, key;
  std::function<void()> run;
  std::vector<double> ms;
};

double Median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Runs every variant once per round, `reps` rounds (after one warm-up round),
// so a drift of the shared host hits all of them alike.
void Measure(int reps, std::vector<Variant>* variants) {
  for (int r = -1; r < reps; ++r) {
    for (Variant& v : *variants) {
      auto t0 = Clock::now();
      v.run();
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (r >= 0) v.ms.push_back(ms);
    }
  }
}

// One variant per SIMD level the CPU has; `run` gets the level already set.
// None when the kernels do not serve `out` columns (BLAS only, nothing to check).
void AddSkinnyVariants(const std::string& product, const std::string& key, int64_t out,
                       const std::function<void()>& run, std::vector<Variant>* variants) {
  const kernels::SimdLevel best = kernels::CurrentSimdLevel();
  for (int l = static_cast<int>(best); l >= 1; --l) {
    const auto level = static_cast<kernels::SimdLevel>(l);
    kernels::SetSimdLevel(level);
    const bool supported = kernels::SkinnyMatmulSupported(out);
    kernels::SetSimdLevel(best);
    if (!supported) continue;
    const std::string name = kernels::SimdLevelName(level);
    variants->push_back({product + "  " + name, key + "_" + name + "_ms", [level, run] {
                           kernels::SetSimdLevel(level);
                           run();
                         }, {}});
  }
}

}  // namespace

Status BenchKernels(int64_t rows, int64_t in, int64_t out, int reps) {
  if (rows <= 0 || in <= 0 || out <= 0 || reps <= 0)
    return Status::InvalidArgument("--rows, --in, --out and --reps must be > 0");
  at::set_num_threads(1);
  torch::manual_seed(1);
  torch::Tensor x = torch::randn({rows, in});
  torch::Tensor w = torch::randn({out, in});
  torch::Tensor g = torch::randn({rows, out});
  torch::Tensor wt = w.t().contiguous();
  torch::Tensor y = torch::empty({rows, out});
  torch::Tensor acc = torch::zeros({in, out});
  torch::Tensor copy = torch::empty_like(x);
  const size_t bytes = static_cast<size_t>(x.numel()) * sizeof(float);
  const kernels::SimdLevel best = kernels::CurrentSimdLevel();
  if (!kernels::SkinnyMatmulSupported(out))
    std::printf("(no skinny kernel for %ld output columns on this CPU: BLAS only)\n", static_cast<long>(out));

  std::vector<Variant> v;
  v.push_back({"memcpy of x", "memcpy_ms", [&] { std::memcpy(copy.data_ptr<float>(), x.data_ptr<float>(), bytes); }, {}});
  v.push_back({"x @ w^T  BLAS", "forward_blas_ms", [&] { y = torch::matmul(x, w.t()); }, {}});
  AddSkinnyVariants("x @ w^T", "forward", out, [&] {
    kernels::SkinnyMatmul(x.data_ptr<float>(), wt.data_ptr<float>(), in, out, y.data_ptr<float>(), 0, rows);
  }, &v);
  // BLAS computes the weight gradient as the operator did: g^T @ x, [out, in].
  v.push_back({"x^T @ g  BLAS", "weight_grad_blas_ms", [&] { acc = torch::matmul(g.t(), x); }, {}});
  AddSkinnyVariants("x^T @ g", "weight_grad", out, [&] {
    acc = torch::zeros({in, out});
    kernels::SkinnyMatmulTN(x.data_ptr<float>(), g.data_ptr<float>(), in, out, acc.data_ptr<float>(), 0, rows);
  }, &v);

  // Dropout (p = 0.5) of a [rows, out] activation: torch's bernoulli_ mask, a
  // mask from a uniform draw (the built-in models before), distgnn::dropout.
  torch::Tensor act = torch::randn({rows, out});
  v.push_back({"dropout  torch", "dropout_torch_ms", [&] { torch::dropout(act, 0.5, true); }, {}});
  v.push_back({"dropout  rand_like", "dropout_rand_like_ms",
               [&] { act * (torch::rand_like(act) >= 0.5).to(act.dtype()) * 2.0; }, {}});
  v.push_back({"dropout  distgnn", "dropout_distgnn_ms", [&] { Dropout(act, 0.5, true); }, {}});

  // Every kernel must agree with BLAS before its time means anything.
  torch::Tensor ref = torch::matmul(x, w.t()), ref_tn = torch::matmul(x.t(), g);
  for (Variant& var : v) {
    y.zero_();
    acc.zero_();
    var.run();
    const bool forward = var.key.rfind("forward", 0) == 0, grad = var.key.rfind("weight_grad", 0) == 0;
    // BLAS's weight gradient is g^T @ x, [out, in]; the kernels' is x^T @ g.
    const torch::Tensor tn = var.key == "weight_grad_blas_ms" ? acc.t() : acc;
    if ((forward && !torch::allclose(y, ref, 1e-3, 1e-3)) || (grad && !torch::allclose(tn, ref_tn, 1e-2, 1e-2)))
      return Status::Internal(var.name + " disagrees with the reference product");
  }
  Measure(reps, &v);
  kernels::SetSimdLevel(best);

  const double memcpy_ms = Median(v[0].ms);
  std::printf("distgnn bench kernels  x [%ld, %ld] float32 (%.1f MB), weight [%ld, %ld], 1 thread, median of %d\n\n",
              static_cast<long>(rows), static_cast<long>(in), bytes / 1e6, static_cast<long>(out),
              static_cast<long>(in), reps);
  std::printf("  %-24s %10s %12s %10s\n", "", "ms", "x memcpys", "vs torch");
  std::string json = "{";
  double blas_ms = memcpy_ms;
  for (const Variant& var : v) {
    const double ms = Median(var.ms);
    if (var.name.find("BLAS") != std::string::npos || var.name.find("torch") != std::string::npos) blas_ms = ms;
    std::printf("  %-24s %10.2f %12.2f %10.2f\n", var.name.c_str(), ms, ms / memcpy_ms, ms / blas_ms);
    json += std::string(json.size() > 1 ? ", " : "") + "\"" + var.key + "\": " + std::to_string(ms);
  }
  std::printf("\n%s}\n", json.c_str());
  return Status::OK();
}

}  // namespace dg
