// Typed models end to end with the binary on the bundled IMDB graph: export
// reads the types from the dataset, train-local samples by edge type, beats
// the majority class; the exported RGCN (its defaults) beats an MLP on the
// movie features; typed and untyped models are refused on the wrong graph
// with a message saying what to export; --save-predictions and
// --save-embeddings write the target's classes and every type's rows.
#include "test/support/torch_catch.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/io/npy.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

std::string Imdb() { return test::SourceDir() + "/data/imdb-hetero"; }

double FinalTestAcc(const std::string& run_dir) {
  std::ifstream in(run_dir + "/metrics.jsonl");
  std::string line, last;
  while (std::getline(in, line))
    if (line.find("\"final\"") != std::string::npos) last = line;
  const size_t at = last.find("\"test_acc\": ");
  REQUIRE(at != std::string::npos);
  return std::stod(last.substr(at + 12));
}

// The test accuracy of a run's predictions.npy (one class per node of the
// target type `type_dir`, nodes/<type>/ of the dataset); checks its length and
// the number of test nodes.
double PredictionsTestAcc(const std::string& run, const std::string& type_dir, int64_t nodes, int64_t test_nodes) {
  auto pred = NpyLoad(run + "/predictions.npy");
  auto labels = NpyLoad(type_dir + "/labels.npy");
  auto split = NpyLoad(type_dir + "/split.npy");
  REQUIRE(pred.ok());
  REQUIRE(labels.ok());
  REQUIRE(split.ok());
  REQUIRE(pred->numel() == nodes);
  int64_t correct = 0, tests = 0;
  for (int64_t i = 0; i < pred->numel(); ++i) {
    if (split->as<int8_t>()[i] != 2) continue;
    ++tests;
    correct += pred->as<int64_t>()[i] == labels->as<int64_t>()[i];
  }
  CHECK(tests == test_nodes);
  return static_cast<double>(correct) / static_cast<double>(tests);
}

// predictions.npy holds the movies' classes in their order, from the best
// parameters and full neighbourhoods: the final test accuracy again;
// embeddings/<type>.npy every type's 16-wide hidden rows.
void CheckTypedOutputs(const std::string& run) {
  CHECK(PredictionsTestAcc(run, Imdb() + "/nodes/movie", 4181, 2927) == Approx(FinalTestAcc(run)).margin(1e-9));
  for (const auto& [type, count] : std::vector<std::pair<std::string, int64_t>>{
           {"movie", 4181}, {"director", 2082}, {"actor", 5257}, {"keyword", 2669}}) {
    INFO(type);
    auto emb = NpyLoad(run + "/embeddings/" + type + ".npy");
    REQUIRE(emb.ok());
    CHECK(emb->shape == std::vector<int64_t>{count, 16});
    const torch::Tensor t = torch::from_blob(emb->data, {count, 16}, torch::kFloat32);
    CHECK(t.isfinite().all().item<bool>());
    CHECK(t.abs().sum().item<double>() > 0);
  }
}

}  // namespace

