// The control-variate estimator (roles/trainer/tasks/cv_task.h) against a
// dense in-memory reference on a small random graph with isolated nodes and
// multi-edges, for the built-in GCN and SAGE:
//  - exact mode equals the dense 2-layer computation (mean aggregation with
//    the model's cv_input/cv_layer maths written out here);
//  - the estimator with every neighbour sampled equals it whatever the history;
//  - the estimator with 2 neighbours equals it when the history holds the exact
//    activations (the control variate's zero-variance point), and differs from
//    it with a random history (the sample matters);
//  - with learnt rows as the whole input: the forward equals the dense one
//    whatever the sample (the rows' history is the table), the rows' gradient
//    equals the dense gradient with every neighbour sampled, and with 2 of
//    them its mean over many batches approaches it (unbiased).
#include "test/support/torch_catch.h"

#include <torch/torch.h>

#include "common/storage/neighbor_sampling.h"
#include "common/storage/node_embedding.h"
#include "common/sampling/in_memory_graph.h"
#include "roles/trainer/tasks/cv_task.h"
#include "roles/trainer/source/cv_store.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/model/model_runner.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

torch::Tensor T(const Array& a) {
  return torch::from_blob(a.data, a.shape, torch::kFloat32).clone();
}

// One forward pass of `seeds` in eval mode (no dropout, no gradients):
// estimator = the control-variate estimator with spec.fanouts and the current
// history (which it then updates, as a training step does), else exact over
// all in-neighbours; the propagated input is the store's spec.cv_input.
Result<Array> ControlVariateLogits(CvStore* store, const TrainSpec& spec, const std::vector<int64_t>& seeds,
                                   bool estimator) {
  CvModel m(spec, store, spec.cv_input);
  m.module = torch::jit::load(spec.model);
  m.layers = static_cast<int>(spec.fanouts.size()) + 1;
  torch::NoGradGuard ng;
  m.module.train(false);
  torch::Tensor labels;
  DG_ASSIGN_OR_RETURN(torch::Tensor logits, m.Forward(seeds, estimator, 0, 0, &labels));
  return TensorArray(logits);
}

}  // namespace

