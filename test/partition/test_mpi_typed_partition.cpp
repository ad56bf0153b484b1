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
#include <catch2/catch.hpp>

#include <filesystem>

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
                       "--balance", "train", "--name", "imdb", "--out", out});
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
  auto args = [&](int k, const std::string& out) {
    return std::vector<std::string>{"--dataset", ImdbDir(), "--undirected", "--num-parts", std::to_string(k),
                                    "--balance", "train", "--name", "imdb", "--out", out, "--seed", "3"};
  };
  for (auto [np, k] : std::vector<std::pair<int, int>>{{2, 2}, {2, 3}}) {
    const std::string tag = std::to_string(np) + "-" + std::to_string(k);
    const std::string out = tmp / ("imdb" + tag);
    auto r = RunMpi(np, args(k, out), tmp / ("log" + tag));
    INFO("P=" << np << " K=" << k << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("typed: 4 node types, 6 edge types") != std::string::npos);
    for (const char* type : {"movie", "director", "actor", "keyword"})
      CHECK(r.output.find(std::string("balance type ") + type + ": largest part") != std::string::npos);
    const PartitionConfig cfg = CheckTypedPartition(out + "/imdb.json", *ds, k);
    CHECK(cfg.part_method == "scotch");
    CHECK(cfg.num_classes == 3);
    CheckTypeBalance(cfg, 0.10);
    CheckNodeAndTrainBalance(cfg);
    CheckAggregateIndex(cfg, tmp / ("agg" + tag));
    auto v = RunDistgnn({"partition", "verify", out + "/imdb.json"});
    INFO(v.output);
    CHECK(v.exit_code == 0);
    CHECK(NoTraceOf(tmp.path(), ".imdb" + tag + "."));
    const int64_t metis = MetisCut(tmp, k);
    WARN("IMDB K=" << k << " P=" << np << ": PT-Scotch cut " << cfg.edge_cut << " of " << cfg.num_edges
                   << " edges, METIS " << metis);
  }
  // The same P, K and seed: the same bytes, file for file.
  auto r = RunMpi(2, args(3, tmp / "again"), tmp / "log-again");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  RequireSameTree(tmp / "imdb2-3", tmp / "again", 3 * 11 + 3 + 4);
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

TEST_CASE("MPI partition of a typed dataset refuses what it does not support with one message",
          "[partition][mpi][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  auto r = RunMpi(2, {"--dataset", ImdbDir(), "--drop-duplicates", "--num-parts", "2", "--name", "x", "--out",
                      tmp / "x"},
                  tmp / "log", 60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("not supported for a typed dataset") != std::string::npos);
  CHECK(r.output.find("rank 0 on ") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "x"));
}
