// distgnn-mpi-partition on a typed dataset (the bundled IMDB graph,
// --undirected) under a real `mpirun` on 127.0.0.1: P = K = 2 and P = 2 <
// K = 3 are checked against the input graph in memory (CheckTypedPartition:
// every edge of every type once in its destination's part with its type,
// ownership ranges, per-type node rows by orig ids, type_nids, seed files),
// `partition verify` passes, every node type is within 10 % of the mean per
// part (nodes and train nodes within 5 %), the aggregation index matches the
// single-machine writer's, and a rerun with the same P, K and seed writes the
// same bytes. The edge cut is reported beside METIS's. A generated mag-shaped
// graph (.npy edge files, a paper -> paper type) runs on 3 ranks into 4 parts.
// IMDB with added self loops and duplicates keeps, under --drop-self-loops and
// --drop-duplicates, the edge set per type of `distgnn partition`, ids included.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"
#include "test/partition/mpi_run.h"
#include "test/partition/partition_checks.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

std::string ImdbDir() { return SourceDir() + "/data/imdb-hetero"; }

// Every part's count of every node type within `tol` of that type's mean.
void CheckTypeBalance(const PartitionConfig& cfg, double tol) {
  for (int t = 0; t < cfg.num_node_types(); ++t) {
    const double mean = static_cast<double>(cfg.num_nodes_per_type[t]) / cfg.num_parts;
    for (int p = 0; p < cfg.num_parts; ++p) {
      const int64_t n = cfg.node_type_offsets[p][t + 1] - cfg.node_type_offsets[p][t];
      INFO("part " << p << " type " << cfg.node_types[t] << ": " << n << " nodes, mean " << mean);
      CHECK(n <= (1 + tol) * mean + 1);
      CHECK(n >= (1 - tol) * mean - 1);
    }
  }
}

void CheckNodeAndTrainBalance(const PartitionConfig& cfg) {
  int64_t train = 0;
  for (const PartInfo& pi : cfg.parts) train += pi.num_train;
  for (const PartInfo& pi : cfg.parts) {
    CHECK(pi.num_nodes <= 1.05 * cfg.num_nodes / cfg.num_parts + 1);
    CHECK(pi.num_train <= 1.05 * train / cfg.num_parts + 1);
  }
}