TEST_CASE("control-variate estimator = dense reference (exact, all neighbours, converged history)") {
  const int64_t N = 40, F = 5, H = 4, C = 3;
  Rng rng(11);
  std::vector<int64_t> src, dst;
  for (int i = 0; i < 160; ++i) {
    int64_t s = static_cast<int64_t>(rng.Uniform(N - 4)), d = static_cast<int64_t>(rng.Uniform(N - 4));
    src.push_back(s);
    dst.push_back(d);
    if (i % 9 == 0) {  // multi-edge
      src.push_back(s);
      dst.push_back(d);
    }
  }
  Array x = Array::Zeros(DType::kFloat32, {N, F});
  for (int64_t i = 0; i < N * F; ++i) x.as<float>()[i] = static_cast<float>(rng.Uniform(1000)) / 500.0f - 1.0f;
  Array y = Array::Zeros(DType::kInt64, {N});
  auto g = InMemoryGraph::FromEdges(N, src, dst, {{"features", x}, {"labels", y}});
  REQUIRE(g.ok());
  auto ax = MeanOverInNeighbours(**g, x);
  REQUIRE(ax.ok());

  // Dense reference: mean over in-neighbours (multi-edges counted), degrees.
  torch::Tensor A = torch::zeros({N, N});
  for (size_t e = 0; e < src.size(); ++e) A[dst[e]][src[e]] += 1;
  torch::Tensor deg = A.sum(1);
  torch::Tensor mean_op = A / deg.clamp_min(1).unsqueeze(1);
  torch::Tensor X = T(x);
  CHECK(torch::allclose(mean_op.matmul(X), T(*ax), 1e-5, 1e-5));

  std::vector<int64_t> seeds;
  for (int64_t v = 0; v < N; v += 3) seeds.push_back(v);
  seeds.push_back(N - 1);  // isolated
  seeds.push_back(0);      // duplicate
  const torch::Tensor S = torch::tensor(seeds);

  for (const std::string arch : {"gcn", "sage"}) {
    INFO(arch);
    test::TempDir dir;
    ModelSpec spec;
    REQUIRE(Parse(arch, &spec.arch));
    spec.in_dim = F;
    spec.hidden = H;
    spec.classes = C;
    spec.layers = 2;
    spec.dropout = 0;
    spec.seed = 4;
    REQUIRE(ExportModel(spec, dir / "m.pt").ok());
    torch::jit::Module m = torch::jit::load(dir / "m.pt");
    auto P = [&](const std::string& n) { return m.attr(n).toTensor().detach(); };
    torch::Tensor d1 = deg.unsqueeze(1);
    torch::Tensor h1, out;
    if (arch == "gcn") {
      h1 = torch::relu(((d1 * mean_op.matmul(X) + X) / (d1 + 1)).matmul(P("w_0").t()) + P("b_0"));
      out = ((d1 * mean_op.matmul(h1) + h1) / (d1 + 1)).matmul(P("w_1").t()) + P("b_1");
    } else {
      h1 = torch::relu(X.matmul(P("w_self_0").t()) + mean_op.matmul(X).matmul(P("w_neigh_0").t()) + P("b_0"));
      out = h1.matmul(P("w_self_1").t()) + mean_op.matmul(h1).matmul(P("w_neigh_1").t()) + P("b_1");
    }
    const torch::Tensor want = out.index_select(0, S);

    LocalCvStore store(g->get());
    store.AddArray("ax", *ax);
    REQUIRE(store.InitHistory("cv_h1", H).ok());
    TrainSpec o;
    o.algorithm = TrainAlgorithm::kControlVariate;
    o.model = dir / "m.pt";
    o.cv_input = "ax";
    o.fanouts = {2};
    std::vector<int64_t> all(N);
    for (int64_t v = 0; v < N; ++v) all[v] = v;
    auto set_history = [&](const torch::Tensor& rows) {
      Array a = Array::Zeros(DType::kFloat32, {N, H});
      std::memcpy(a.data, rows.contiguous().data_ptr<float>(), a.nbytes());
      REQUIRE(store.Push("cv_h1", all, a).ok());
    };

    auto exact = ControlVariateLogits(&store, o, seeds, false);
    INFO(exact.status().ToString());
    REQUIRE(exact.ok());
    CHECK(torch::allclose(T(*exact), want, 1e-4, 1e-4));

    // All neighbours sampled: the history cancels out, whatever it holds.
    set_history(torch::randn({N, H}));
    o.fanouts = {1000};
    auto full = ControlVariateLogits(&store, o, seeds, true);
    REQUIRE(full.ok());
    CHECK(torch::allclose(T(*full), want, 1e-4, 1e-4));

    // 2 neighbours, history = the exact activations: every sampled difference is 0.
    o.fanouts = {2};
    set_history(h1);
    auto converged = ControlVariateLogits(&store, o, seeds, true);
    REQUIRE(converged.ok());
    CHECK(torch::allclose(T(*converged), want, 1e-4, 1e-4));

    // 2 neighbours, random history: an estimate, not the exact value.
    set_history(torch::randn({N, H}) * 3);
    auto noisy = ControlVariateLogits(&store, o, seeds, true);
    REQUIRE(noisy.ok());
    CHECK(!torch::allclose(T(*noisy), want, 1e-3, 1e-3));
  }
}

