// The model contract's optional forward_agg (docs/models.md): on the same
// sampled batch, forward_agg(x_dst, mean of block 0's sources, blocks) equals
// forward(x, blocks) for the exported SAGE (1 to 3 layers) and the Python
// export; models that need every source row (gcn, gat) or drop input
// features per source (input_dropout) do not offer it; a forward_agg with
// another signature is an error naming the file. The typed rgcn and
// hetero-sage: forward_agg on per-relation means of the featured source types
// (garbage in the feature columns it must not read) equals forward on random
// typed blocks, with and without bases and learnt rows, 1 and 2 layers; it is
// not offered with input dropout or without a relation out of a featured type.
#include "test/support/torch_catch.h"

#include <cstdlib>
#include <random>
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

namespace dg {
namespace {

// A random typed block whose every relation r draws its sources from its
// source type src_types[r]: num_dst destinations (the first sources), up to
// 9 in-edges each, relations in random order within a row, multi-edges.
Block RandomTypedBlock(std::mt19937_64& rng, int64_t num_src, int64_t num_dst, const std::vector<int64_t>& ntype,
                       const std::vector<int>& src_types) {
  std::vector<std::vector<int64_t>> of_type(8);
  for (int64_t i = 0; i < num_src; ++i) of_type[ntype[i]].push_back(i);
  Block b;
  b.num_src = num_src;
  b.num_dst = num_dst;
  b.indptr.push_back(0);
  for (int64_t d = 0; d < num_dst; ++d) {
    const int64_t k = static_cast<int64_t>(rng() % 10);
    for (int64_t i = 0; i < k; ++i) {
      const int r = static_cast<int>(rng() % src_types.size());
      const auto& pool = of_type[src_types[r]];
      if (pool.empty()) continue;
      b.indices.push_back(pool[rng() % pool.size()]);
      b.etypes.push_back(r);
    }
    b.indptr.push_back(static_cast<int64_t>(b.indices.size()));
  }
  return b;
}

// What the servers give a typed forward_agg: relation by relation (the
// model's agg_relations), the mean of each destination's sources' rows
// (double, then float32), and x with the feature columns of every source
// that is not a destination overwritten by garbage (forward_agg must not read them
// for the aggregated relations; here every source type with features has
// only aggregated relations).
void TypedAggregatedInput(const MiniBatch& mb, const std::vector<int64_t>& rels, int64_t fmax, torch::Tensor* x_agg,
                          torch::Tensor* mean) {
  const Block& b = mb.blocks[0];
  torch::Tensor x = ArrayTensor(mb.features).to(torch::kFloat64);
  std::vector<torch::Tensor> rows;
  for (int64_t r : rels)
    for (int64_t d = 0; d < b.num_dst; ++d) {
      torch::Tensor m = torch::zeros({fmax}, torch::kFloat64);
      int64_t deg = 0;
      for (int64_t e = b.indptr[d]; e < b.indptr[d + 1]; ++e)
        if (b.etypes[e] == r) {
          m += x[b.indices[e]].narrow(0, 0, fmax);
          ++deg;
        }
      if (deg > 0) rows.push_back(m / static_cast<double>(deg));
    }
  *mean = rows.empty() ? torch::zeros({0, fmax}) : torch::stack(rows).to(torch::kFloat32);
  *x_agg = ArrayTensor(mb.features).clone();
  x_agg->narrow(0, b.num_dst, b.num_src - b.num_dst).narrow(1, 0, fmax).fill_(1e3);
}

}  // namespace

TEST_CASE("typed forward_agg (rgcn, hetero-sage) on the servers' per-relation means equals forward",
          "[model][forward_agg][typed]") {
  test::TempDir dir;
  // Types 0 and 2 have features (3 and 5 columns), type 1 none; relations 1
  // and 4 come from type 1 (their rows stay per source), the rest are aggregated.
  const std::vector<int64_t> dims = {3, 0, 5};
  const std::vector<int> src_types = {0, 1, 2, 0, 1};
  std::mt19937_64 rng(11);
  const int64_t n0 = 150, n1 = 40, n2 = 7;
  for (const char* arch : {"rgcn", "hetero-sage"})
    for (int bases : {0, 2})
      for (int64_t emb : {0, 4})
        for (int layers : {1, 2}) {
          if (std::string(arch) == "hetero-sage" && bases > 0) continue;
          ModelSpec s;
          REQUIRE(Parse(arch, &s.arch));
          s.hidden = 6;
          s.classes = 3;
          s.layers = layers;
          s.type_feature_dims = dims;
          s.embedding_dim = emb;
          s.num_relations = 5;
          s.relation_src_types = src_types;
          s.bases = bases;
          s.seed = 3;
          INFO(arch << " bases " << bases << " embedding " << emb << " layers " << layers);
          const std::string path = dir / "typed.pt";
          Status exported = ExportModel(s, path);
          INFO(exported.message());
          REQUIRE(exported.ok());
          auto has = ModelHasForwardAgg(path);
          REQUIRE(has.ok());
          REQUIRE(*has);
          auto rels = ModelAggRelations(path);
          REQUIRE(rels.ok());
          CHECK(*rels == std::vector<int64_t>{0, 2, 3});
          auto m = LoadModel(path);
          REQUIRE(m.ok());
          MiniBatch mb;
          mb.input_ntypes.resize(n0);
          for (auto& t : mb.input_ntypes) t = static_cast<int64_t>(rng() % 3);
          mb.blocks.push_back(RandomTypedBlock(rng, n0, layers == 1 ? n2 : n1, mb.input_ntypes, src_types));
          if (layers == 2) mb.blocks.push_back(RandomTypedBlock(rng, n1, n2, mb.input_ntypes, src_types));
          // x: a type's features in its first columns, zeros after them, then the embedding columns.
          torch::Tensor x = torch::zeros({n0, 5 + emb});
          for (int64_t i = 0; i < n0; ++i) {
            const int64_t f = dims[mb.input_ntypes[i]];
            if (f > 0) x[i].narrow(0, 0, f).normal_();
            if (emb > 0) x[i].narrow(0, 5, emb).normal_();
          }
          mb.features = TensorArray(x);
          torch::NoGradGuard ng;
          m->eval();
          torch::Tensor want = m->forward({ArrayTensor(mb.features), BlocksValue(mb)}).toTensor();
          torch::Tensor x_agg, mean;
          TypedAggregatedInput(mb, *rels, 5, &x_agg, &mean);
          torch::Tensor got = m->get_method("forward_agg")({x_agg, mean, BlocksValue(mb)}).toTensor();
          REQUIRE(got.sizes() == want.sizes());
          INFO("max difference " << (got - want).abs().max().item<float>());
          CHECK(torch::allclose(got, want, 1e-5, 1e-5));
        }
}

TEST_CASE("typed forward_agg is offered only where it is exact", "[model][forward_agg][typed]") {
  test::TempDir dir;
  ModelSpec s;
  s.arch = ModelArch::kRgcn;
  s.hidden = 6;
  s.classes = 3;
  s.type_feature_dims = {3, 0};
  s.num_relations = 2;
  s.relation_src_types = {1, 0};
  for (int k = 0; k < 3; ++k) {
    ModelSpec t = s;
    if (k == 0) t.input_dropout = 0.3;               // a mask per source row
    if (k == 1) t.relation_src_types = {1, 1};       // no relation out of a type with features
    if (k == 2) t.relation_src_types.clear();        // source types unknown
    INFO("case " << k);
    REQUIRE(ExportModel(t, dir / "t.pt").ok());
    auto has = ModelHasForwardAgg(dir / "t.pt");
    REQUIRE(has.ok());
    CHECK(!*has);
  }
}

}  // namespace dg
