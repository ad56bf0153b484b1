// `distgnn partition --mpi --format ogb` under a real `mpirun` on 127.0.0.1:
// OGB's files (written by `distgnn generate --format ogb`) partition into the
// same bytes as the same graph written as a plain .npy dataset, for the same
// P, K and seed, and a small graph in ogbn-mag's typed layout as the same
// graph written as a typed dataset directory (.npy files). Each rank parses
// only its share of the rows of each CSV (the node files' shares gathered
// whole on every rank); a malformed line ends every rank with a message naming
// OGB's file (never its staged link), the line and the rank's host, and leaves
// nothing.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/io/npy.h"
#include "test/partition/mpi_run.h"
#include "test/partition/partition_checks.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

// The same synthetic graph as a plain .npy dataset (tmp/npy) and in OGB's layout (tmp/ogb).
void GenerateBoth(const std::string& tmp) {
  for (const std::string format : {"npy", "ogb"}) {
    auto r = RunDistgnn({"generate", "--nodes", "600", "--edges", "6000", "--feat-dim", "4", "--classes", "3",
                         "--seed", "5", "--format", format, "--out", tmp + "/" + (format == "ogb" ? "ogb" : "npy")});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
}

void WriteGz(const std::string& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz != nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

Array Int64Column(const std::vector<int64_t>& v, int64_t cols) {
  Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(v.size()) / cols, cols});
  if (cols == 1) a.shape = {static_cast<int64_t>(v.size())};
  std::copy(v.begin(), v.end(), a.as<int64_t>());
  return a;
}

// One random edge type: OGB's raw/relations/<name>/edge.csv.gz and the typed
// directory's edges/<src>__<rel>__<dst>.npy ([E, 2] pairs).
void WriteRelation(const std::string& tmp, std::mt19937_64& rng, const std::string& s, const std::string& rel,
                   const std::string& d, int64_t ns, int64_t nd, int64_t e) {
  std::ostringstream csv;
  std::vector<int64_t> pairs;
  for (int64_t k = 0; k < e; ++k) {
    pairs.push_back(static_cast<int64_t>(rng() % ns));
    pairs.push_back(static_cast<int64_t>(rng() % nd));
    csv << pairs[2 * k] << "," << pairs[2 * k + 1] << "\n";
  }
  const std::string name = s + "___" + rel + "___" + d;
  fs::create_directories(tmp + "/ogb/raw/relations/" + name);
  WriteGz(tmp + "/ogb/raw/relations/" + name + "/edge.csv.gz", csv.str());
  REQUIRE(NpyWrite(tmp + "/typed/edges/" + s + "__" + rel + "__" + d + ".npy", Int64Column(pairs, 2)).ok());
}

// Papers' features, labels and split: OGB's CSVs and the typed directory's .npy files.
void WritePapers(const std::string& tmp, std::mt19937_64& rng, int64_t n) {
  std::ostringstream feat, label;
  feat.precision(9);  // every float's exact value
  std::ostringstream split[3];
  Array f = Array::Zeros(DType::kFloat32, {n, 3}), sp = Array::Zeros(DType::kInt8, {n});
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) {
      f.as<float>()[i * 3 + j] = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 256.0f;
      feat << f.as<float>()[i * 3 + j] << (j == 2 ? "\n" : ",");
    }
    labels.push_back(rng() % 10 == 0 ? -1 : static_cast<int64_t>(rng() % 4));
    label << (labels.back() < 0 ? std::string("nan") : std::to_string(labels.back())) << "\n";
    sp.as<int8_t>()[i] = static_cast<int8_t>(rng() % 5 == 0 ? -1 : rng() % 3);
    if (sp.as<int8_t>()[i] >= 0) split[sp.as<int8_t>()[i]] << i << "\n";
  }
  for (const std::string d : {"raw/node-feat/paper", "raw/node-label/paper", "split/time/paper"})
    fs::create_directories(tmp + "/ogb/" + d);
  WriteGz(tmp + "/ogb/raw/node-feat/paper/node-feat.csv.gz", feat.str());
  WriteGz(tmp + "/ogb/raw/node-label/paper/node-label.csv.gz", label.str());
  const char* names[] = {"train", "valid", "test"};
  for (int v = 0; v < 3; ++v) WriteGz(tmp + "/ogb/split/time/paper/" + names[v] + ".csv.gz", split[v].str());
  REQUIRE(NpyWrite(tmp + "/typed/nodes/paper/features.npy", f).ok());
  REQUIRE(NpyWrite(tmp + "/typed/nodes/paper/labels.npy", Int64Column(labels, 1)).ok());
  REQUIRE(NpyWrite(tmp + "/typed/nodes/paper/split.npy", sp).ok());
}

