// distgnn-mpi-partition's default plan (--method auto) under a real `mpirun`
// on 127.0.0.1: a graph whose arcs fit rank 0 is gathered there and
// partitioned by METIS as `distgnn partition --method metis` partitions it.
// On Cora (--undirected, with and without --balance train,edges) and on typed
// IMDB (--undirected --balance train: one constraint per node type) with 2
// ranks, the log names the plan, NAME.json records "metis", and the partition
// is the single-machine one byte for byte: the same node -> part map
// (orig_nids.npy), the same edge cut in NAME.json, every file equal; every
// part within 5 % of the mean. Past the limit (a small --cluster-max-arcs)
// the cluster plan runs and writes what --method cluster writes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "common/storage/dataset.h"
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

// `distgnn partition --method metis` and the MPI partitioner's default plan
// on 2 ranks, with the same dataset flags; returns their NAME.json paths.
std::pair<std::string, std::string> BothWays(const TempDir& tmp, const std::string& tag,
                                             const std::vector<std::string>& flags, std::string* mpi_log) {
  std::vector<std::string> metis = {"partition", "--method", "metis", "--name", "g", "--out", tmp / ("metis" + tag)};
  metis.insert(metis.end(), flags.begin(), flags.end());
  auto m = RunDistgnn(metis);
  INFO(m.output);
  REQUIRE(m.exit_code == 0);
  std::vector<std::string> mpi = {"--name", "g", "--out", tmp / ("mpi" + tag)};
  mpi.insert(mpi.end(), flags.begin(), flags.end());
  auto r = RunMpi(2, mpi, tmp / ("log" + tag));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  *mpi_log = r.output;
  return {tmp / ("metis" + tag + "/g.json"), tmp / ("mpi" + tag + "/g.json")};
}

// The MPI run took the whole-graph plan and wrote METIS's partition: the same
// cut and node -> part map, every file the same bytes.
PartitionConfig RequireSinglemachineMetis(const std::string& metis_json, const std::string& mpi_json,
                                          const std::string& log, size_t min_files) {
  INFO(log);
  CHECK(std::regex_search(log, std::regex("plan: the graph's [0-9]+ arcs fit rank 0 \\(limit [0-9]+, "
                                          "--cluster-max-arcs\\): METIS on the whole graph")));
  CHECK(log.find("cut: ") != std::string::npos);
  CHECK(log.find(" edges from METIS on the whole graph, its parts kept") != std::string::npos);
  auto metis = LoadAnyPartitionConfig(metis_json);
  auto mpi = LoadAnyPartitionConfig(mpi_json);
  REQUIRE(metis.ok());
  REQUIRE(mpi.ok());
  CHECK(mpi->part_method == "metis");
  CHECK(mpi->edge_cut == metis->edge_cut);
  CHECK(mpi->edge_cut > 0);
  const std::string metis_dir = fs::path(metis_json).parent_path(), mpi_dir = fs::path(mpi_json).parent_path();
  CHECK(ReadAll(mpi_dir + "/orig_nids.npy") == ReadAll(metis_dir + "/orig_nids.npy"));
  for (int p = 0; p < mpi->num_parts; ++p) CHECK(mpi->parts[p].num_nodes == metis->parts[p].num_nodes);
  RequireSameTree(metis_dir, mpi_dir, min_files);
  return *mpi;
}

// Every part within 5 % of the mean in nodes, and in train nodes and
// in-edges when they are balanced.
void CheckEvenParts(const PartitionConfig& cfg, bool train_and_edges) {
  int64_t edges = 0, train = 0;
  for (const PartInfo& pi : cfg.parts) edges += pi.num_edges, train += pi.num_train;
  const double k = cfg.num_parts;
  for (const PartInfo& pi : cfg.parts) {
    CHECK(pi.num_nodes <= 1.05 * cfg.num_nodes / k);
    if (!train_and_edges) continue;
    CHECK(pi.num_edges <= 1.05 * edges / k);
    CHECK(pi.num_train <= 1.05 * train / k);
  }
}

}  // namespace

TEST_CASE("MPI partition, default plan: Cora fits rank 0 and gets METIS's partition byte for byte",
          "[partition][mpi][whole]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  const ReferenceGraph g = LoadReference(CoraDir(), true);
  TempDir tmp;
  for (const bool balance : {false, true}) {
    const std::string tag = balance ? "balanced" : "plain";
    std::vector<std::string> flags = {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--seed", "7"};
    if (balance) flags.insert(flags.end(), {"--balance", "train,edges"});
    std::string log;
    const auto [metis, mpi] = BothWays(tmp, tag, flags, &log);
    INFO(tag);
    const PartitionConfig cfg = RequireSinglemachineMetis(metis, mpi, log, 2 * 9 + 3);
    CheckPartition(mpi, g, 2);
    CheckEvenParts(cfg, balance);
  }
}

TEST_CASE("MPI partition, default plan: typed IMDB fits rank 0 and gets METIS's partition byte for byte",
          "[partition][mpi][whole][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  auto ds = LoadTypedDataset(ImdbDir(), true);
  REQUIRE(ds.ok());
  TempDir tmp;
  std::string log;
  const auto [metis, mpi] = BothWays(
      tmp, "imdb", {"--dataset", ImdbDir(), "--undirected", "--num-parts", "2", "--balance", "train"}, &log);
  const PartitionConfig cfg = RequireSinglemachineMetis(metis, mpi, log, 2 * 9 + 3);
  CheckTypedPartition(mpi, *ds, 2);
  CheckEvenParts(cfg, true);
  for (int t = 0; t < cfg.num_node_types(); ++t) {  // METIS's constraint per node type
    const double mean = static_cast<double>(cfg.num_nodes_per_type[t]) / cfg.num_parts;
    for (int p = 0; p < cfg.num_parts; ++p) {
      INFO("part " << p << " type " << cfg.node_types[t]);
      CHECK(cfg.node_type_offsets[p][t + 1] - cfg.node_type_offsets[p][t] <= 1.05 * mean + 1);
    }
  }
}

TEST_CASE("MPI partition, default plan: a graph past --cluster-max-arcs is clustered", "[partition][mpi][whole]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  // Cora's 10,556 arcs pass a limit of 10,000; its cluster graph stays within it.
  auto run = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--balance",
                                     "train", "--name", "cora", "--out", tmp / out, "--cluster-max-arcs", "10000"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunMpi(2, args, tmp / ("log-" + out));
  };
  auto fallback = run("auto", {});
  INFO(fallback.output);
  REQUIRE(fallback.exit_code == 0);
  CHECK(fallback.output.find("plan: the graph's 10556 arcs are more than rank 0 partitions (limit 10000, "
                             "--cluster-max-arcs): clusters") != std::string::npos);
  CHECK(fallback.output.find("arcs between them, partitioned by METIS on rank 0") != std::string::npos);
  CHECK(fallback.output.find(" edges from METIS on the clusters, ") != std::string::npos);
  auto cfg = LoadAnyPartitionConfig(tmp / "auto/cora.json");
  REQUIRE(cfg.ok());
  CHECK(cfg->part_method == "cluster");
  auto cluster = run("cluster", {"--method", "cluster"});
  INFO(cluster.output);
  REQUIRE(cluster.exit_code == 0);
  CHECK(cluster.output.find("plan: ") == std::string::npos);
  RequireSameTree(tmp / "cluster", tmp / "auto", 2 * 9 + 3);
}
