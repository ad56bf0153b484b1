// Model selection in the epoch loop (roles/trainer/loop/model_selection.h):
// BetterModel's rule on hand-made evaluations, and real train-local runs on
// Cora whose chosen epoch is recomputed from their own metrics.jsonl lines
// (val_metric with val_loss breaking ties, and val_loss), with the final line
// naming the rule and the last evaluation beside the best.
#include "test/support/torch_catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "roles/trainer/loop/model_selection.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

Evaluation Eval(double val, double loss) {
  Evaluation e;
  e.done = true;
  e.val = val;
  e.val_loss = loss;
  return e;
}

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

std::string Word(const std::string& line, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(line, m, std::regex("\"" + key + "\": \"([a-z_]+)\""))) return "";
  return m[1];
}

// train-local on Cora for 12 epochs; returns metrics.jsonl's lines.
std::vector<std::string> TrainCora(const test::TempDir& dir, const std::string& out,
                                   const std::vector<std::string>& extra) {
  if (!std::filesystem::exists(dir / "sage.pt")) {
    auto e = test::RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "16",
                               "--classes", "7", "-o", dir / "sage.pt"},
                              120);
    INFO(e.output);
    REQUIRE(e.exit_code == 0);
  }
  std::vector<std::string> args{"train-local", "--dataset", test::CoraDir(), "--undirected", "--model",
                                dir / "sage.pt", "--out", dir / out, "--threads", "1", "--fanouts", "5,5",
                                "--batch-size", "32", "--epochs", "12", "--lr", "0.01"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = test::RunDistgnn(args, 600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto lines = Lines(dir / (out + "/metrics.jsonl"));
  REQUIRE(lines.size() == 13);
  return lines;
}

}  // namespace

TEST_CASE("BetterModel: the validation metric, ties broken by the lower validation loss, or the loss alone",
          "[selection]") {
  const ModelSelection metric = ModelSelection::kValMetric, loss = ModelSelection::kValLoss;
  const Evaluation best = Eval(0.80, 0.50);
  CHECK(BetterModel(Eval(0.80, 0.40), nullptr, metric));
  CHECK(BetterModel(Eval(0.81, 0.90), &best, metric));         // a higher metric wins, whatever its loss
  CHECK(BetterModel(Eval(0.80, 0.40), &best, metric));         // a tie: the lower loss wins
  CHECK_FALSE(BetterModel(Eval(0.80, 0.50), &best, metric));   // a full tie keeps the earlier model
  CHECK_FALSE(BetterModel(Eval(0.80, 0.60), &best, metric));
  CHECK_FALSE(BetterModel(Eval(0.79, 0.01), &best, metric));
  CHECK_FALSE(BetterModel(Eval(std::nan(""), 0.01), nullptr, metric));  // no metric: never kept
  const Evaluation no_loss = Eval(0.80, std::nan(""));
  CHECK(BetterModel(Eval(0.80, 0.40), &no_loss, metric));  // a known loss beats an unknown one
  CHECK_FALSE(BetterModel(Eval(0.80, std::nan("")), &best, metric));

  CHECK(BetterModel(Eval(0.10, 0.40), &best, loss));
  CHECK_FALSE(BetterModel(Eval(0.99, 0.60), &best, loss));
  CHECK_FALSE(BetterModel(Eval(0.99, 0.50), &best, loss));
  CHECK_FALSE(BetterModel(Eval(0.99, std::nan("")), nullptr, loss));
  CHECK(BetterModel(Eval(std::nan(""), 0.70), nullptr, loss));
}

TEST_CASE("train-local on Cora: the chosen epoch follows --select-by, recomputed from metrics.jsonl",
          "[selection][cora]") {
  test::TempDir dir;
  for (const std::string by : {"val_metric", "val_loss"}) {
    INFO(by);
    const auto lines = TrainCora(dir, by, {"--select-by", by});
    // The rule applied to the epoch lines, in order, as the loop applies it.
    int64_t want = 0;
    double best_acc = -1, best_loss = std::nan("");
    for (int i = 0; i < 12; ++i) {
      const double acc = Field(lines[i], "val_acc"), loss = Field(lines[i], "val_loss");
      REQUIRE(std::isfinite(acc));
      REQUIRE(std::isfinite(loss));
      REQUIRE(loss > 0);
      const bool lower = want == 0 || loss < best_loss;
      const bool better = by == "val_loss" ? lower : (want == 0 || acc > best_acc || (acc == best_acc && lower));
      if (better) {
        want = i + 1;
        best_acc = acc;
        best_loss = loss;
      }
    }
    const std::string& final = lines.back();
    INFO(final);
    CHECK(Field(final, "best_epoch") == want);
    CHECK(Word(final, "select_by") == by);
    CHECK(Field(final, "best_val_acc") == best_acc);
    CHECK(Field(final, "best_val_loss") == Approx(best_loss).epsilon(1e-5));
    CHECK(Field(final, "last_evaluated_epoch") == 12);
    CHECK(Field(final, "last_test_acc") == Field(lines[11], "test_acc"));
    CHECK(Field(final, "last_val_acc") == Field(lines[11], "val_acc"));
  }
  // An unknown rule is one clear error naming the flag.
  auto bad = test::RunDistgnn({"train-local", "--dataset", test::CoraDir(), "--model", dir / "sage.pt", "--out",
                               dir / "bad", "--select-by", "best"});
  CHECK(bad.exit_code != 0);
  CHECK(bad.output.find("--select-by: expected val_metric or val_loss, got 'best'") != std::string::npos);
}

}  // namespace dg