// A small graph in ogbn-mag's layout (tmp/ogb) and as a typed dataset directory
// (tmp/typed); edge types in the order OGB's relation directories sort.
void WriteMagBoth(const std::string& tmp) {
  std::mt19937_64 rng(11);
  fs::create_directories(tmp + "/ogb/raw");
  fs::create_directories(tmp + "/typed/edges");
  fs::create_directories(tmp + "/typed/nodes/paper");
  WriteGz(tmp + "/ogb/raw/num-node-dict.csv.gz", "author,field_of_study,institution,paper\n120,30,10,200\n");
  WriteRelation(tmp, rng, "author", "affiliated_with", "institution", 120, 10, 150);
  WriteRelation(tmp, rng, "author", "writes", "paper", 120, 200, 500);
  WriteRelation(tmp, rng, "paper", "cites", "paper", 200, 200, 600);
  WriteRelation(tmp, rng, "paper", "has_topic", "field_of_study", 200, 30, 400);
  WritePapers(tmp, rng, 200);
  std::ofstream(tmp + "/typed/meta.json")
      << R"({"node_types": {"author": 120, "field_of_study": 30, "institution": 10, "paper": 200},
  "edge_types": [["author", "affiliated_with", "institution"], ["author", "writes", "paper"],
                 ["paper", "cites", "paper"], ["paper", "has_topic", "field_of_study"]],
  "target": "paper"})";
}

}  // namespace

TEST_CASE("MPI partition --format ogb: the partition of the same graph as .npy, byte for byte", "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  GenerateBoth(tmp.path());
  // Each rank parses OGB's edge file up to the end of its rows (the last to the
  // end): 1, 2 and 3 ranks, each against the .npy columns' rows.
  for (auto [method, ranks] : std::vector<std::pair<std::string, int>>{{"scotch", 2}, {"random", 1}, {"random", 2},
                                                                        {"random", 3}}) {
    const std::string tag = method + std::to_string(ranks);
    INFO(tag);
    auto part = [&](const std::string& dataset, std::vector<std::string> extra, const std::string& out) {
      std::vector<std::string> args = {"--dataset", tmp / dataset, "--num-parts", "2", "--method", method,
                                       "--undirected", "--seed", "7", "--balance", "train", "--name", "g",
                                       "--out", tmp / out};
      args.insert(args.end(), extra.begin(), extra.end());
      auto r = RunMpi(ranks, args, tmp / ("log-" + out));
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
    };
    part("npy", {}, "npy-" + tag);
    part("ogb", {"--format", "ogb"}, "ogb-" + tag);
    RequireSameTree(tmp / ("npy-" + tag), tmp / ("ogb-" + tag), 9);
    CHECK(NoTraceOf(tmp.path(), "spill"));
  }
}

TEST_CASE("MPI partition --format ogb: each rank parses its share of every CSV, the node files gathered whole",
          "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  GenerateBoth(tmp.path());
  auto part = [&](const std::string& dataset, std::vector<std::string> extra, const std::string& out,
                  const std::vector<std::string>& env) {
    std::vector<std::string> args = {"--dataset", tmp / dataset, "--num-parts", "2", "--method", "random",
                                     "--undirected", "--seed", "7", "--name", "g", "--out", tmp / out};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunMpi(3, args, tmp / ("log-" + out), 180, env);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return r.output;
  };
  part("npy", {}, "parts-npy", {});
  // Shares broadcast and the split combined 100 bytes at a time: many calls per rank.
  const std::string log = part("ogb", {"--format", "ogb"}, "parts-ogb", {"DISTGNN_TEST_MPI_MAX_COUNT=100"});
  RequireSameTree(tmp / "parts-npy", tmp / "parts-ogb", 9);
  const std::string feat = tmp / "ogb/raw/node-feat.csv.gz", edges = tmp / "ogb/raw/edge.csv.gz";
  for (const std::string& line : {"rank 0 parsed rows [0, 200) of " + feat, "rank 2 parsed rows [400, 600) of " + feat,
                                  "rank 1 parsed rows [2000, 4000) of " + edges})
    CHECK(log.find("input: " + line) != std::string::npos);
}

