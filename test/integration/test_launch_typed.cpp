// `distgnn launch` on a typed partition with the real roles: bundled IMDB
// (--undirected), 2 partitions, 2 machines of 127.0.0.1 with a server and a
// trainer each, RGCN with learnt rows for the featureless types (export's
// default, which the job and train-local take from the model file), once
// with the trainers sampling in their own threads and once with a sampler
// process per trainer. Test accuracy (at the best validation epoch) must be
// within one point of train-local's with the same model, seed and epochs
// (each trainer takes half of train-local's batch, so a step sees as many
// seeds), and nothing may be left running.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

namespace {

constexpr int kEpochs = 5;

void WriteTypedJob(const TempDir& dir, const std::string& name, int samplers_per_trainer) {
  const int base = FreePortRange(5);
  std::ofstream y(dir / (name + ".yaml"));
  y << "job: " << name << "\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers_per_trainer << "}\n"
    << "train: {model: rgcn.pt, fanouts: [10, 10], batch_size: 64, epochs: " << kEpochs
    << ", lr: 0.005, seed: 0, intra_op_threads: 1}\noutput_dir: runs\n";
}

double LaunchTestAcc(const TempDir& dir, const std::string& name) {
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / (name + ".yaml")}, dir / (name + ".log"));
  const int rc = launch.Wait(300);
  const std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
  return FinalTestAcc(dir / ("runs/" + name + "/metrics.jsonl"));
}

}  // namespace

TEST_CASE("launch trains RGCN on a 2-partition typed IMDB within a point of train-local", "[launch][typed]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--name", "imdb", "--out",
                       dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // The types, feature widths and relations come from the partition.
  r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--hidden", "64",
                  "--bases", "2", "--seed", "0", "-o", dir / "rgcn.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // 2669 movie features + 64 embedding columns (the hidden width, by default)
  CHECK(r.output.find("2733 -> 64 -> 3; featureless types: 64 learnt columns per node") != std::string::npos);
  r = RunDistgnn({"train-local", "--dataset", imdb, "--undirected", "--model", dir / "rgcn.pt", "--fanouts", "10,10", "--batch-size", "128", "--epochs", std::to_string(kEpochs), "--lr", "0.005",
                  "--seed", "0", "--threads", "1", "--out", dir / "local"},
                 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double local = FinalTestAcc(dir / "local/metrics.jsonl");
  WriteTypedJob(dir, "threads", 0);
  WriteTypedJob(dir, "samplers", 1);
  const double threads = LaunchTestAcc(dir, "threads");
  const double samplers = LaunchTestAcc(dir, "samplers");
  // The job's YAML names no embedding: the trainers take the model's.
  CHECK(ReadFile(dir / "runs/threads/logs/0-trainer-0.log").find("node embedding: 64 learnt columns per node") !=
        std::string::npos);
  WARN("IMDB RGCN test accuracy: train-local " << local << ", launch (sampling threads) " << threads
                                               << ", launch (sampler processes) " << samplers);
  CHECK(local > 0.5);  // well above the majority class (0.36)
  CHECK(std::fabs(threads - local) <= 0.01);
  CHECK(std::fabs(samplers - local) <= 0.01);
}

TEST_CASE("a typed partition refuses an untyped model and export refuses mixed sources, with messages", "[launch][typed]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--method", "random",
                       "--name", "imdb", "--out", dir / "parts"},
                      120);
  REQUIRE(r.exit_code == 0);
  // model export --partition-config: the partition's edge types already hold the rev_ relations.
  r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--undirected",
                  "-o", dir / "x.pt"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--undirected goes with --dataset") != std::string::npos);
  r = RunDistgnn({"model", "export", "--arch", "hetero-sage", "--partition-config", dir / "parts/imdb.json", "--dataset",
                  imdb, "-o", dir / "x.pt"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--dataset DIR or --partition-config NAME.json (one of them)") != std::string::npos);
  r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "2669", "--hidden", "8", "--classes", "3", "-o",
                  dir / "rgcn.pt"});
  REQUIRE(r.exit_code == 0);
  WriteTypedJob(dir, "untyped_model", 0);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "untyped_model.yaml"}, dir / "launch.log");
  CHECK(launch.Wait(120) != 0);
  const std::string out = launch.Output() + ReadFile(dir / "runs/untyped_model/logs/0-trainer-0.log");
  INFO(out);
  CHECK(out.find("is not a typed model") != std::string::npos);
  CHECK(FindProcesses("--job-id " + JobId(launch.Output())).empty());
}