int64_t MetisCut(const TempDir& tmp, int k) {
  const std::string out = tmp / ("metis" + std::to_string(k));
  auto r = RunDistgnn({"partition", "--dataset", ImdbDir(), "--undirected", "--num-parts", std::to_string(k),
                       "--balance", "train", "--name", "imdb", "--out", out, "--force"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadAnyPartitionConfig(out + "/imdb.json");
  REQUIRE(cfg.ok());
  return cfg->edge_cut;
}

}  // namespace

TEST_CASE("MPI partition of typed IMDB: valid for P = K and P < K with every type balanced and deterministic",
          "[partition][mpi][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  auto ds = LoadTypedDataset(ImdbDir(), true);
  REQUIRE(ds.ok());
  TempDir tmp;
  auto args = [&](int k, const std::string& out, const std::string& method) {
    return std::vector<std::string>{"--dataset", ImdbDir(), "--undirected", "--num-parts", std::to_string(k),
                                    "--balance", "train", "--name", "imdb", "--out", out, "--seed", "3",
                                    "--method", method};
  };
  for (const std::string method : {"cluster", "scotch", "stream"})
    for (auto [np, k] : std::vector<std::pair<int, int>>{{2, 2}, {2, 3}}) {
      const std::string tag = method + std::to_string(np) + "-" + std::to_string(k);
      const std::string out = tmp / ("imdb" + tag);
      auto r = RunMpi(np, args(k, out, method), tmp / ("log" + tag));
      INFO(method << " P=" << np << " K=" << k << "\n" << r.output);
      REQUIRE(r.exit_code == 0);
      CHECK(r.output.find("typed: 4 node types, 6 edge types") != std::string::npos);
      for (const char* type : {"movie", "director", "actor", "keyword"})
        CHECK(r.output.find(std::string("balance type ") + type + ": largest part") != std::string::npos);
      const PartitionConfig cfg = CheckTypedPartition(out + "/imdb.json", *ds, k);
      CHECK(cfg.part_method == method);
      CHECK(cfg.num_classes == 3);
      CheckTypeBalance(cfg, 0.10);
      CheckNodeAndTrainBalance(cfg);
      CheckAggregateIndex(cfg, tmp / ("agg" + tag));
      auto v = RunDistgnn({"partition", "verify", out + "/imdb.json"});
      INFO(v.output);
      CHECK(v.exit_code == 0);
      CHECK(NoTraceOf(tmp.path(), ".imdb" + tag + "."));
      const int64_t metis = MetisCut(tmp, k);
      WARN("IMDB K=" << k << " P=" << np << ": " << method << " cut " << cfg.edge_cut << " of " << cfg.num_edges
                     << " edges, METIS " << metis);
    }
  // The same P, K and seed: the same bytes, file for file.
  auto r = RunMpi(2, args(3, tmp / "again", "cluster"), tmp / "log-again");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  RequireSameTree(tmp / "imdbcluster2-3", tmp / "again", 3 * 11 + 3 + 4);
}

TEST_CASE("MPI partition of a generated mag-shaped graph with .npy edge files on 3 ranks", "[partition][mpi][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  auto r = RunDistgnn({"generate", "--hetero", "mag", "--nodes", "5000", "--classes", "8", "--feat-dim", "8", "--seed",
                       "1", "--out", tmp / "mag"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  REQUIRE(fs::exists(tmp / "mag/edges/paper__cites__paper.npy"));
  r = RunMpi(3, {"--dataset", tmp / "mag", "--undirected", "--num-parts", "4", "--balance", "train", "--name", "mag",
                 "--out", tmp / "parts"},
             tmp / "log");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto ds = LoadTypedDataset(tmp / "mag", true);
  REQUIRE(ds.ok());
  const PartitionConfig cfg = CheckTypedPartition(tmp / "parts/mag.json", *ds, 4);
  CheckTypeBalance(cfg, 0.10);
  CheckNodeAndTrainBalance(cfg);
}

namespace {

// IMDB plus self loops and duplicates: the starring file repeats its first
// 300 lines, and two movie -> movie types share their first pairs (the same
// pair in two types is two edges), hold self loops and repeat pairs; one is
// a text file, the other an [E, 2] .npy.
void WriteImdbWithLoopsAndDuplicates(const std::string& dir) {
  fs::copy(ImdbDir(), dir, fs::copy_options::recursive);
  const std::string starring = dir + "/edges/movie__starring__actor.tsv";
  const std::string text = ReadAll(starring);
  size_t cut = 0;
  for (int k = 0; k < 300; ++k) cut = text.find('\n', cut) + 1;
  std::ofstream(starring, std::ios::app) << text.substr(0, cut);
  const int64_t movies = 4181;
  std::vector<std::pair<int64_t, int64_t>> similar, remake;
  for (int64_t i = 0; i < 3000; ++i) {
    const int64_t a = (i * 7919) % movies, b = (i * 104729 + 13) % movies;
    similar.push_back({a, i % 10 == 0 ? a : b});  // every tenth a self loop
    if (i % 3 == 0) similar.push_back({a, i % 10 == 0 ? a : b});
    if (i < 500) remake.push_back(similar.back());
    remake.push_back({b, i % 7 == 0 ? b : a});
  }
  std::ofstream sim(dir + "/edges/movie__similar__movie.tsv");
  for (auto [a, b] : similar) sim << a << '\t' << b << '\n';
  Array rm = Array::Zeros(DType::kInt64, {static_cast<int64_t>(remake.size()), 2});
  for (size_t k = 0; k < remake.size(); ++k) {
    rm.as<int64_t>()[2 * k] = remake[k].first;
    rm.as<int64_t>()[2 * k + 1] = remake[k].second;
  }
  REQUIRE(NpyWrite(dir + "/edges/movie__remake__movie.npy", rm).ok());
  std::ofstream(dir + "/meta.json") << TypedMetaJson(
      {{"movie", movies}, {"director", 2082}, {"actor", 5257}, {"keyword", 2669}},
      {{"movie", "directed_by", "director"}, {"movie", "starring", "actor"}, {"movie", "has_keyword", "keyword"},
       {"movie", "similar", "movie"}, {"movie", "remake", "movie"}},
      "movie", 3);
}

// (type-local src, type-local dst) of every edge of a typed partition, per edge type, sorted.
std::vector<std::vector<std::pair<int64_t, int64_t>>> EdgesByType(const std::string& json) {
  auto cfg = LoadAnyPartitionConfig(json);
  REQUIRE(cfg.ok());
  auto on = NpyMap(cfg->base_dir + "/" + cfg->orig_nids);
  REQUIRE(on.ok());
  const int64_t* orig = on->as<int64_t>();
  std::vector<std::vector<std::pair<int64_t, int64_t>>> out(cfg->edge_types.size());
  for (int p = 0; p < cfg->num_parts; ++p) {
    auto lp = OpenLocalPartition(*cfg, p);
    REQUIRE(lp.ok());
    const int64_t* ip = lp->indptr.as<int64_t>();
    const int64_t* ix = lp->indices.as<int64_t>();
    const uint8_t* et = lp->edge_types.as<uint8_t>();
    for (int64_t i = 0; i < lp->num_owned(); ++i)
      for (int64_t j = ip[i]; j < ip[i + 1]; ++j) out[et[j]].push_back({orig[ix[j]], orig[lp->node_begin + i]});
  }
  for (auto& v : out) std::sort(v.begin(), v.end());
  return out;
}

}  // namespace

TEST_CASE("MPI partition of a typed dataset drops self loops and duplicates per edge type as on one machine",
          "[partition][mpi][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  const std::string ds_dir = tmp / "ds";
  WriteImdbWithLoopsAndDuplicates(ds_dir);
  struct Case {
    int np;
    std::vector<std::string> flags;
    TypedLoadOptions lo;
  };
  const std::vector<Case> cases = {
      {2, {"--undirected", "--drop-self-loops", "--drop-duplicates"}, {true, true, true}},
      {3, {"--drop-self-loops"}, {false, true, false}},
      {2, {"--drop-duplicates"}, {false, false, true}},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    const std::string tag = std::to_string(c);
    std::vector<std::string> common = {"--dataset", ds_dir, "--num-parts", "2", "--name", "g"};
    common.insert(common.end(), cases[c].flags.begin(), cases[c].flags.end());
    std::vector<std::string> mpi_args = common, one_args = {"partition"};
    mpi_args.insert(mpi_args.end(), {"--out", tmp / ("mpi" + tag)});
    one_args.insert(one_args.end(), common.begin(), common.end());
    one_args.insert(one_args.end(), {"--out", tmp / ("one" + tag)});
    auto r = RunMpi(cases[c].np, mpi_args, tmp / ("log" + tag));
    INFO("case " << c << " P=" << cases[c].np << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    auto one = RunDistgnn(one_args);
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
    // Ids included: edge i of type e is NormalizeTypedEdges' edge i.
    auto ds = LoadTypedDataset(ds_dir, cases[c].lo);
    REQUIRE(ds.ok());
    CheckTypedPartition(tmp / ("mpi" + tag + "/g.json"), *ds, 2);
    const auto mpi_edges = EdgesByType(tmp / ("mpi" + tag + "/g.json"));
    const auto one_edges = EdgesByType(tmp / ("one" + tag + "/g.json"));
    REQUIRE(mpi_edges.size() == (cases[c].lo.undirected ? 10u : 5u));
    for (size_t e = 0; e < mpi_edges.size(); ++e) {
      INFO("edge type " << e);
      CHECK(mpi_edges[e].size() == one_edges[e].size());
      CHECK(mpi_edges[e] == one_edges[e]);
    }
    // The cases remove something, and the pairs the two movie types share stay in both.
    auto raw = LoadTypedDataset(ds_dir, TypedLoadOptions{});
    REQUIRE(raw.ok());
    CHECK(ds->NumEdges() < raw->NumEdges() * (cases[c].lo.undirected ? 2 : 1));
    const std::pair<int64_t, int64_t> shared{7919 % 4181, (104729 + 13) % 4181};  // i = 1 above
    for (int e : {3, 4}) CHECK(std::count(mpi_edges[e].begin(), mpi_edges[e].end(), shared) >= 1);
  }
}

TEST_CASE("MPI partition of a typed dataset refuses what it does not support with one message",
          "[partition][mpi][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  auto r = RunMpi(2, {"--dataset", ImdbDir(), "--num-nodes", "100", "--num-parts", "2", "--name", "x", "--out",
                      tmp / "x"},
                  tmp / "log", 60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("is a typed dataset; its meta.json gives the node count") != std::string::npos);
  CHECK(r.output.find("rank 0 on ") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "x"));
}
