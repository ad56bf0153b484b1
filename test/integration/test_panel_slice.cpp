// The CI slice of the benchmark panel (docs/panel.md): for each kind of graph,
// seed 0 of distgnn's defaults on its graph of bench/panel/floors.tsv, run by
// the panel's own runner (bench/panel/panel.py --slice: the real binary,
// `model export` and `train-local`, or `partition` and `partition --mpi`), must
// reach the floor the full panel measured. A default changed for one kind of
// graph that hurts another fails here.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "test/support/test_support.h"

using namespace dg;

namespace {

// Runs the slice of one kind; checks every "slice GRAPH TASK MODEL VALUE FLOOR
// holds|BELOW" line it prints against its floor, and that there is one.
void CheckKind(const std::string& kind) {
  test::TempDir work;
  test::Subprocess panel;
  panel.Start({"/usr/bin/python3", test::SourceDir() + "/bench/panel/panel.py", "--slice", "--kinds", kind, "--bin",
               test::DistgnnBin(), "--work", work.path(), "--jobs", "1"},
              work / "panel.log");
  const int code = panel.Wait(560);
  const std::string out = panel.Output();
  INFO(out);
  std::istringstream lines(out);
  std::string line;
  int checked = 0;
  while (std::getline(lines, line)) {
    std::istringstream w(line);
    std::string tag, graph, task, model, verdict;
    double value = 0, floor = 0;
    if (!(w >> tag >> graph >> task >> model >> value >> floor >> verdict) || tag != "slice") continue;
    INFO(line);
    if (task == "partition")
      CHECK(value <= floor);  // the --mpi default's cut over METIS's
    else
      CHECK(value >= floor);  // test accuracy or ROC-AUC of seed 0
    ++checked;
  }
  CHECK(code == 0);
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("panel slice: a citation graph holds its floor", "[panel]") { CheckKind("citation"); }
TEST_CASE("panel slice: a co-purchase graph holds its floor", "[panel]") { CheckKind("co-purchase"); }
TEST_CASE("panel slice: a co-authorship graph holds its floor", "[panel]") { CheckKind("co-authorship"); }
TEST_CASE("panel slice: a heterophilous graph holds its floor", "[panel]") { CheckKind("heterophilous"); }
TEST_CASE("panel slice: a web/social graph holds its floor", "[panel]") { CheckKind("web-social"); }
TEST_CASE("panel slice: a typed graph with features holds its floor", "[panel]") { CheckKind("typed-featured"); }
TEST_CASE("panel slice: a typed graph without features holds its paper's floor", "[panel]") {
  CheckKind("typed-featureless");
}
TEST_CASE("panel slice: a link-prediction set holds its floor", "[panel]") { CheckKind("link-prediction"); }
TEST_CASE("panel slice: the planted-community graph holds its floors", "[panel]") { CheckKind("sbm"); }
TEST_CASE("panel slice: the R-MAT graph holds its cut", "[panel]") { CheckKind("rmat"); }
