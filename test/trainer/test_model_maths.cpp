// The built-in models' maths against dense float64 references written here
// (test/trainer/dense_gnn_reference.h): models written by `distgnn model export`,
// run through forward and forward_layer, on hand-made blocks (a destination without
// in-edges, a duplicate edge, a self-edge) and on a sampled 3-layer mini-batch.
// Outputs and the gradients of a fixed random loss with respect to the input and
// every parameter must agree. Parameters are randomised first (biases too), so
// every parameter matters; dropout is off (eval mode, or exported with 0).
#include "test/support/torch_catch.h"

#include "common/sampling/minibatch.h"
#include "roles/trainer/model/model_runner.h"
#include "test/support/test_support.h"
#include "test/trainer/dense_gnn_reference.h"
#include "test/trainer/random_graph.h"

namespace dg {
namespace {

Block MakeBlock(int64_t num_src, const std::vector<std::vector<int64_t>>& in_edges) {
  Block b;
  b.num_src = num_src;
  b.num_dst = static_cast<int64_t>(in_edges.size());
  b.indptr.push_back(0);
  for (const auto& srcs : in_edges) {
    b.indices.insert(b.indices.end(), srcs.begin(), srcs.end());
    b.indptr.push_back(static_cast<int64_t>(b.indices.size()));
  }
  return b;
}

// Two hand-made blocks: 7 -> 4 -> 2 nodes.
std::vector<Block> HandBlocks() {
  return {MakeBlock(7, {{1, 4, 4, 6}, {}, {2, 0, 5}, {6, 3}}),  // dst 1: no in-edge; 4 -> 0 twice; 2 -> 2
          MakeBlock(4, {{3, 1, 2}, {0}})};
}

torch::jit::Module Export(const test::TempDir& dir, const std::string& arch, int64_t in, int layers,
                          const std::string& dropout) {
  const std::string path = dir / (arch + "-" + std::to_string(layers) + "-" + dropout + ".pt");
  auto r = test::RunDistgnn({"model", "export", "--arch", arch, "--in-dim", std::to_string(in), "--hidden", "8",
                             "--heads", "2", "--classes", "3", "--layers", std::to_string(layers), "--dropout",
                             dropout, "--attn-dropout", dropout, "--seed", "4", "-o", path},
                            120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto m = LoadModel(path);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  return *m;
}

// Random parameter values (biases and attention vectors too); returns float64 copies.
test::Params Randomise(torch::jit::Module& m, uint64_t seed) {
  torch::manual_seed(seed);
  test::Params ref;
  for (const auto& np : m.named_parameters(/*recurse=*/false)) {
    torch::Tensor p = np.value;
    {
      torch::NoGradGuard ng;
      p.copy_(torch::rand(p.sizes(), torch::kFloat64).mul(1.2).sub(0.6));
    }
    p.requires_grad_(true);
    if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
    ref[np.name] = p.detach().to(torch::kFloat64).requires_grad_(true);
  }
  return ref;
}

// max |got - want| relative to the reference's scale.
double RelErr(const torch::Tensor& got, const torch::Tensor& want) {
  double scale = std::max(1.0, want.abs().max().item<double>());
  return (got.detach().to(torch::kFloat64) - want.detach()).abs().max().item<double>() / scale;
}

torch::IValue BlockIValue(const Block& b) { return BlockValue(b); }

// Compares model and reference on (x, blocks): forward, each forward_layer, and
// the gradients of sum(out * R) for x and every parameter.
void CompareWithReference(torch::jit::Module& m, const std::string& arch, const torch::Tensor& x32,
                          const std::vector<Block>& blocks) {
  const int layers = static_cast<int>(blocks.size());
  REQUIRE(m.attr("num_layers").toInt() == layers);
  test::Params ref = Randomise(m, 99);
  auto heads = [&](int l) { return l + 1 == layers ? 1 : 2; };

  // Reference forward, keeping every layer's input.
  torch::Tensor xr = x32.to(torch::kFloat64).requires_grad_(true);
  std::vector<torch::Tensor> ins{xr};
  for (int l = 0; l < layers; ++l)
    ins.push_back(test::LayerRef(arch, ref, l, l + 1 == layers, heads(l), ins.back(), blocks[l]));
  const torch::Tensor& want = ins.back();

  // Model forward (float32, as trained).
  MiniBatch mb;
  mb.blocks = blocks;
  torch::Tensor xm = x32.clone().requires_grad_(true);
  torch::Tensor got = m.forward({xm, BlocksValue(mb)}).toTensor();
  REQUIRE(got.sizes() == want.sizes());
  INFO(arch << ": forward, model\n" << got << "\nreference\n" << want);
  CHECK(RelErr(got, want) < 1e-5);

  // Each layer alone, from the reference's input to it.
  for (int l = 0; l < layers; ++l) {
    torch::NoGradGuard ng;
    torch::Tensor in = ins[l].detach().to(torch::kFloat32);
    torch::Tensor out = m.get_method("forward_layer")({int64_t{l}, in, BlockIValue(blocks[l])}).toTensor();
    INFO("forward_layer " << l);
    REQUIRE(out.sizes() == ins[l + 1].sizes());
    CHECK(RelErr(out, ins[l + 1]) < 1e-5);
  }

  // Gradients of a random linear loss.
  torch::manual_seed(7);
  torch::Tensor r = torch::randn(want.sizes(), torch::kFloat64);
  (want * r).sum().backward();
  (got * r.to(torch::kFloat32)).sum().backward();
  REQUIRE(xm.grad().defined());
  INFO("d/dx, model\n" << xm.grad() << "\nreference\n" << xr.grad());
  CHECK(RelErr(xm.grad(), xr.grad()) < 1e-5);
  int checked = 0;
  for (const auto& np : m.named_parameters(/*recurse=*/false)) {
    INFO("d/d" << np.name);
    REQUIRE(np.value.grad().defined());
    const torch::Tensor& want_grad = ref.at(np.name).grad();
    REQUIRE(want_grad.defined());
    // The loss depends on every parameter -- except possibly gat's attn_r: it
    // shifts all scores of one destination alike, which softmax ignores unless
    // leaky_relu bends some of them.
    if (np.name.rfind("attn_r", 0) != 0) CHECK(want_grad.abs().max().item<double>() > 0);
    CHECK(RelErr(np.value.grad(), want_grad) < 1e-5);
    ++checked;
  }
  CHECK(checked == static_cast<int>(ref.size()));
}

}  // namespace

TEST_CASE("exported sage, gcn and gat equal a dense float64 reference on hand-made blocks", "[model][maths]") {
  test::TempDir dir;
  torch::manual_seed(3);
  const torch::Tensor x = torch::rand({7, 5}).mul(2).sub(1);
  for (std::string arch : {"sage", "gcn", "gat"}) {
    SECTION(arch + ", eval mode") {
      auto m = Export(dir, arch, 5, 2, "0.5");
      m.eval();
      CompareWithReference(m, arch, x, HandBlocks());
    }
    SECTION(arch + ", training mode with dropout 0") {
      auto m = Export(dir, arch, 5, 2, "0");
      m.train();
      CompareWithReference(m, arch, x, HandBlocks());
    }
  }
}

TEST_CASE("exported sage, gcn and gat equal a dense float64 reference on a sampled 3-layer batch",
          "[model][maths]") {
  test::TempDir dir;
  auto g = test::RandomGraph(80, 6, 0, 5, 21);
  MiniBatchOptions opts;
  opts.fanouts = {4, 3, 5};
  opts.label_name = "";
  auto mb = SampleMiniBatch(g.get(), {0, 17, 33, 61}, opts, 1, 0, 0);
  REQUIRE(mb.ok());
  const torch::Tensor x = ArrayTensor(mb->features).clone();
  for (std::string arch : {"sage", "gcn", "gat"}) {
    SECTION(arch) {
      auto m = Export(dir, arch, 6, 3, "0.5");
      m.eval();
      CompareWithReference(m, arch, x, mb->blocks);
    }
  }
}

}  // namespace dg