TEST_CASE("train-local trains RGCN on the typed IMDB graph and refuses mismatched models", "[typed]") {
  test::TempDir dir;
  const std::string rgcn = dir.path() + "/rgcn.pt", sage = dir.path() + "/sage.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected", "--hidden",
                             "16", "--bases", "2", "-o", rgcn});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // movie features + learnt rows of the hidden width for the featureless types; classes from meta.json
  CHECK(r.output.find("2685 -> 16 -> 3; featureless types: 16 learnt columns per node") != std::string::npos);
  r = test::RunDistgnn({"train-local", "--dataset", Imdb(), "--undirected", "--model", rgcn, "--fanouts", "5,5",
                        "--epochs", "3", "--batch-size", "256", "--lr", "0.01", "--threads", "2", "--out",
                        dir.path() + "/run"},
                       600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // The majority class (Comedy) gives 0.3621 on the test movies.
  CHECK(FinalTestAcc(dir.path() + "/run") > 0.40);
  r = test::RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "2669", "--hidden", "8", "--classes", "3",
                        "-o", sage});
  REQUIRE(r.exit_code == 0);
  r = test::RunDistgnn({"train-local", "--dataset", Imdb(), "--undirected", "--model", sage, "--epochs", "1", "--out",
                        dir.path() + "/bad1"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("export an rgcn or hetero-sage model, or pass --merge-types") != std::string::npos);
  r = test::RunDistgnn({"train-local", "--dataset", Imdb(), "--undirected", "--merge-types", "--model", rgcn,
                        "--epochs", "1", "--out", dir.path() + "/bad2"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--merge-types needs a homogeneous one") != std::string::npos);
  // The model records its embedding width; another one is named with the flag.
  r = test::RunDistgnn({"train-local", "--dataset", Imdb(), "--undirected", "--model", rgcn, "--embedding-dim", "8",
                        "--epochs", "1", "--out", dir.path() + "/bad3"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--embedding-dim is 8 but " + rgcn + " reads 16 embedding columns") != std::string::npos);
  // --embedding-dim 0: one learnt vector per featureless type, no embedding to train.
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected", "--hidden", "16",
                        "--embedding-dim", "0", "-o", rgcn});
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("2669 -> 16 -> 3; featureless types: one learnt vector per type") != std::string::npos);
  // Its outputs: the movies' classes in their order, every type's last hidden rows.
  const std::string out = dir.path() + "/outputs";
  r = test::RunDistgnn({"train-local", "--dataset", Imdb(), "--undirected", "--model", rgcn, "--fanouts", "5,5",
                        "--epochs", "2", "--batch-size", "256", "--threads", "2", "--save-predictions",
                        "--save-embeddings", "--out", out},
                       600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CheckTypedOutputs(out);
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--in-dim", "4", "--dataset", Imdb(), "-o", rgcn});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("reads the feature widths from --dataset") != std::string::npos);
}

// The graph is worth something: RGCN with export's defaults (learnt rows for
// the featureless types, one weight per relation) against the MLP on the same
// movie features, same seed, epochs, batch and learning rate (docs/models.md).
TEST_CASE("the exported RGCN beats an MLP on the movie features of IMDB", "[typed]") {
  test::TempDir dir;
  const std::string rgcn = dir.path() + "/rgcn.pt", mlp = dir.path() + "/mlp.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected", "--hidden", "64",
                             "--seed", "0", "-o", rgcn});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = test::RunDistgnn({"model", "export", "--arch", "mlp", "--in-dim", "2669", "--hidden", "64", "--classes", "3",
                        "--seed", "0", "-o", mlp});
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> train{"train-local", "--dataset", Imdb(), "--undirected", "--fanouts", "10,10",
                                       "--epochs", "4", "--batch-size", "128", "--lr", "0.005", "--threads", "2",
                                       "--seed", "0"};
  auto run = [&](const std::string& model, std::vector<std::string> extra) {
    std::vector<std::string> args = train;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--model", dir.path() + "/" + model + ".pt", "--out", dir.path() + "/run-" + model});
    auto out = test::RunDistgnn(args, 600);
    INFO(out.output);
    REQUIRE(out.exit_code == 0);
    return FinalTestAcc(dir.path() + "/run-" + model);
  };
  const double rgcn_acc = run("rgcn", {});
  const double mlp_acc = run("mlp", {"--merge-types"});
  INFO("rgcn " << rgcn_acc << " mlp " << mlp_acc);
  CHECK(mlp_acc > 0.40);                // the MLP learns (majority class: 0.3621)
  CHECK(rgcn_acc > mlp_acc + 0.04);     // 8-9 points apart on every seed of the search
}

