// `distgnn train-local` end to end: accuracy on bundled Cora, checkpoint/kill/
// resume, outputs, and one clear error per bad input.
#include "test/support/torch_catch.h"
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "common/io/npy.h"
#include "roles/trainer/model/model_facts.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

double Field(const std::string& line, const std::string& key) {
  std::smatch m;
  std::regex re("\"" + key + "\": ([-0-9.e]+)");
  if (!std::regex_search(line, m, re)) return -1;
  return std::stod(m[1]);
}

void Export(const std::vector<std::string>& args) {
  std::vector<std::string> a{"model", "export"};
  a.insert(a.end(), args.begin(), args.end());
  auto r = test::RunDistgnn(a, 60);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

// Trains on Cora and returns the final record's test accuracy.
double TrainCora(const std::string& model, const std::string& out,
                 const std::vector<std::string>& extra) {
  std::vector<std::string> args{"train-local", "--dataset", test::CoraDir(), "--undirected",
                                "--model", model, "--out", out, "--threads", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = test::RunDistgnn(args, 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto lines = ReadLines(out + "/metrics.jsonl");
  REQUIRE(!lines.empty());
  REQUIRE(lines.back().find("\"final\": true") != std::string::npos);
  return Field(lines.back(), "test_acc");
}

// A tiny dataset: a ring of n nodes with 4-dim features and 3 classes.
void WriteTinyDataset(const std::string& dir, bool with_labels, int bad_label, int split_value) {
  std::filesystem::create_directories(dir);
  const int64_t n = 30;
  std::ofstream edges(dir + "/edges.tsv");
  for (int64_t i = 0; i < n; ++i) edges << i << "\t" << (i + 1) % n << "\n";
  Array feat = Array::Zeros(DType::kFloat32, {n, 4});
  Array labels = Array::Zeros(DType::kInt64, {n});
  Array split = Array::Zeros(DType::kInt8, {n});
  for (int64_t i = 0; i < n; ++i) {
    labels.as<int64_t>()[i] = i % 3;
    feat.as<float>()[i * 4 + i % 3] = 1;
    split.as<int8_t>()[i] = static_cast<int8_t>(i < 10 ? split_value : (i < 20 ? 1 : 2));
  }
  labels.as<int64_t>()[0] = bad_label >= 0 ? bad_label : 0;
  if (bad_label < -1) labels.as<int64_t>()[0] = bad_label;
  REQUIRE(NpyWrite(dir + "/features.npy", feat).ok());
  REQUIRE(NpyWrite(dir + "/split.npy", split).ok());
  if (with_labels) REQUIRE(NpyWrite(dir + "/labels.npy", labels).ok());
}

}  // namespace

TEST_CASE("train-local on Cora: SAGE reaches >= 0.78 test accuracy, outputs are complete") {
  test::TempDir dir;
  Export({"--arch", "sage", "--in-dim", "1433", "--hidden", "64", "--classes", "7", "--dropout",
          "0.7", "-o", dir / "sage.pt"});
  double acc = TrainCora(dir / "sage.pt", dir / "run",
                         {"--fanouts", "10,25", "--batch-size", "32", "--epochs", "50", "--lr",
                          "0.01", "--weight-decay", "5e-3", "--seed", "0", "--save-predictions",
                          "--save-embeddings"});
  CHECK(acc >= 0.78);
  auto lines = ReadLines(dir / "run/metrics.jsonl");
  REQUIRE(lines.size() == 51);
  for (const char* key : {"epoch", "loss", "train_acc", "val_acc", "test_acc", "epoch_seconds",
                          "wait_fraction"})
    CHECK(Field(lines[0], key) >= 0);
  CHECK(Field(lines.back(), "best_epoch") >= 1);
  CHECK(Field(lines.back(), "best_val_acc") > 0.7);
  CHECK(Field(lines[0], "seeds") == 140);  // every train seed once per epoch
  // The run report, with plots when gnuplot is there (scripts/setup.sh installs it).
  const std::string report = ReadLines(dir / "run/report.html").empty() ? "" : dir / "run/report.html";
  REQUIRE(!report.empty());
  std::ifstream rf(report);
  const std::string html((std::istreambuf_iterator<char>(rf)), std::istreambuf_iterator<char>());
  CHECK(html.find("distgnn run report") != std::string::npos);
  CHECK(html.find("distgnn train-local") != std::string::npos);  // the command, as the config
  CHECK(html.find("<td class=\"l\">train-local</td>") != std::string::npos);  // its peak RSS row
  auto pred = NpyRead(dir / "run/predictions.npy");
  REQUIRE(pred.ok());
  CHECK((pred->shape == std::vector<int64_t>{2708}));
  auto emb = NpyRead(dir / "run/embeddings.npy");
  REQUIRE(emb.ok());
  CHECK((emb->shape == std::vector<int64_t>{2708, 64}));
  // Predictions agree with labels on about the reported share of test nodes.
  auto labels = NpyRead(test::CoraDir() + "/labels.npy");
  auto split = NpyRead(test::CoraDir() + "/split.npy");
  REQUIRE((labels.ok() && split.ok()));
  int64_t ok = 0, n = 0;
  for (int64_t i = 0; i < 2708; ++i)
    if (split->as<int8_t>()[i] == 2) {
      ++n;
      ok += pred->as<int64_t>()[i] == labels->as<int64_t>()[i];
    }
  CHECK(std::fabs(double(ok) / n - acc) < 1e-6);
  // model.pt is plain TorchScript with the contract's forward.
  auto params = ModelParameterVector(dir / "run/model.pt");
  CHECK(params.ok());
}

// Each epoch's value of `key` in metrics.jsonl, in order.
std::vector<double> EpochField(const std::string& metrics, const std::string& key) {
  std::vector<double> out;
  for (const auto& l : ReadLines(metrics))
    if (l.find("\"final\"") == std::string::npos) out.push_back(Field(l, key));
  return out;
}

TEST_CASE("train-local evaluates every node layer by layer where that computes less, with node batches' figures") {
  test::TempDir dir;
  Export({"--arch", "sage", "--in-dim", "1433", "--classes", "7", "-o", dir / "sage.pt"});
  Export({"--arch", "gat", "--in-dim", "16", "--classes", "7", "-o", dir / "gat.pt"});
  struct Case {
    const char* name;
    std::vector<std::string> flags;
  };
  for (const Case& c : {Case{"sage", {"--model", dir / "sage.pt"}},
                        Case{"gat", {"--model", dir / "gat.pt", "--no-features", "--embedding-dim", "16"}}}) {
    INFO(c.name);
    std::map<std::string, std::string> logs;
    for (const std::string eval : {"full", "100000,100000"}) {  // layer by layer; node batches of every neighbour
      std::vector<std::string> args{"train-local", "--dataset", test::CoraDir(), "--undirected", "--epochs", "4",
                                    "--seed", "3", "--eval-fanouts", eval, "--out", dir / (c.name + eval)};
      args.insert(args.end(), c.flags.begin(), c.flags.end());
      auto r = test::RunDistgnn(args, 300);
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      logs[eval] = r.output;
    }
    CHECK(logs["full"].find("evaluation: every node layer by layer over full neighbourhoods (1500 val and test "
                            "seeds x mean in-degree 3.9 >= 2708 nodes)") != std::string::npos);
    CHECK(logs["100000,100000"].find("layer by layer") == std::string::npos);
    const std::string a = dir / (c.name + std::string("full")) + "/metrics.jsonl",
                      b = dir / (c.name + std::string("100000,100000")) + "/metrics.jsonl";
    CHECK(EpochField(a, "loss") == EpochField(b, "loss"));
    CHECK(EpochField(a, "val_acc") == EpochField(b, "val_acc"));
    CHECK(EpochField(a, "test_acc") == EpochField(b, "test_acc"));
    const auto la = EpochField(a, "val_loss"), lb = EpochField(b, "val_loss");
    REQUIRE(la.size() == 4);
    REQUIRE(lb.size() == 4);
    for (size_t e = 0; e < la.size(); ++e) CHECK(la[e] == Approx(lb[e]).epsilon(1e-5));
  }
  // gcn reads its sources' degrees in the block, which differ layer by layer: node batches.
  Export({"--arch", "gcn", "--in-dim", "1433", "--classes", "7", "-o", dir / "gcn.pt"});
  auto g = test::RunDistgnn({"train-local", "--dataset", test::CoraDir(), "--undirected", "--model", dir / "gcn.pt",
                             "--epochs", "1", "--out", dir / "gcn-run"},
                            120);
  INFO(g.output);
  REQUIRE(g.exit_code == 0);
  CHECK(g.output.find("layer by layer") == std::string::npos);
  // A ring of 100 nodes with 4 val and test seeds: 4 x mean degree 2 is far below 100 nodes, so batches.
  const std::string ring = dir / "ring";
  std::filesystem::create_directories(ring);
  std::ofstream edges(ring + "/edges.tsv");
  Array feat = Array::Zeros(DType::kFloat32, {100, 4}), labels = Array::Zeros(DType::kInt64, {100});
  Array split = Array::Zeros(DType::kInt8, {100});
  for (int64_t i = 0; i < 100; ++i) {
    edges << i << "\t" << (i + 1) % 100 << "\n";
    labels.as<int64_t>()[i] = i % 3;
    feat.as<float>()[i * 4 + i % 3] = 1;
    split.as<int8_t>()[i] = static_cast<int8_t>(i < 96 ? 0 : (i < 98 ? 1 : 2));
  }
  edges.close();
  REQUIRE((NpyWrite(ring + "/features.npy", feat).ok() && NpyWrite(ring + "/labels.npy", labels).ok() &&
           NpyWrite(ring + "/split.npy", split).ok()));
  Export({"--arch", "sage", "--in-dim", "4", "--classes", "3", "-o", dir / "ring.pt"});
  auto r = test::RunDistgnn({"train-local", "--dataset", ring, "--undirected", "--model", dir / "ring.pt",
                             "--epochs", "1", "--out", dir / "ring-run"},
                            120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("layer by layer") == std::string::npos);
}

TEST_CASE("train-local without --lr: the rate the model and the rows decide, as its log says") {
  test::TempDir dir;
  WriteTinyDataset(dir / "data", true, -1, 0);  // one-hot rows: L1 size 1
  Export({"--arch", "sage", "--in-dim", "4", "--hidden", "8", "--classes", "3", "-o", dir / "sage.pt"});
  Export({"--arch", "gcn", "--in-dim", "4", "--hidden", "8", "--classes", "3", "-o", dir / "gcn.pt"});
  auto run = [&](const std::string& model, const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args{"train-local", "--dataset", dir / "data", "--model", dir / model, "--out",
                                  dir / out, "--epochs", "1", "--threads", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = test::RunDistgnn(args, 120);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return r.output;
  };
  CHECK(run("sage.pt", "sage", {}).find("lr 0.01 (the default for sage on feature rows of mean L1 size 1.0 <= 64") !=
        std::string::npos);
  CHECK(run("gcn.pt", "gcn", {}).find("lr 0.003 (the default for gcn node models") != std::string::npos);
  CHECK(run("sage.pt", "given", {"--lr", "0.02"}).find("(the default for") == std::string::npos);
}

TEST_CASE("train-local on Cora: GCN reaches >= 0.78 test accuracy") {
  test::TempDir dir;
  Export({"--arch", "gcn", "--in-dim", "1433", "--hidden", "64", "--classes", "7", "--dropout",
          "0.5", "-o", dir / "gcn.pt"});
  double acc = TrainCora(dir / "gcn.pt", dir / "run",
                         {"--fanouts", "10,25", "--batch-size", "32", "--epochs", "50", "--lr",
                          "0.01", "--weight-decay", "5e-3", "--seed", "0"});
  CHECK(acc >= 0.78);
}

TEST_CASE("train-local on Cora: GAT reaches >= 0.78 test accuracy") {
  test::TempDir dir;
  Export({"--arch", "gat", "--in-dim", "1433", "--hidden", "64", "--heads", "8", "--classes", "7",
          "--dropout", "0.6", "--attn-dropout", "0.6", "-o", dir / "gat.pt"});
  double acc = TrainCora(dir / "gat.pt", dir / "run",
                         {"--fanouts", "10,25", "--batch-size", "32", "--epochs", "50", "--lr",
                          "0.01", "--weight-decay", "5e-4", "--seed", "0"});
  CHECK(acc >= 0.78);
}

TEST_CASE("train-local without features: a learnable embedding (sparse_adam) trains above 0.6") {
  test::TempDir dir;
  Export({"--arch", "gcn", "--in-dim", "64", "--hidden", "64", "--classes", "7", "-o", dir / "gcn.pt"});
  double acc = TrainCora(dir / "gcn.pt", dir / "run",
                         {"--fanouts", "10,25", "--batch-size", "140", "--epochs", "50", "--lr", "0.01",
                          "--weight-decay", "5e-4", "--seed", "0", "--no-features", "--embedding-dim", "64",
                          "--embedding-optimizer", "sparse_adam", "--embedding-lr", "0.05"});
  CHECK(acc > 0.6);
  // A model whose input width does not fit features + embedding is named.
  auto r = test::RunDistgnn({"train-local", "--dataset", test::CoraDir(), "--undirected", "--model",
                             dir / "gcn.pt", "--embedding-dim", "32", "--epochs", "1", "--out", dir / "bad"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("1465-dim input rows") != std::string::npos);
}

// Cora without features.npy (edges, labels, split only): no flag names an
// embedding, so the model's input width becomes a learnt row per node, and the
// graph alone must beat the majority class of the test nodes (the best
// constant prediction).
TEST_CASE("train-local on a graph without features learns input rows by default, above the majority class") {
  test::TempDir dir;
  const std::string data = dir / "cora-featureless";
  std::filesystem::create_directories(data);
  for (const char* f : {"edges.tsv", "labels.npy", "split.npy"})
    std::filesystem::copy_file(test::CoraDir() + "/" + f, data + "/" + f);
  Export({"--arch", "sage", "--in-dim", "64", "--hidden", "64", "--classes", "7", "-o", dir / "sage.pt"});
  auto r = test::RunDistgnn({"train-local", "--dataset", data, "--undirected", "--model", dir / "sage.pt", "--epochs",
                             "30", "--seed", "0", "--threads", "2", "--out", dir / "run"},
                            300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("no features: the model's input is a learnt row of 64 columns per node") != std::string::npos);
  auto labels = NpyRead(data + "/labels.npy");
  auto split = NpyRead(data + "/split.npy");
  REQUIRE(labels.ok());
  REQUIRE(split.ok());
  std::map<int64_t, int64_t> test_counts;
  int64_t tests = 0, most = 0;
  for (int64_t i = 0; i < labels->shape[0]; ++i)
    if (split->as<int8_t>()[i] == 2) ++test_counts[labels->as<int64_t>()[i]], ++tests;
  for (const auto& [y, n] : test_counts) most = std::max(most, n);
  const double baseline = static_cast<double>(most) / tests;  // the best constant prediction
  const double acc = Field(ReadLines(dir / "run/metrics.jsonl").back(), "test_acc");
  INFO("test accuracy " << acc << ", the test nodes' majority class " << baseline);
  CHECK(acc > baseline + 0.1);
}

TEST_CASE("checkpoint, kill, --resume: continues at the next epoch with the same parameters") {
  test::TempDir dir;
  Export({"--arch", "sage", "--in-dim", "1433", "--hidden", "32", "--classes", "7", "-o",
          dir / "m.pt"});
  std::vector<std::string> common{"train-local", "--dataset", test::CoraDir(), "--undirected",
                                  "--model", dir / "m.pt", "--fanouts", "5,10", "--batch-size",
                                  "16", "--epochs", "8", "--lr", "0.01", "--seed", "3",
                                  "--threads", "1"};
  // Uninterrupted reference.
  auto args = common;
  args.insert(args.end(), {"--out", dir / "full"});
  auto full = test::RunDistgnn(args, 120);
  INFO(full.output);
  REQUIRE(full.exit_code == 0);

  // Same run, SIGKILLed once two epochs are recorded, then resumed.
  args = common;
  args.insert(args.end(), {"--out", dir / "killed"});
  args.insert(args.begin(), test::DistgnnBin());
  test::Subprocess p;
  p.Start(args, dir / "killed.log");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ReadLines(dir / "killed/metrics.jsonl").size() < 2 &&
         std::chrono::steady_clock::now() < deadline && p.running())
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  p.Signal(SIGKILL);
  int code = p.Wait(10);
  CHECK(code == 128 + SIGKILL);  // killed mid-run, not finished
  size_t recorded = ReadLines(dir / "killed/metrics.jsonl").size();
  CHECK(recorded < 8);

  args = common;
  args.insert(args.end(), {"--out", dir / "killed", "--resume"});
  auto resumed = test::RunDistgnn(args, 120);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.output.find("resuming after epoch") != std::string::npos);

  auto a = ReadLines(dir / "full/metrics.jsonl"), b = ReadLines(dir / "killed/metrics.jsonl");
  REQUIRE(a.size() == 9);
  REQUIRE(b.size() == 9);
  for (size_t i = 0; i < 8; ++i) {
    CHECK(Field(b[i], "epoch") == double(i + 1));
    CHECK(Field(a[i], "loss") == Approx(Field(b[i], "loss")).epsilon(1e-5));
    CHECK(Field(a[i], "val_acc") == Field(b[i], "val_acc"));
  }
  CHECK(a.back() == b.back());
  auto pa = ModelParameterVector(dir / "full/model.pt"), pb = ModelParameterVector(dir / "killed/model.pt");
  REQUIRE((pa.ok() && pb.ok()));
  REQUIRE(pa->size() == pb->size());
  double diff = 0;
  for (size_t i = 0; i < pa->size(); ++i) diff = std::max(diff, double(std::fabs((*pa)[i] - (*pb)[i])));
  CHECK(diff <= 1e-6);
}

TEST_CASE("train-local: bad inputs give one clear message and a non-zero exit") {
  test::TempDir dir;
  WriteTinyDataset(dir / "ok", true, -1, 0);
  WriteTinyDataset(dir / "nolabels", false, -1, 0);
  WriteTinyDataset(dir / "badlabel", true, 7, 0);
  WriteTinyDataset(dir / "notrain", true, -1, 1);
  Export({"--arch", "sage", "--in-dim", "4", "--hidden", "8", "--classes", "3", "-o", dir / "m.pt"});
  Export({"--arch", "sage", "--in-dim", "4", "--hidden", "8", "--classes", "5", "-o", dir / "m5.pt"});
  {
    torch::jit::Module m("Wrong");
    m.define("def forward(self, x: Tensor, indptr: Tensor) -> Tensor:\n    return x\n");
    m.save(dir / "wrong.pt");
  }
  std::ofstream(dir / "junk.pt") << "not a model";

  auto run = [&](const std::string& data, const std::string& model,
                 std::vector<std::string> extra) {
    std::map<std::string, std::string> flags{{"--dataset", data}, {"--model", model}, {"--fanouts", "2,2"},
                                             {"--batch-size", "4"}, {"--epochs", "1"}, {"--out", dir / "run"}};
    std::vector<std::string> a{"train-local"};
    for (size_t i = 0; i < extra.size(); ++i) {  // "--flag value" replaces; "--flag=value" as is
      if (extra[i].find('=') != std::string::npos) {
        flags.erase(extra[i].substr(0, extra[i].find('=')));
        a.push_back(extra[i]);
      } else {
        flags[extra[i]] = extra[i + 1];
        ++i;
      }
    }
    for (const auto& [k, v] : flags) a.insert(a.end(), {k, v});
    return test::RunDistgnn(a, 60);
  };
  struct Case {
    std::string name, data, model;
    std::vector<std::string> extra;
    std::string expect;
  } cases[] = {
      {"missing model", dir / "ok", dir / "nope.pt", {}, "not found"},
      {"not TorchScript", dir / "ok", dir / "junk.pt", {}, "not a TorchScript archive"},
      {"wrong forward", dir / "ok", dir / "wrong.pt", {}, "does not fit the model contract"},
      {"output width", dir / "ok", dir / "m5.pt", {}, "output width 5 != number of classes 3"},
      {"no labels", dir / "nolabels", dir / "m.pt", {}, "no labels.npy"},
      {"label range", dir / "badlabel", dir / "m.pt", {"--classes", "3"}, "has label 7, out of range"},
      {"no train nodes", dir / "notrain", dir / "m.pt", {}, "no training nodes"},
      {"batch size", dir / "ok", dir / "m.pt", {"--batch-size", "0"}, "--batch-size: expected an integer in [1, 100000000], got 0"},
      {"empty fanouts", dir / "ok", dir / "m.pt", {"--fanouts", ""}, "--fanouts: empty list"},
      {"layers vs fanouts", dir / "ok", dir / "m.pt", {"--fanouts", "2"}, "has 2 layers but --fanouts gives 1"},
      {"embedding start scale", dir / "ok", dir / "m.pt", {"--embedding-init-scale", "-1"},
       "--embedding-init-scale: expected"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto r = run(c.data, c.model, c.extra);
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find(c.expect) != std::string::npos);
    CHECK(r.output.find("distgnn train-local: error:") != std::string::npos);
  }
  // And the good case runs.
  auto r = run(dir / "ok", dir / "m.pt", {});
  INFO(r.output);
  CHECK(r.exit_code == 0);
}

}  // namespace dg
