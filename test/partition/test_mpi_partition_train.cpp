// A partition from distgnn-mpi-partition trains like METIS's: the 2-machine
// Cora job of cora_launch_job.h (60 epochs, `distgnn launch` with the real
// roles on 127.0.0.1) runs once on the METIS partition and once on the MPI
// partitioner's cluster method (2 ranks, K = 2; its default plan gives METIS's
// parts on a graph this small), with the same model and
// YAML. The final test accuracy on the MPI parts is at least METIS's minus one
// point, and both clear the bar every Cora launch test holds (0.78).
#include <catch2/catch.hpp>

#include <filesystem>

#include "test/integration/cora_launch_job.h"
#include "test/support/skip.h"

using namespace dg::test;
namespace fs = std::filesystem;

namespace {

double Train(const TempDir& dir, const std::string& tag) {
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "output_dir=runs-" + tag}, dir / ("launch-" + tag));
  const int rc = launch.Wait(600);
  INFO(launch.Output());
  REQUIRE(rc == 0);
  return FinalTestAcc(dir / ("runs-" + tag + "/cora/metrics.jsonl"));
}

}  // namespace

TEST_CASE("Cora on the MPI partition trains to within a point of METIS's partition", "[partition][mpi][cora]") {
  const std::string mpi_bin = (fs::path(DistgnnBin()).parent_path() / "distgnn-mpi-partition").string();
  if (!fs::exists(mpi_bin) || !fs::exists("/usr/bin/mpirun")) DG_SKIP_OR_FAIL(mpi_bin + " or /usr/bin/mpirun missing");
  TempDir dir;
  PrepareCoraLaunch(dir);  // METIS parts in dir/parts, the model and job.yaml
  const double metis = Train(dir, "metis");
  Subprocess part;
  part.Start({"/usr/bin/mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", "--host", "127.0.0.1:2", mpi_bin,
              "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "cluster", "--name", "cora",
              "--out", dir / "parts", "--force"},
             dir / "mpi.log");
  const int rc = part.Wait(180);
  INFO(part.Output());
  REQUIRE(rc == 0);
  REQUIRE(part.Output().find("partition (MPI, 2 ranks)") != std::string::npos);
  const double mpi = Train(dir, "mpi");
  INFO("test accuracy: METIS " << metis << ", MPI partition " << mpi);
  CHECK(metis >= 0.78);
  CHECK(mpi >= 0.78);
  CHECK(mpi >= metis - 0.01);
}