// The learnt rows are the data's choice (docs/models.md "Featureless node
// types"): on IMDB every featureless type touches the featured movies, so the
// rows start at zero and learn slowly; on AIFB (an RDF graph, no features at
// all) they are relation rows (R-GCN's one-hot input: a block per relation and
// one for the self weight, 91 x 16 columns) that start small and learn fast,
// and the default export leaves the majority class (0.4167 of AIFB's 36 test
// people) far behind.
TEST_CASE("export chooses the learnt rows from the types and RGCN learns AIFB by default", "[typed]") {
  test::TempDir dir;
  const std::string aifb = test::SourceDir() + "/bench/panel/aifb/data", m = dir.path() + "/m.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected", "-o", m});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("learnt columns per node, starting at 0 and learning at 0.001") != std::string::npos);
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", aifb, "--undirected", "--hidden", "16",
                        "-o", m});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // starting as R-GCN's one-hot weights do: Xavier-uniform over [8285 nodes, 16]
  CHECK(r.output.find("relation rows, 1456 learnt columns per node (91 blocks), starting uniform in +-0.026885 "
                      "and learning at 0.05") != std::string::npos);
  r = test::RunDistgnn({"train-local", "--dataset", aifb, "--undirected", "--model", m, "--fanouts", "-1,-1",
                        "--batch-size", "1000", "--epochs", "30", "--lr", "0.01", "--threads", "2",
                        "--save-predictions", "--out", dir.path() + "/run"},
                       600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("node embedding: 1456 learnt columns per node") != std::string::npos);
  CHECK(FinalTestAcc(dir.path() + "/run") > 0.8);
  // The predictions of every node (forward_input, then layer by layer) come from the best epoch's parameters
  // and its rows (RUN/checkpoints/best-rows/): the best epoch's test accuracy again. Without the rows' decay
  // the rows of the last step score below it (0.917 against 0.972 on this seed).
  CHECK(PredictionsTestAcc(dir.path() + "/run", aifb + "/nodes/entity", 8285, 36) ==
        Approx(FinalTestAcc(dir.path() + "/run")).margin(1e-9));
  r = test::RunDistgnn({"train-local", "--dataset", aifb, "--undirected", "--model", m, "--fanouts", "-1,-1",
                        "--batch-size", "1000", "--epochs", "30", "--lr", "0.01", "--threads", "2", "--seed", "0",
                        "--embedding-weight-decay", "0", "--save-predictions", "--out", dir.path() + "/nodecay"},
                       600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("its parameters and its learnt rows") != std::string::npos);
  CHECK(std::filesystem::exists(dir.path() + "/nodecay/checkpoints/best-rows/step.txt"));
  CHECK(PredictionsTestAcc(dir.path() + "/nodecay", aifb + "/nodes/entity", 8285, 36) ==
        Approx(FinalTestAcc(dir.path() + "/nodecay")).margin(1e-9));
  // The user's start and rate win over the model's: from zero at 0.001 the rows stay at the majority class.
  r = test::RunDistgnn({"train-local", "--dataset", aifb, "--undirected", "--model", m, "--fanouts", "-1,-1",
                        "--batch-size", "1000", "--epochs", "10", "--lr", "0.01", "--threads", "2",
                        "--embedding-init-scale", "0", "--embedding-lr", "0.001", "--out", dir.path() + "/still"},
                       600);
  REQUIRE(r.exit_code == 0);
  CHECK(FinalTestAcc(dir.path() + "/still") < 0.5);
}

// --featureless-input overrides the choice: type-rows on a graph without
// features gives the learnt row of --hidden columns; relation-rows is refused
// where a type has features or with another width.
TEST_CASE("model export --featureless-input: type-rows on AIFB, relation-rows refused with features", "[typed]") {
  test::TempDir dir;
  const std::string aifb = test::SourceDir() + "/bench/panel/aifb/data", m = dir.path() + "/m.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", aifb, "--undirected", "--hidden", "16",
                             "--featureless-input", "type-rows", "-o", m});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("; featureless types: 16 learnt columns per node, starting uniform") != std::string::npos);
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", aifb, "--undirected", "--hidden", "16",
                        "--bases", "4", "-o", m});
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("relation rows, 80 learnt columns per node (5 blocks)") != std::string::npos);
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected",
                        "--featureless-input", "relation-rows", "-o", m});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--featureless-input relation-rows: a node type has features") != std::string::npos);
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", aifb, "--undirected", "--embedding-dim", "8",
                        "--featureless-input", "relation-rows", "-o", m});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("the rows have 5824 columns") != std::string::npos);
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", aifb, "--featureless-input", "one-hot",
                        "-o", m});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--featureless-input: expected type-rows or relation-rows, got 'one-hot'") != std::string::npos);
  r = test::RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "4", "--classes", "2", "--featureless-input",
                        "type-rows", "-o", m});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--featureless-input goes with --arch rgcn or hetero-sage") != std::string::npos);
}

