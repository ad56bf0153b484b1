// Link prediction on one process: the ranking metrics against
// hand-computed values, `train-local --task link` on bundled Cora (85/5/10
// split, SAGE) to test ROC-AUC >= 0.90, exact resume, a model with its own
// score(h_src, h_dst), a featureless graph with a DistEmbedding, `model export
// --task link`, and one clear error per bad flag.
#include "test/support/torch_catch.h"

#include <torch/script.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "roles/trainer/tasks/link_metrics.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/model/model_facts.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

double Field(const std::string& line, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(line, m, std::regex("\"" + key + "\": ([-0-9.e]+)"))) return std::nan("");
  return std::stod(m[1]);
}

void Export(const std::vector<std::string>& extra, const std::string& out) {
  std::vector<std::string> a{"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "128",
                             "--layers", "2", "--task", "link", "-o", out};
  a.insert(a.end(), extra.begin(), extra.end());
  auto r = test::RunDistgnn(a, 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

// train-local --task link on Cora with the settings of the AUC target.
test::RunResult TrainCoraLink(const std::string& model, const std::string& out, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"train-local", "--task", "link", "--dataset", test::CoraDir(), "--undirected",
                                "--model", model, "--out", out, "--threads", "1", "--fanouts", "10,25",
                                "--batch-size", "512", "--lr", "0.001", "--negatives", "1", "--edge-split",
                                "0.85,0.05,0.10"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::RunDistgnn(args, 600);
}

// Every node's embedding from model.pt at `path`, computed densely in float64
// from the definition of a 2-layer SAGE encoder over Cora's training edges
// (the 85/5/10 undirected split with seed 0, as train-local makes it).
torch::Tensor DenseSageEmbeddings(const std::string& model_path) {
  auto ds = LoadDataset(test::CoraDir(), EdgeListOptions());
  REQUIRE(ds.ok());
  EdgeListOptions eo;
  eo.undirected = true;
  std::vector<int64_t> origin;
  NormalizeEdges(&ds->edges, eo, &origin);
  auto fractions = ParseEdgeSplit("0.85,0.05,0.10", "--edge-split");
  REQUIRE(fractions.ok());
  REQUIRE(SplitEdgeList(&ds->edges, &origin, AssignEdgeSplit(ds->edges, *fractions, 0, true)).ok());
  const int64_t n = ds->num_nodes;
  torch::Tensor a = torch::zeros({n, n}, torch::kFloat64);  // a[dst][src]: edges src -> dst
  auto acc = a.accessor<double, 2>();
  for (size_t e = 0; e < ds->edges.src.size(); ++e) acc[ds->edges.dst[e]][ds->edges.src[e]] += 1;
  const torch::Tensor mean_op = a / a.sum(1, /*keepdim=*/true).clamp_min(1.0);
  const Array& f = ds->node_data.at("features");
  torch::Tensor h = torch::from_blob(f.data, {f.shape[0], f.shape[1]}, torch::kFloat32).to(torch::kFloat64);
  auto m = LoadModel(model_path);
  REQUIRE(m.ok());
  std::map<std::string, torch::Tensor> p;
  for (const auto& np : m->named_parameters(/*recurse=*/false)) p[np.name] = np.value.detach().to(torch::kFloat64);
  for (int l = 0; l < 2; ++l) {
    const std::string k = std::to_string(l);
    h = h.matmul(p.at("w_self_" + k).t()) + mean_op.matmul(h).matmul(p.at("w_neigh_" + k).t()) + p.at("b_" + k);
    if (l == 0) h = torch::relu(h);
  }
  return h;
}

}  // namespace

TEST_CASE("link metrics: MRR, Hits@k and ROC-AUC against hand-computed values", "[link]") {
  // Positive 0 scores 3 against negatives {1, 2, 4}: rank 2. Positive 1 scores 0
  // against {0, 5, -1}: rank 1 + 1 (5) + 0.5 (tie) = 2.5.
  std::vector<float> pos{3, 0}, neg{1, 2, 4, 0, 5, -1};
  LinkMetrics m = ComputeLinkMetrics(pos, neg, 3);
  CHECK(m.mrr == Approx((1 / 2.0 + 1 / 2.5) / 2));
  CHECK(m.hits1 == 0);
  CHECK(m.hits10 == 1);
  // AUC: pairs (pos > neg) + ties / 2 over 2 * 6: pos 3 beats {1, 2, 0, -1} = 4;
  // pos 0 beats {-1} = 1, ties {0} = 0.5 -> 5.5 / 12.
  CHECK(m.auc == Approx(5.5 / 12));
  // Loss: binary cross-entropy, log(1 + e^-s) for a positive, log(1 + e^s) for a negative, mean of 8.
  const double want_loss = (std::log1p(std::exp(-3.0)) + std::log(2.0) + std::log1p(std::exp(1.0)) +
                            std::log1p(std::exp(2.0)) + std::log1p(std::exp(4.0)) + std::log(2.0) +
                            std::log1p(std::exp(5.0)) + std::log1p(std::exp(-1.0))) / 8;
  CHECK(m.loss == Approx(want_loss).epsilon(1e-12));
  LinkMetrics perfect = ComputeLinkMetrics({10, 9}, {1, 2, 3, 4}, 2);
  CHECK(perfect.mrr == 1);
  CHECK(perfect.auc == 1);
  CHECK(std::isnan(ComputeLinkMetrics({}, {}, 3).auc));
}

TEST_CASE("train-local --task link: Cora 85/5/10 with SAGE reaches test ROC-AUC >= 0.90", "[link][cora]") {
  test::TempDir dir;
  Export({}, dir / "sage.pt");
  auto r = TrainCoraLink(dir / "sage.pt", dir / "run", {"--epochs", "30", "--eval-every", "5"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto lines = Lines(dir / "run/metrics.jsonl");
  REQUIRE(lines.size() == 31);
  const std::string& final_line = lines.back();
  REQUIRE(final_line.find("\"final\": true") != std::string::npos);
  INFO(final_line);
  CHECK(Field(final_line, "test_auc") >= 0.90);
  CHECK(Field(final_line, "test_mrr") > 0.3);
  CHECK(Field(final_line, "test_hits@50") >= Field(final_line, "test_hits@10"));
  CHECK(Field(final_line, "test_hits@10") >= Field(final_line, "test_hits@1"));
  const double best = Field(final_line, "best_epoch");
  CHECK(std::fmod(best, 5) == 0);
  CHECK(Field(lines[0], "positive_edges") == 8972);  // 85% of 5278 pairs, both directions
  CHECK(std::isnan(Field(lines[0], "val_auc")));     // not evaluated in epoch 1
  CHECK(r.output.find("the dot product") != std::string::npos);
  CHECK(std::filesystem::exists(dir / "run/model.pt"));
}

TEST_CASE("train-local --task link: a resumed run equals an uninterrupted one", "[link][cora]") {
  test::TempDir dir;
  Export({}, dir / "sage.pt");
  auto full = TrainCoraLink(dir / "sage.pt", dir / "full", {"--epochs", "3", "--eval-every", "3"});
  INFO(full.output);
  REQUIRE(full.exit_code == 0);
  auto part = TrainCoraLink(dir / "sage.pt", dir / "resumed", {"--epochs", "2", "--eval-every", "3"});
  REQUIRE(part.exit_code == 0);
  auto rest = TrainCoraLink(dir / "sage.pt", dir / "resumed", {"--epochs", "3", "--eval-every", "3", "--resume"});
  INFO(rest.output);
  REQUIRE(rest.exit_code == 0);
  auto a = Lines(dir / "full/metrics.jsonl"), b = Lines(dir / "resumed/metrics.jsonl");
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == 4);
  for (int i = 0; i < 3; ++i) CHECK(Field(a[i], "loss") == Field(b[i], "loss"));
  CHECK(Field(a[3], "test_auc") == Field(b[3], "test_auc"));
  auto pa = ModelParameterVector(dir / "full/model.pt");
  auto pb = ModelParameterVector(dir / "resumed/model.pt");
  REQUIRE(pa.ok());
  REQUIRE(pb.ok());
  CHECK(*pa == *pb);
}

TEST_CASE("train-local --task link: a model's own score(h_src, h_dst) is used", "[link][cora]") {
  test::TempDir dir;
  Export({"--out-dim", "32"}, dir / "sage.pt");
  {
    torch::jit::Module m = torch::jit::load(dir / "sage.pt");
    CHECK(m.attr("num_classes").toInt() == 32);  // the embedding width
    m.define(R"(
def score(self, hs: Tensor, hd: Tensor) -> Tensor:
    return torch.cosine_similarity(hs, hd, 1, 1e-8) * 5.0
)");
    m.save(dir / "sage_score.pt");
  }
  auto r = TrainCoraLink(dir / "sage_score.pt", dir / "run", {"--epochs", "3", "--eval-every", "3"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("its score(h_src, h_dst)") != std::string::npos);
  auto lines = Lines(dir / "run/metrics.jsonl");
  REQUIRE(lines.size() == 4);
  CHECK(Field(lines.back(), "test_auc") > 0.6);
}

TEST_CASE("train-local --task link: featureless graph with a DistEmbedding as the input", "[link][cora]") {
  test::TempDir dir;
  auto e = test::RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "32", "--hidden", "64", "--layers", "2",
                             "--task", "link", "-o", dir / "emb.pt"},
                            120);
  REQUIRE(e.exit_code == 0);
  auto r = TrainCoraLink(dir / "emb.pt", dir / "run",
                         {"--epochs", "6", "--eval-every", "3", "--no-features", "--embedding-dim", "32",
                          "--embedding-lr", "0.05", "--negative-distribution", "degree"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto lines = Lines(dir / "run/metrics.jsonl");
  REQUIRE(lines.size() == 7);
  INFO(lines.back());
  CHECK(Field(lines.back(), "test_auc") > 0.6);
}

TEST_CASE("link prediction flags: one clear error each", "[link]") {
  test::TempDir dir;
  Export({}, dir / "sage.pt");
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  for (const Case& c : std::vector<Case>{
           {{"--task", "edge"}, "--task"},
           {{"--task", "link", "--edge-split", "0.5,0.6,0.1"}, "--edge-split"},
           {{"--task", "link", "--negatives", "0"}, "--negatives"},
           {{"--task", "link", "--negative-distribution", "zipf"}, "--negative-distribution"},
           {{"--task", "link", "--save-predictions"}, "--save-predictions"}}) {
    std::vector<std::string> a{"train-local", "--dataset", test::CoraDir(), "--undirected", "--model", dir / "sage.pt",
                               "--out", dir / "run", "--epochs", "1"};
    a.insert(a.end(), c.args.begin(), c.args.end());
    auto r = test::RunDistgnn(a, 120);
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find(c.needle) != std::string::npos);
  }
  auto r = test::RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "4", "--task", "link", "--classes", "3",
                             "-o", dir / "x.pt"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--classes") != std::string::npos);
  r = test::RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "4", "-o", dir / "x.pt"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--classes") != std::string::npos);
}

}  // namespace dg

namespace dg {

TEST_CASE("train-local --task link: layer-wise evaluation equals full-neighbor node batches", "[link][cora]") {
  test::TempDir dir;
  Export({}, dir / "sage.pt");
  auto lw = TrainCoraLink(dir / "sage.pt", dir / "layerwise", {"--epochs", "2", "--eval-every", "2"});
  INFO(lw.output);
  REQUIRE(lw.exit_code == 0);
  CHECK(lw.output.find("layer-wise full-neighbor embeddings of all 2708 nodes") != std::string::npos);
  // Explicit full fanouts: node batches of the nodes involved, no layer-wise pass.
  auto nb = TrainCoraLink(dir / "sage.pt", dir / "nodes", {"--epochs", "2", "--eval-every", "2", "--eval-fanouts", "-1,-1"});
  INFO(nb.output);
  REQUIRE(nb.exit_code == 0);
  CHECK(nb.output.find("layer-wise") == std::string::npos);
  auto a = Lines(dir / "layerwise/metrics.jsonl"), b = Lines(dir / "nodes/metrics.jsonl");
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  for (const char* k : {"val_auc", "val_mrr", "test_auc", "test_mrr", "test_hits@10"})
    CHECK(Field(a[1], k) == Approx(Field(b[1], k)).margin(1e-3));
}

TEST_CASE("train-local --task link --save-embeddings: every node's encoder output, layer-wise and by node batches",
          "[link][cora]") {
  test::TempDir dir;
  Export({}, dir / "sage.pt");
  // Layer-wise (full-neighbour evaluation, the default) and node batches with
  // every neighbour (--eval-fanouts -1,-1): both are the encoder on the train graph.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--eval-fanouts", "-1,-1"}}) {
    const std::string out = dir / (extra.empty() ? "layerwise" : "nodes");
    std::vector<std::string> args{"--epochs", "1", "--save-embeddings"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = TrainCoraLink(dir / "sage.pt", out, args);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    auto emb = NpyRead(out + "/embeddings.npy");
    REQUIRE(emb.ok());
    REQUIRE(emb->dtype == DType::kFloat32);
    REQUIRE(emb->shape == std::vector<int64_t>{2708, 128});
    const torch::Tensor want = DenseSageEmbeddings(out + "/model.pt");
    const torch::Tensor got = torch::from_blob(emb->data, {2708, 128}, torch::kFloat32).to(torch::kFloat64);
    const double err = (got - want).abs().max().item<double>() / std::max(1.0, want.abs().max().item<double>());
    INFO("max relative difference " << err);
    CHECK(err < 1e-4);
  }
}

}  // namespace dg
