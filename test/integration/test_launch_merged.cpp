// `distgnn launch` on a merged typed partition (partition --merge-types) with
// the real roles: bundled IMDB (--undirected), 2 partitions, 2 machines of
// 127.0.0.1 with a server and a trainer each, homogeneous SAGE over the merged
// graph with a 64-wide node embedding beside the padded features (what
// train-local --merge-types --embedding-dim 64 trains). Test accuracy at the
// best validation epoch must be within one point of train-local's with the
// same model, seed and epochs (each trainer takes half of train-local's batch),
// and nothing may be left running.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

namespace {

constexpr int kEpochs = 5;

}  // namespace

TEST_CASE("launch trains merged SAGE on a 2-partition merged IMDB within a point of train-local --merge-types",
          "[launch][typed]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--merge-types", "--num-parts", "2", "--name",
                       "imdb", "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // 2669 movie features (the widest type) + 64 embedding columns.
  r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "2733", "--hidden", "64", "--classes", "3",
                  "--input-dropout", "0.5", "--seed", "0", "-o", dir / "sage.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"train-local", "--dataset", imdb, "--undirected", "--merge-types", "--model", dir / "sage.pt",
                  "--embedding-dim", "64", "--fanouts", "10,10", "--batch-size", "128", "--epochs",
                  std::to_string(kEpochs), "--lr", "0.005", "--seed", "0", "--threads", "1", "--out", dir / "local"},
                 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double local = FinalTestAcc(dir / "local/metrics.jsonl");
  const int base = FreePortRange(5);
  {
    std::ofstream y(dir / "merged.yaml");
    y << "job: merged\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
      << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}\n"
      << "train: {model: sage.pt, fanouts: [10, 10], batch_size: 64, epochs: " << kEpochs
      << ", lr: 0.005, seed: 0, intra_op_threads: 1, embedding: {dim: 64, lr: 0.01}}\noutput_dir: runs\n";
  }
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "merged.yaml"}, dir / "merged.log");
  const int rc = launch.Wait(300);
  const std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
  const double dist = FinalTestAcc(dir / "runs/merged/metrics.jsonl");
  WARN("IMDB merged SAGE test accuracy: train-local --merge-types " << local << ", launch " << dist);
  CHECK(local > 0.5);  // well above the majority class (0.36)
  CHECK(std::fabs(dist - local) <= 0.01);
}