namespace {

// The epochs' training losses of a run, as its metrics.jsonl lists them.
std::vector<std::string> EpochLosses(const std::string& run_dir) {
  std::ifstream in(run_dir + "/metrics.jsonl");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find("\"loss\": ");
    if (at != std::string::npos) out.push_back(line.substr(at, line.find(',', at) - at));
  }
  return out;
}

}  // namespace

// Relation rows are layer 0's weights: without --embedding-l2 they take
// --weight-decay as their L2 penalty, and without --embedding-weight-decay
// the decoupled decay the model records (each run equals the one that sets
// the value explicitly, bit for bit); 0 instead trains another model. A rate
// whose product with the model's decay reaches 1 is refused, naming both.
TEST_CASE("relation rows take --weight-decay as their L2 penalty and the model's decay", "[typed]") {
  test::TempDir dir;
  const std::string aifb = test::SourceDir() + "/bench/panel/aifb/data", m = dir.path() + "/m.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", aifb, "--undirected", "--hidden", "8",
                             "--bases", "4", "-o", m});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("learning at 0.05 with a decoupled weight decay of 1") != std::string::npos);
  auto run = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {"train-local", "--dataset", aifb, "--undirected", "--model", m, "--fanouts",
                                     "-1,-1", "--batch-size", "1000", "--epochs", "4", "--weight-decay", "0.5",
                                     "--threads", "1", "--out", dir.path() + "/" + name};
    args.insert(args.end(), extra.begin(), extra.end());
    auto out = test::RunDistgnn(args, 600);
    INFO(out.output);
    REQUIRE(out.exit_code == 0);
    return out.output;
  };
  const std::string followed = run("followed", {});
  CHECK(followed.find("their L2 penalty is train.weight_decay's") != std::string::npos);
  const std::string given = run("given", {"--embedding-l2", "0.5"});
  CHECK(given.find("their L2 penalty is train.weight_decay's") == std::string::npos);
  run("none", {"--embedding-l2", "0"});
  const auto a = EpochLosses(dir.path() + "/followed"), b = EpochLosses(dir.path() + "/given"),
             c = EpochLosses(dir.path() + "/none");
  REQUIRE(a.size() == 4);
  CHECK(a == b);
  CHECK(a[0] == c[0]);  // the penalty acts through the first update
  CHECK(a.back() != c.back());
  run("decay given", {"--embedding-weight-decay", "1"});
  run("no decay", {"--embedding-weight-decay", "0"});
  const auto d = EpochLosses(dir.path() + "/decay given"), e = EpochLosses(dir.path() + "/no decay");
  CHECK(a == d);
  CHECK(a[0] == e[0]);
  CHECK(a.back() != e.back());
  r = test::RunDistgnn({"train-local", "--dataset", aifb, "--undirected", "--model", m, "--epochs", "1",
                        "--embedding-lr", "2", "--threads", "1", "--out", dir.path() + "/refused"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("records for its rows (embedding_weight_decay 1") != std::string::npos);
  // The user's decay against the model's rate (0.05): 0.05 x 30 >= 1.
  r = test::RunDistgnn({"train-local", "--dataset", aifb, "--undirected", "--model", m, "--epochs", "1",
                        "--embedding-weight-decay", "30", "--threads", "1", "--out", dir.path() + "/refused too"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("is 0.05, but times the weight decay 30 (train.embedding.weight_decay") != std::string::npos);
}
