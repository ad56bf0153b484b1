// A typed partition from distgnn-mpi-partition trains like METIS's: IMDB
// (--undirected) into 2 parts by METIS and by the MPI partitioner's cluster
// method (2 ranks; its default plan gives METIS's parts on a graph this small), the same
// RGCN (model export from the METIS partition: types, widths and relations;
// learnt rows for the featureless types) and the same YAML, `distgnn launch`
// with the real roles on 2 machines of 127.0.0.1. The MPI partition's final
// test accuracy is at least METIS's minus one point.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test/integration/cora_launch_job.h"
#include "test/partition/mpi_run.h"
#include "test/support/skip.h"

using namespace dg::test;
namespace fs = std::filesystem;

namespace {

constexpr int kEpochs = 5;

void WriteJob(const TempDir& dir, const std::string& partition) {
  const int base = FreePortRange(5);
  std::ofstream y(dir / "job.yaml");
  y << "job: imdb\npartition: " << partition << "\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}\n"
    << "train: {model: rgcn.pt, fanouts: [10, 10], batch_size: 64, epochs: " << kEpochs
    << ", lr: 0.005, seed: 0, intra_op_threads: 1}\noutput_dir: runs\n";
}

double Train(const TempDir& dir, const std::string& partition, const std::string& tag) {
  WriteJob(dir, partition);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "output_dir=runs-" + tag}, dir / ("launch-" + tag));
  const int rc = launch.Wait(300);
  INFO(launch.Output());
  REQUIRE(rc == 0);
  return FinalTestAcc(dir / ("runs-" + tag + "/imdb/metrics.jsonl"));
}

}  // namespace

TEST_CASE("IMDB RGCN on the MPI typed partition trains to within a point of METIS's partition",
          "[partition][mpi][typed]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--method", "metis",
                       "--name", "imdb", "--out", dir / "metis"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "metis/imdb.json", "--hidden", "64",
                  "--bases", "2", "--seed", "0", "-o", dir / "rgcn.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double metis = Train(dir, "metis/imdb.json", "metis");
  r = RunMpi(2, {"--dataset", imdb, "--undirected", "--num-parts", "2", "--method", "cluster", "--name", "imdb", "--out",
                 dir / "mpi"},
             dir / "mpi.log");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double mpi = Train(dir, "mpi/imdb.json", "mpi");
  WARN("IMDB RGCN test accuracy: METIS " << metis << ", MPI partition " << mpi);
  CHECK(metis > 0.5);  // well above the majority class (0.36)
  CHECK(mpi >= metis - 0.01);
}
