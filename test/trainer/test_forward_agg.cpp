// The model contract's optional forward_agg (docs/models.md): on the same
// sampled batch, forward_agg(x_dst, mean of block 0's sources, blocks) equals
// forward(x, blocks) for the exported SAGE (1 to 3 layers) and the Python
// export; models that need every source row (gcn, gat) or drop input
// features per source (input_dropout) do not offer it; a forward_agg with
// another signature is an error naming the file.
#include "test/support/torch_catch.h"

#include <cstdlib>
#include <fstream>

#include "common/sampling/minibatch.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/model/model_facts.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"
#include "test/trainer/random_graph.h"

namespace dg {
namespace {

// Block 0's destination rows and the mean of each one's sampled sources (double).
void AggregatedInput(const MiniBatch& mb, torch::Tensor* x_dst, torch::Tensor* mean) {
  const Block& b = mb.blocks[0];
  torch::Tensor x = ArrayTensor(mb.features).to(torch::kFloat64);
  *x_dst = x.narrow(0, 0, b.num_dst).to(torch::kFloat32);
  torch::Tensor m = torch::zeros({b.num_dst, x.size(1)}, torch::kFloat64);
  for (int64_t i = 0; i < b.num_dst; ++i) {
    const int64_t deg = b.indptr[i + 1] - b.indptr[i];
    for (int64_t e = b.indptr[i]; e < b.indptr[i + 1]; ++e) m[i] += x[b.indices[e]];
    if (deg > 0) m[i] /= static_cast<double>(deg);
  }
  *mean = m.to(torch::kFloat32);
}

void CheckForwardAgg(torch::jit::Module& m, const MiniBatch& mb) {
  torch::NoGradGuard ng;
  m.eval();
  torch::Tensor want = m.forward({ArrayTensor(mb.features), BlocksValue(mb)}).toTensor();
  torch::Tensor x_dst, mean;
  AggregatedInput(mb, &x_dst, &mean);
  torch::Tensor got = m.get_method("forward_agg")({x_dst, mean, BlocksValue(mb)}).toTensor();
  REQUIRE(got.sizes() == want.sizes());
  INFO("max difference " << (got - want).abs().max().item<float>());
  CHECK(torch::allclose(got, want, 1e-4, 1e-5));
}

}  // namespace

TEST_CASE("exported SAGE: forward_agg on the pre-aggregated input equals forward", "[model][forward_agg]") {
  test::TempDir dir;
  auto g = test::RandomGraph(300, 12, 0, 6, 3);
  for (int layers : {1, 2, 3}) {
    MiniBatchOptions opts;
    opts.fanouts = std::vector<int>(layers, 5);
    opts.replace = true;  // duplicate sources
    opts.label_name = "";
    auto mb = SampleMiniBatch(g.get(), {0, 5, 9, 33, 120, 299}, opts, 1, 0, 0);
    REQUIRE(mb.ok());
    ModelSpec spec;
    spec.in_dim = 12;
    spec.hidden = layers == 2 ? 8 : 20;  // projection before (8 < 12) and after (20 > 12) the mean
    spec.classes = 5;
    spec.layers = layers;
    const std::string path = dir / ("sage" + std::to_string(layers) + ".pt");
    REQUIRE(ExportModel(spec, path).ok());
    auto has = ModelHasForwardAgg(path);
    REQUIRE(has.ok());
    REQUIRE(*has);
    auto m = LoadModel(path);
    REQUIRE(m.ok());
    INFO(layers << " layers");
    CheckForwardAgg(*m, *mb);
  }
}

TEST_CASE("forward_agg is offered only where it is exact, and checked", "[model][forward_agg]") {
  test::TempDir dir;
  for (std::string arch : {"gcn", "gat", "sage"}) {
    ModelSpec spec;
    REQUIRE(Parse(arch, &spec.arch));
    spec.in_dim = 12;
    spec.hidden = 16;
    spec.heads = 4;
    spec.classes = 5;
    spec.input_dropout = arch == "sage" ? 0.2 : 0.0;
    const std::string path = dir / (arch + ".pt");
    REQUIRE(ExportModel(spec, path).ok());
    auto has = ModelHasForwardAgg(path);
    REQUIRE(has.ok());
    CHECK(!*has);
  }
  torch::jit::Module bad("Custom");
  bad.define(R"(
def forward(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:
    return x
def forward_agg(self, x: Tensor, blocks: List[Tuple[Tensor, Tensor, int]]) -> Tensor:
    return x
)");
  bad.save(dir / "bad.pt");
  auto r = ModelHasForwardAgg(dir / "bad.pt");
  REQUIRE(!r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("bad.pt: forward_agg does not fit the model contract"));
}

TEST_CASE("the Python SAGE export's forward_agg equals its forward", "[model][forward_agg]") {
  std::string python;
  for (std::string p : {"python3", "/usr/bin/python3"}) {
    if (std::system((p + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0) {
      python = p;
      break;
    }
  }
  if (python.empty()) DG_SKIP_OR_FAIL("python3 with torch (python3-torch) is not installed");
  test::TempDir dir;
  const std::string cmd = python + " " + test::SourceDir() + "/scripts/export_model.py --in-dim 12 --hidden 16 " +
                          "--classes 5 --layers 2 -o " + (dir / "py.pt") + " > " + (dir / "log.txt") + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto has = ModelHasForwardAgg(dir / "py.pt");
  REQUIRE(has.ok());
  REQUIRE(*has);
  auto m = LoadModel(dir / "py.pt");
  REQUIRE(m.ok());
  auto g = test::RandomGraph(100, 12, 0, 6, 3);
  MiniBatchOptions opts;
  opts.fanouts = {3, 4};
  opts.replace = true;
  opts.label_name = "";
  auto mb = SampleMiniBatch(g.get(), {1, 2, 3, 50}, opts, 1, 0, 0);
  REQUIRE(mb.ok());
  CheckForwardAgg(*m, *mb);
}

}  // namespace dg
