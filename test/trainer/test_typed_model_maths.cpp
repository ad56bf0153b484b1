// The typed built-in models (rgcn with and without bases, hetero-sage) against
// a dense float64 reference written here from the definition in
// roles/trainer/model/model_export.h: per node type an input row (features through
// the type's input weight, the node embedding columns for a featureless type,
// or the type's learnt vector), then per layer
//   h_i' = W_self h_i + b + sum_r mean_{j in N_r(i)} W_r h_j   (relu between layers)
// with one dense adjacency matrix per relation (no index or segment ops).
// Blocks: hand-made ones with fewer sources than relations x destinations, a
// relation absent from a block, a destination without in-edges of some
// relation, duplicate edges and edge types unsorted within a row; and a
// random larger one; with relation rows (every type featureless) layer 0 reads
// each relation's block of the node's row, mixed by its coefficients with
// bases. Outputs, forward_layer and the gradients of a random linear loss
// with respect to the input rows and every parameter must agree.
#include "test/support/torch_catch.h"

#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/sampling/minibatch.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/model/model_runner.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

using Params = std::map<std::string, torch::Tensor>;

struct Edge {
  int64_t src;
  int64_t etype;
};

Block TypedBlock(int64_t num_src, const std::vector<std::vector<Edge>>& in_edges) {
  Block b;
  b.num_src = num_src;
  b.num_dst = static_cast<int64_t>(in_edges.size());
  b.indptr.push_back(0);
  for (const auto& row : in_edges) {
    for (const Edge& e : row) {
      b.indices.push_back(e.src);
      b.etypes.push_back(e.etype);
    }
    b.indptr.push_back(static_cast<int64_t>(b.indices.size()));
  }
  return b;
}

// Relation r's dense mean matrix [num_dst, num_src] (a row without edges of r is 0).
torch::Tensor RelationMean(const Block& b, int64_t r) {
  torch::Tensor a = torch::zeros({b.num_dst, b.num_src}, torch::kFloat64);
  auto acc = a.accessor<double, 2>();
  for (int64_t i = 0; i < b.num_dst; ++i)
    for (int64_t e = b.indptr[i]; e < b.indptr[i + 1]; ++e)
      if (b.etypes[e] == r) acc[i][b.indices[e]] += 1.0;
  return a / a.sum(1, /*keepdim=*/true).clamp_min(1.0);
}

torch::Tensor InputRef(const Params& p, const ModelSpec& s, const torch::Tensor& x, const std::vector<int64_t>& ntype) {
  if (s.featureless_input == FeaturelessInput::kRelationRows) return x;  // the rows are layer 0's input
  int64_t fmax = 0;
  for (int64_t f : s.type_feature_dims) fmax = std::max(fmax, f);
  std::vector<torch::Tensor> rows;
  for (size_t i = 0; i < ntype.size(); ++i) {
    const int64_t t = ntype[i], f = s.type_feature_dims[t];
    const std::string T = std::to_string(t);
    torch::Tensor row = x[i];
    if (f > 0)
      rows.push_back(torch::matmul(p.at("w_in_" + T), row.narrow(0, 0, f)) + p.at("b_in_" + T));
    else if (s.embedding_dim > 0)
      rows.push_back(torch::matmul(p.at("w_in_" + T), row.narrow(0, fmax, s.embedding_dim)) + p.at("b_in_" + T));
    else
      rows.push_back(p.at("b_in_" + T));
  }
  return torch::stack(rows);
}

// Relation rows' layer 0: the self block, plus per relation the mean of the
// sources' blocks mixed by the relation's coefficients (bases) or its own block.
torch::Tensor RelationRowsLayer0Ref(const Params& p, const ModelSpec& s, const torch::Tensor& h, const Block& b) {
  const int64_t k = RelationRowBlocks(s), w = h.size(1) / (k + 1);
  torch::Tensor out = h.narrow(0, 0, b.num_dst).narrow(1, k * w, w) + p.at("b_0");
  for (int64_t r = 0; r < s.num_relations; ++r) {
    torch::Tensor rows = torch::zeros({h.size(0), w}, torch::kFloat64);
    for (int64_t j = 0; j < k; ++j) {
      torch::Tensor a = p.count("coef_0") ? p.at("coef_0")[r][j] : torch::tensor(r == j ? 1.0 : 0.0, torch::kFloat64);
      rows = rows + a * h.narrow(1, j * w, w);
    }
    out = out + torch::matmul(RelationMean(b, r), rows);
  }
  return s.layers == 1 ? out : torch::relu(out);
}