TEST_CASE("MPI partition --format ogb: a bad node CSV line in one rank's share names OGB's file, line and rank",
          "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  GenerateBoth(tmp.path());
  const std::string feat = tmp / "ogb/raw/node-feat.csv.gz";
  fs::create_directories(tmp / "outs");
  auto run = [&](const std::string& text) {
    WriteGz(feat, text);
    auto r = RunMpi(2, {"--dataset", tmp / "ogb", "--format", "ogb", "--num-parts", "2", "--method", "random",
                        "--name", "g", "--out", tmp / "outs/g"},
                    tmp / "log", 60);
    CHECK(fs::is_empty(tmp / "outs"));
    return r;
  };
  std::string rows;
  for (int i = 0; i < 600; ++i) rows += i == 449 ? "1,2,3\n" : "1,2,3,4\n";
  auto r = run(rows);  // line 450 is rank 1's (rows [300, 600)), which alone parses it
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(feat + ":450: 3 values, line 1 has 4") != std::string::npos);
  CHECK(r.output.find(feat + ":450") == r.output.rfind(feat + ":450"));
  CHECK(r.output.find("rank 1 on ") != std::string::npos);

  r = run(rows.substr(0, rows.find("1,2,3\n")));  // 449 rows: rank 1's share ends early
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(feat + ": 449 rows, expected 600 (one per node)") != std::string::npos);
}

TEST_CASE("MPI partition --format ogb: an edge file with fewer edges than num-edge-list is one error",
          "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  GenerateBoth(tmp.path());
  WriteGz(tmp / "ogb/raw/num-edge-list.csv.gz", "6001\n");  // the file holds 6000
  fs::create_directories(tmp / "outs");
  auto r = RunMpi(2, {"--dataset", tmp / "ogb", "--format", "ogb", "--num-parts", "2", "--method", "random",
                      "--name", "g", "--out", tmp / "outs/g"},
                  tmp / "log");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("edge.csv.gz: has 6000 edges, expected 6001 (the dataset's edge count)") != std::string::npos);
  CHECK(r.output.find("rank 1 on ") != std::string::npos);
  CHECK(fs::is_empty(tmp / "outs"));
}

TEST_CASE("MPI partition --format ogb: ogbn-mag's typed layout as the same typed dataset directory, byte for byte",
          "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  WriteMagBoth(tmp.path());
  for (const std::string method : {"scotch", "random"}) {
    INFO(method);
    auto part = [&](const std::string& dataset, std::vector<std::string> extra, const std::string& out) {
      std::vector<std::string> args = {"--dataset", tmp / dataset, "--num-parts", "2", "--method", method,
                                       "--undirected", "--seed", "3", "--name", "mag", "--out", tmp / out};
      args.insert(args.end(), extra.begin(), extra.end());
      auto r = RunMpi(2, args, tmp / ("log-" + out));
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
    };
    part("typed", {}, "typed-" + method);
    part("ogb", {"--format", "ogb"}, "ogb-" + method);
    RequireSameTree(tmp / ("typed-" + method), tmp / ("ogb-" + method), 9);
  }
  CHECK(fs::exists(tmp / "ogb-scotch/part1/node_data/paper/features.npy"));
}

TEST_CASE("MPI partition --format ogb: a bad edge line names OGB's file, line and rank, and leaves nothing",
          "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  GenerateBoth(tmp.path());
  const std::string edges = tmp / "ogb/raw/edge.csv.gz";
  WriteGz(edges, "0,1\n2,3\n4;5\n");
  fs::create_directories(tmp / "outs");
  auto r = RunMpi(2, {"--dataset", tmp / "ogb", "--format", "ogb", "--num-parts", "2", "--name", "g", "--out",
                      tmp / "outs/g"},
                  tmp / "log", 60);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(edges + ":3") != std::string::npos);
  CHECK(r.output.find(edges + ":3") == r.output.rfind(edges + ":3"));  // once, not once per rank
  CHECK(r.output.find("rank 0 on ") != std::string::npos);
  CHECK(r.output.find("spill") == std::string::npos);
  CHECK(fs::is_empty(tmp / "outs"));

  // Typed: the message names OGB's relation file, not its link in the scratch directory.
  WriteMagBoth(tmp / "mag");
  const std::string rel = tmp / "mag/ogb/raw/relations/author___writes___paper/edge.csv.gz";
  WriteGz(rel, "0,1\n1,500\n");
  r = RunMpi(2, {"--dataset", tmp / "mag/ogb", "--format", "ogb", "--num-parts", "2", "--name", "g", "--out",
                 tmp / "outs/g"},
             tmp / "log-mag", 60);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(rel) != std::string::npos);
  CHECK(r.output.find("spill") == std::string::npos);
  CHECK(fs::is_empty(tmp / "outs"));
}