TEST_CASE("control variate with learnt rows: exact forward, the dense gradient with every neighbour, unbiased "
          "with 2") {
  const int64_t N = 30, D = 4, H = 5, C = 3;
  Rng rng(5);
  std::vector<int64_t> src, dst;
  for (int i = 0; i < 150; ++i) {
    src.push_back(static_cast<int64_t>(rng.Uniform(N - 2)));
    dst.push_back(static_cast<int64_t>(rng.Uniform(N - 2)));
  }
  Array y = Array::Zeros(DType::kInt64, {N});
  for (int64_t v = 0; v < N; ++v) y.as<int64_t>()[v] = v % C;
  auto g = InMemoryGraph::FromEdges(N, src, dst, {{"labels", y}});
  REQUIRE(g.ok());
  NodeEmbeddingOptions eo;
  eo.dim = D;
  eo.init_scale = 1;
  eo.seed = 3;
  auto table = LocalNodeEmbedding::Create(N, eo);
  REQUIRE(table.ok());
  test::TempDir dir;
  ModelSpec ms;
  ms.arch = ModelArch::kGcn;
  ms.in_dim = D;
  ms.hidden = H;
  ms.classes = C;
  ms.layers = 2;
  ms.dropout = 0;
  ms.seed = 4;
  REQUIRE(ExportModel(ms, dir / "m.pt").ok());

  std::vector<int64_t> seeds, all(N);
  for (int64_t v = 0; v < N; ++v) all[v] = v;
  for (int64_t v = 0; v < N; v += 2) seeds.push_back(v);
  seeds.push_back(N - 1);  // isolated

  // Dense reference: loss of the seeds and its gradient for every row.
  torch::jit::Module m = torch::jit::load(dir / "m.pt");
  torch::Tensor A = torch::zeros({N, N});
  for (size_t e = 0; e < src.size(); ++e) A[dst[e]][src[e]] += 1;
  const torch::Tensor d1 = A.sum(1).unsqueeze(1);
  const torch::Tensor mean_op = A / d1.clamp_min(1);
  auto rows = (*table)->Rows(all);
  REQUIRE(rows.ok());
  torch::Tensor E = T(*rows).set_requires_grad(true);
  auto P = [&](const std::string& n) { return m.attr(n).toTensor().detach(); };
  const torch::Tensor h1 = torch::relu(((d1 * mean_op.matmul(E) + E) / (d1 + 1)).matmul(P("w_0").t()) + P("b_0"));
  const torch::Tensor out = ((d1 * mean_op.matmul(h1) + h1) / (d1 + 1)).matmul(P("w_1").t()) + P("b_1");
  const torch::Tensor S = torch::tensor(seeds);
  const torch::Tensor want = out.index_select(0, S);
  torch::nn::functional::cross_entropy(want, torch::from_blob(y.data, {N}, torch::kInt64).index_select(0, S))
      .backward();
  const torch::Tensor want_grad = E.grad().clone();

  LocalCvStore store(g->get());
  REQUIRE(store.InitHistory("cv_h1", H).ok());
  TrainSpec o;
  o.algorithm = TrainAlgorithm::kControlVariate;
  o.embedding.dim = D;
  o.embedding.features = false;
  CvModel cv(o, &store, "");
  cv.module = m;
  cv.layers = 2;
  cv.embedding = table->get();
  cv.module.train(true);
  // The rows' gradient of one training batch (its first hop sampling `fanout`
  // neighbours, layer 1 every one), as a dense [N, D].
  auto batch_grad = [&](int fanout, int64_t epoch, torch::Tensor* logits) {
    MiniBatchOptions mo;
    mo.fanouts = {fanout, 1000};
    mo.feature_name = "";
    auto mb = SampleMiniBatch(g->get(), seeds, mo, 9, epoch, 0);
    REQUIRE(mb.ok());
    torch::Tensor labels, leaf;
    auto got = cv.ForwardBatch(*mb, true, &labels, nullptr, &leaf);
    INFO(got.status().ToString());
    REQUIRE(got.ok());
    *logits = got->detach();
    torch::nn::functional::cross_entropy(*got, labels).backward();
    torch::Tensor dense = torch::zeros({N, D});
    dense.index_add_(0, torch::tensor(mb->input_nodes), leaf.grad());
    return dense;
  };
  torch::Tensor logits;
  const torch::Tensor full = batch_grad(1000, 0, &logits);
  CHECK(torch::allclose(logits, want.detach(), 1e-4, 1e-4));
  CHECK(torch::allclose(full, want_grad, 1e-5, 1e-4));

  torch::Tensor mean = torch::zeros({N, D});
  const int kBatches = 400;
  double one_err = 0;
  for (int e = 0; e < kBatches; ++e) {
    const torch::Tensor gr = batch_grad(2, e, &logits);
    CHECK(torch::allclose(logits, want.detach(), 1e-4, 1e-4));  // the value is exact whatever the sample
    if (e == 0) one_err = (gr - want_grad).norm().item<double>();
    mean += gr / kBatches;
  }
  const double mean_err = (mean - want_grad).norm().item<double>();
  const double scale = want_grad.norm().item<double>();
  INFO("one batch: |g - g*| = " << one_err << ", mean of " << kBatches << ": " << mean_err << ", |g*| = " << scale);
  CHECK(one_err > 0.05 * scale);   // 2 neighbours are a sample
  CHECK(mean_err < 0.1 * one_err);  // and their mean converges to the dense gradient
}

}  // namespace dg