torch::Tensor LayerRef(const Params& p, const ModelSpec& s, int l, const torch::Tensor& h, const Block& b) {
  if (l == 0 && s.featureless_input == FeaturelessInput::kRelationRows) return RelationRowsLayer0Ref(p, s, h, b);
  const std::string L = std::to_string(l);
  torch::Tensor out = torch::matmul(h.narrow(0, 0, b.num_dst), p.at("w_self_" + L).t()) + p.at("b_" + L);
  const int64_t o = p.at("w_self_" + L).size(0), in = h.size(1);
  torch::Tensor w = p.count("w_rel_" + L) ? p.at("w_rel_" + L)
                                          : torch::matmul(p.at("coef_" + L), p.at("basis_" + L)).view({-1, o, in});
  for (int64_t r = 0; r < s.num_relations; ++r)
    out = out + torch::matmul(torch::matmul(RelationMean(b, r), h), w[r].t());
  return l + 1 == s.layers ? out : torch::relu(out);
}

double RelErr(const torch::Tensor& got, const torch::Tensor& want) {
  const double scale = std::max(1.0, want.abs().max().item<double>());
  return (got.detach().to(torch::kFloat64) - want.detach()).abs().max().item<double>() / scale;
}

void Compare(const ModelSpec& spec, const std::vector<Block>& blocks, const std::vector<int64_t>& ntype) {
  test::TempDir dir;
  const std::string path = dir / "typed.pt";
  Status st = ExportModel(spec, path);
  INFO(st.ToString());
  REQUIRE(st.ok());
  auto loaded = LoadModel(path);
  REQUIRE(loaded.ok());
  torch::jit::Module m = *loaded;
  m.eval();
  torch::manual_seed(11);
  Params ref;
  for (const auto& np : m.named_parameters(/*recurse=*/false)) {
    {
      torch::NoGradGuard ng;
      np.value.copy_(torch::rand(np.value.sizes(), torch::kFloat64).mul(1.2).sub(0.6));
    }
    np.value.requires_grad_(true);
    ref[np.name] = np.value.detach().to(torch::kFloat64).requires_grad_(true);
  }
  int64_t fmax = 0;
  for (int64_t f : spec.type_feature_dims) fmax = std::max(fmax, f);
  const int64_t n = blocks[0].num_src;
  torch::Tensor x32 = torch::randn({n, fmax + spec.embedding_dim});
  for (int64_t i = 0; i < n; ++i) {  // padded columns are zero, as Gather and PullTypedNodeRows give them
    const int64_t f = spec.type_feature_dims[ntype[i]];
    if (f < fmax) x32[i].narrow(0, f, fmax - f).zero_();
  }

  torch::Tensor xr = x32.to(torch::kFloat64).requires_grad_(true);
  std::vector<torch::Tensor> hs{InputRef(ref, spec, xr, ntype)};
  for (int l = 0; l < spec.layers; ++l) hs.push_back(LayerRef(ref, spec, l, hs.back(), blocks[l]));
  const torch::Tensor& want = hs.back();

  MiniBatch mb;
  mb.blocks = blocks;
  mb.input_ntypes = ntype;
  torch::Tensor xm = x32.clone().requires_grad_(true);
  torch::Tensor got = m.forward({xm, BlocksValue(mb)}).toTensor();
  REQUIRE(got.sizes() == want.sizes());
  INFO(Name(spec.arch) << " bases " << spec.bases << " embedding " << spec.embedding_dim << ": model\n"
                 << got << "\nreference\n" << want);
  CHECK(RelErr(got, want) < 1e-5);
  for (int l = 0; l < spec.layers; ++l) {
    torch::NoGradGuard ng;
    torch::Tensor out = m.get_method("forward_layer")({int64_t{l}, hs[l].detach().to(torch::kFloat32),
                                                       TypedBlockValue(blocks[l], ntype)})
                            .toTensor();
    INFO("forward_layer " << l);
    REQUIRE(out.sizes() == hs[l + 1].sizes());
    CHECK(RelErr(out, hs[l + 1]) < 1e-5);
  }
  torch::manual_seed(7);
  torch::Tensor r = torch::randn(want.sizes(), torch::kFloat64);
  (want * r).sum().backward();
  (got * r.to(torch::kFloat32)).sum().backward();
  INFO("d/dx");
  CHECK(RelErr(xm.grad(), xr.grad()) < 1e-5);
  int checked = 0;
  for (const auto& np : m.named_parameters(/*recurse=*/false)) {
    INFO("d/d" << np.name);
    REQUIRE(np.value.grad().defined());
    CHECK(ref.at(np.name).grad().abs().max().item<double>() > 0);
    CHECK(RelErr(np.value.grad(), ref.at(np.name).grad()) < 1e-5);
    ++checked;
  }
  CHECK(checked == static_cast<int>(ref.size()));
}

