// Typed models end to end with the binary on the bundled IMDB graph: export
// reads the types from the dataset, train-local samples by edge type, beats
// the majority class; typed and untyped models are refused on the wrong graph
// with a message saying what to export.
#include "test/support/torch_catch.h"

#include <fstream>
#include <string>

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

}  // namespace

TEST_CASE("train-local trains RGCN on the typed IMDB graph and refuses mismatched models", "[typed]") {
  test::TempDir dir;
  const std::string rgcn = dir.path() + "/rgcn.pt", sage = dir.path() + "/sage.pt";
  auto r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--dataset", Imdb(), "--undirected", "--hidden",
                             "16", "--bases", "2", "-o", rgcn});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("2669 -> 16 -> 3") != std::string::npos);  // movie features; classes from meta.json
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
  r = test::RunDistgnn({"model", "export", "--arch", "rgcn", "--in-dim", "4", "--dataset", Imdb(), "-o", rgcn});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("reads the feature widths from --dataset") != std::string::npos);
}
