// Model export, the model contract check, and the Python export path.
#include "test/support/torch_catch.h"

#include <cstdlib>
#include <fstream>

#include "common/sampling/in_memory_graph.h"
#include "common/sampling/minibatch.h"
#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/model/model_runner.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"
#include "test/trainer/random_graph.h"

namespace dg {
namespace {

std::string SaveModule(const std::string& path, const std::string& src) {
  torch::jit::Module m("Custom");
  m.register_parameter("w", torch::ones({2, 2}), false);
  m.define(src);
  m.save(path);
  return path;
}

}  // namespace

TEST_CASE("exported sage/gcn/gat fit the contract and forward_layer chains to forward", "[model]") {
  test::TempDir dir;
  auto g = test::RandomGraph(200, 12, 0, 6, 3);
  MiniBatchOptions opts;
  opts.fanouts = {4, 6};
  opts.label_name = "";
  auto mb = SampleMiniBatch(g.get(), {0, 5, 9, 33, 120}, opts, 1, 0, 0);
  REQUIRE(mb.ok());
  for (std::string arch : {"sage", "gcn", "gat"}) {
    INFO(arch);
    ModelSpec spec;
    REQUIRE(Parse(arch, &spec.arch));
    spec.in_dim = 12;
    spec.hidden = 16;
    spec.heads = 4;
    spec.classes = 5;
    spec.layers = 2;
    const std::string path = dir / (arch + ".pt");
    REQUIRE(ExportModel(spec, path).ok());
    auto m = LoadModel(path);
    REQUIRE(m.ok());
    m->eval();
    torch::NoGradGuard ng;
    torch::Tensor out = m->forward({ArrayTensor(mb->features), BlocksValue(*mb)}).toTensor();
    CHECK(out.size(0) == 5);
    CHECK(out.size(1) == 5);
    CHECK(out.isfinite().all().item<bool>());
    CHECK(m->attr("num_layers").toInt() == 2);
    torch::Tensor h = ArrayTensor(mb->features);
    for (int l = 0; l < 2; ++l)
      h = m->get_method("forward_layer")({int64_t{l}, h, BlockValue(mb->blocks[l])}).toTensor();
    CHECK(torch::allclose(h, out));
    // Exporting twice with the same seed gives the same parameters.
    REQUIRE(ExportModel(spec, dir / "again.pt").ok());
    auto m2 = torch::jit::load(dir / "again.pt");
    auto p1 = m->parameters(), p2 = m2.parameters();
    auto i2 = p2.begin();
    for (const auto& p : p1) CHECK(torch::equal(p, *i2++));
  }
}

TEST_CASE("model export rejects bad specs") {
  ModelSpec spec;
  spec.in_dim = 4;
  spec.classes = 3;
  auto unknown = test::RunDistgnn({"model", "export", "--arch", "transformer", "--in-dim", "4", "--classes", "3",
                                   "--out", "/dev/null"});
  CHECK(unknown.exit_code != 0);
  CHECK(unknown.output.find("--arch: unknown architecture 'transformer' (expected sage, gcn, gat, mlp, rgcn or "
                            "hetero-sage)") != std::string::npos);
  spec.arch = ModelArch::kGat;
  spec.hidden = 10;
  spec.heads = 4;
  CHECK(ValidateModelSpec(spec).message().find("not divisible") != std::string::npos);
}

TEST_CASE("the contract check says exactly what is wrong") {
  test::TempDir dir;
  auto missing = LoadModel(dir / "nope.pt");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("not found") != std::string::npos);

  std::ofstream(dir / "junk.pt") << "this is not a zip archive";
  auto junk = LoadModel(dir / "junk.pt");
  REQUIRE_FALSE(junk.ok());
  CHECK(junk.status().message().find("not a TorchScript archive") != std::string::npos);

  auto one_arg = LoadModel(SaveModule(dir / "a.pt", "def forward(self, x: Tensor) -> Tensor:\n    return x\n"));
  REQUIRE_FALSE(one_arg.ok());
  CHECK(one_arg.status().message().find("takes 1 arguments, expected 2") != std::string::npos);

  auto wrong_blocks = LoadModel(SaveModule(
      dir / "b.pt", "def forward(self, x: Tensor, blocks: List[Tensor]) -> Tensor:\n    return x\n"));
  REQUIRE_FALSE(wrong_blocks.ok());
  CHECK(wrong_blocks.status().message().find(
            "argument 2 'blocks' has type List[Tensor], expected List[Tuple[Tensor, Tensor, int]]") !=
        std::string::npos);

  auto wrong_ret = LoadModel(SaveModule(
      dir / "c.pt",
      "def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> int:\n    return 1\n"));
  REQUIRE_FALSE(wrong_ret.ok());
  CHECK(wrong_ret.status().message().find("must return one Tensor") != std::string::npos);

  auto good = LoadModel(SaveModule(
      dir / "d.pt",
      "def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:\n    return x\n"));
  CHECK(good.ok());
}

TEST_CASE("a SAGE model exported from Python with torch.jit.script loads and runs") {
  std::string python;
  for (std::string p : {"python3", "/usr/bin/python3"}) {
    if (std::system((p + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0) {
      python = p;
      break;
    }
  }
  if (python.empty()) DG_SKIP_OR_FAIL("python3 with torch (python3-torch) is not installed");
  test::TempDir dir;
  const std::string script = test::SourceDir() + "/scripts/export_model.py";
  std::string cmd = python + " " + script + " --in-dim 12 --hidden 16 --classes 5 --layers 2 -o " +
                    (dir / "py.pt") + " > " + (dir / "log.txt") + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "log.txt");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  INFO(text);
  REQUIRE(rc == 0);
  auto m = LoadModel(dir / "py.pt");
  REQUIRE(m.ok());
  auto g = test::RandomGraph(100, 12, 0, 6, 3);
  MiniBatchOptions opts;
  opts.fanouts = {3, 3};
  opts.label_name = "";
  auto mb = SampleMiniBatch(g.get(), {1, 2, 3}, opts, 1, 0, 0);
  REQUIRE(mb.ok());
  m->eval();
  torch::Tensor out = m->forward({ArrayTensor(mb->features), BlocksValue(*mb)}).toTensor();
  CHECK(out.size(0) == 3);
  CHECK(out.size(1) == 5);
}

}  // namespace dg