std::vector<ModelSpec> Specs(int num_relations) {
  std::vector<ModelSpec> specs;
  for (const char* arch : {"rgcn", "hetero-sage"})
    for (int bases : {0, 2})
      for (int64_t emb : {0, 2}) {
        if (std::string(arch) == "hetero-sage" && bases > 0) continue;
        ModelSpec s;
        REQUIRE(Parse(arch, &s.arch));
        s.hidden = 6;
        s.classes = 3;
        s.layers = 2;
        s.dropout = 0;
        s.type_feature_dims = {3, 0, 5};
        s.embedding_dim = emb;
        s.num_relations = num_relations;
        s.bases = bases;
        s.seed = 4;
        specs.push_back(s);
        if (emb == 0) continue;
        // every type featureless, relation rows (R-GCN's one-hot input)
        s.type_feature_dims = {0, 0, 0};
        s.featureless_input = FeaturelessInput::kRelationRows;
        s.embedding_dim = RelationRowsWidth(s);
        specs.push_back(s);
      }
  return specs;
}

}  // namespace

TEST_CASE("exported rgcn and hetero-sage equal a dense float64 reference on hand-made typed blocks",
          "[model][maths][typed]") {
  // 9 -> 4 -> 2 nodes, 4 relations: 4 x 4 and 4 x 2 rows exceed the 9 and 4 sources.
  const std::vector<int64_t> ntype = {0, 1, 2, 0, 1, 1, 2, 0, 2};
  const std::vector<Block> blocks = {
      TypedBlock(9, {{{4, 2}, {1, 0}, {4, 2}, {6, 1}, {8, 0}},  // types unsorted in the row, 4 -> 0 twice
                     {},                                        // no in-edge
                     {{2, 3}, {0, 0}, {5, 3}},
                     {{3, 1}, {7, 1}}}),
      TypedBlock(4, {{{3, 0}, {1, 2}, {2, 0}}, {{0, 1}}}),  // relation 3 absent
  };
  for (const ModelSpec& s : Specs(4)) Compare(s, blocks, ntype);
}

TEST_CASE("exported rgcn equals a dense float64 reference on a random typed block pair", "[model][maths][typed]") {
  std::mt19937_64 rng(5);
  const int64_t n0 = 120, n1 = 30, n2 = 6;
  std::vector<int64_t> ntype(n0);
  for (auto& t : ntype) t = static_cast<int64_t>(rng() % 3);
  auto random_block = [&](int64_t num_src, int64_t num_dst) {
    std::vector<std::vector<Edge>> rows(num_dst);
    for (auto& row : rows) {
      const int64_t k = static_cast<int64_t>(rng() % 12);
      for (int64_t i = 0; i < k; ++i)
        row.push_back({static_cast<int64_t>(rng() % num_src), static_cast<int64_t>(rng() % 5)});
    }
    return TypedBlock(num_src, rows);
  };
  const std::vector<Block> blocks = {random_block(n0, n1), random_block(n1, n2)};
  for (const ModelSpec& s : Specs(5))
    if (s.arch == ModelArch::kRgcn) Compare(s, blocks, ntype);
}

}  // namespace dg
