// Control-variate training as a distributed job: bundled Cora in 2
// METIS partitions on 127.0.0.1, `distgnn propagate --hops 1 --norm mean`
// for the first layer's input, then `distgnn launch` with train.algorithm
// control_variate (history tensors on the servers, PULL_AGGREGATE for the
// history term): GCN with 2 neighbours reaches >= 0.78 test accuracy; plain
// 2-neighbour sampling with the same settings is reported beside it. Bad keys
// are one clear error naming the key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

namespace {

void WriteJob(const TempDir& dir, const std::string& file, const std::string& job, const std::string& train_extra,
              int base, int machines = 2, int samplers = 0) {
  std::ofstream y(dir / file);
  y << "job: " << job << "\npartition: parts" << (machines == 2 ? "" : "1") << "/cora.json\nmachines:\n";
  for (int m = 0; m < machines; ++m) y << "  - host: 127.0.0.1\n";
  y << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers << "}\n"
    << "train: {model: gcn.pt, batch_size: 32, epochs: 30, lr: 0.01, weight_decay: 0.005, seed: 0" << train_extra
    << "}\noutput_dir: runs\n";
}

// Cora (`dataset`, the bundled one by default) in `parts` METIS partitions
// (dir/parts, or dir/parts1 for one, as WriteJob names them) and a GCN export
// of `in_dim` inputs, dir/gcn.pt.
void PrepareCoraGcn(const TempDir& dir, int parts, const std::string& dataset = CoraDir(),
                    const std::string& in_dim = "1433") {
  auto r = RunDistgnn({"partition", "--dataset", dataset, "--undirected", "--num-parts", std::to_string(parts),
                       "--method", "metis", "--name", "cora", "--out", dir / (parts == 2 ? "parts" : "parts1")},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "gcn", "--in-dim", in_dim, "--hidden", "64", "--classes", "7",
                  "--dropout", "0.5", "-o", dir / "gcn.pt"},
                 120);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("launch: control-variate GCN on 2 partitions of Cora reaches >= 0.78, plain 2-neighbour beside it",
          "[launch][cora][cv]") {
  TempDir dir;
  PrepareCoraGcn(dir, 2);
  RunResult r;
  const int base = FreePortRange(5);
  WriteJob(dir, "cv.yaml", "cora-cv", ", fanouts: [2], algorithm: control_variate, cv_input: feat_mean_1", base);
  WriteJob(dir, "plain.yaml", "cora-plain", ", fanouts: [2, 2]", base);

  SECTION("training") {
    // The distributed update_all: feat_mean_1 = mean of features over the in-neighbours.
    r = RunDistgnn({"propagate", "--config", dir / "cv.yaml", "--input", "features", "--hops", "1", "--norm", "mean",
                    "--output", "feat_mean"},
                   300);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    r = RunDistgnn({"launch", dir / "cv.yaml"}, 300);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const double cv = FinalTestAcc(dir / "runs/cora-cv/metrics.jsonl");
    r = RunDistgnn({"launch", dir / "plain.yaml"}, 300);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const double plain = FinalTestAcc(dir / "runs/cora-plain/metrics.jsonl");
    WARN("Cora, 2 partitions, GCN, 2 neighbours per layer, 30 epochs: control variate test accuracy "
         << cv << ", plain sampling " << plain);
    CHECK(cv >= 0.78);
    // Trainer 0's epoch summaries, in the format launch echoes.
    CHECK(ReadFile(dir / "runs/cora-cv/logs/0-trainer-0.log").find("epoch 30: loss") != std::string::npos);
  }

  SECTION("without the propagated input: one error naming train.cv_input") {
    r = RunDistgnn({"launch", dir / "cv.yaml", "--set", "train.epochs=1"}, 300);
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("train.cv_input: 'feat_mean_1' is not a node array") != std::string::npos);
  }

  SECTION("config check names the keys") {
    WriteJob(dir, "bad1.yaml", "b", ", fanouts: [2], algorithm: vrgcn", base);
    WriteJob(dir, "bad2.yaml", "b", ", fanouts: [2], algorithm: control_variate", base);
    r = RunDistgnn({"config", "check", dir / "bad1.yaml"}, 60);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("train.algorithm") != std::string::npos);
    r = RunDistgnn({"config", "check", dir / "bad2.yaml"}, 60);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("train.cv_input") != std::string::npos);
  }
}

// The losses of every epoch line, in order.
std::vector<double> EpochLosses(const std::string& metrics_path) {
  std::vector<double> out;
  std::istringstream in(ReadFile(metrics_path));
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find("\"loss\": ");
    if (line.find("\"epoch\"") != std::string::npos && at != std::string::npos)
      out.push_back(std::stod(line.substr(at + 8)));
  }
  return out;
}

TEST_CASE("launch: control variate with 2 sampler processes equals the trainer's own threads, epoch for epoch",
          "[launch][cora][cv]") {
  TempDir dir;
  PrepareCoraGcn(dir, 1);
  RunResult r;
  const int base = FreePortRange(5);
  const std::string cv = ", fanouts: [2], algorithm: control_variate, cv_input: feat_mean_1";
  WriteJob(dir, "threads.yaml", "cv-threads", cv, base, 1, 0);
  WriteJob(dir, "samplers.yaml", "cv-samplers", cv, base, 1, 2);
  r = RunDistgnn({"propagate", "--config", dir / "threads.yaml", "--input", "features", "--hops", "1", "--norm",
                  "mean", "--output", "feat_mean"},
                 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* job : {"threads", "samplers"}) {
    r = RunDistgnn({"launch", dir / (std::string(job) + ".yaml"), "--set", "train.epochs=4"}, 300);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  CHECK(ReadFile(dir / "runs/cv-samplers/logs/0-trainer-0.log").find("2 sampler process(es)") != std::string::npos);
  const std::vector<double> a = EpochLosses(dir / "runs/cv-threads/metrics.jsonl"),
                            b = EpochLosses(dir / "runs/cv-samplers/metrics.jsonl");
  REQUIRE(a.size() == 4);
  REQUIRE(b.size() == a.size());
  for (size_t e = 0; e < a.size(); ++e) CHECK(b[e] == Approx(a[e]).epsilon(1e-5));
  CHECK(FinalTestAcc(dir / "runs/cv-samplers/metrics.jsonl") ==
        Approx(FinalTestAcc(dir / "runs/cv-threads/metrics.jsonl")).margin(1e-9));
}

// Cora without features: the input is a learnt row per node, a DistEmbedding
// on the servers whose mean over the neighbours each step reads with
// PULL_AGGREGATE (tasks/cv_task.h). One partition and one trainer equal
// train-local's in-process table epoch for epoch; 2 partitions learn.
TEST_CASE("launch: control variate with learnt rows on Cora without features equals train-local, and learns on 2 "
          "partitions",
          "[launch][cora][cv]") {
  TempDir dir;
  const std::string data = dir / "cora-featureless";
  std::filesystem::create_directories(data);
  for (const char* f : {"edges.tsv", "labels.npy", "split.npy"})
    std::filesystem::copy_file(CoraDir() + "/" + f, data + "/" + f);
  for (int parts : {1, 2}) PrepareCoraGcn(dir, parts, data, "64");
  RunResult r;
  const int base = FreePortRange(5);
  const std::string rows = ", fanouts: [2, 2], algorithm: control_variate, embedding: {dim: 64, features: false}";
  WriteJob(dir, "one.yaml", "cv-rows-1", rows, base, 1);
  WriteJob(dir, "two.yaml", "cv-rows-2", rows, base, 2);
  r = RunDistgnn({"launch", dir / "one.yaml", "--set", "train.epochs=4"}, 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"train-local", "--dataset", data, "--undirected", "--model", dir / "gcn.pt", "--algorithm",
                  "control_variate", "--fanouts", "2,2", "--batch-size", "32", "--epochs", "4", "--lr", "0.01",
                  "--weight-decay", "0.005", "--seed", "0", "--out", dir / "local"},
                 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::vector<double> job = EpochLosses(dir / "runs/cv-rows-1/metrics.jsonl"),
                            local = EpochLosses(dir / "local/metrics.jsonl");
  REQUIRE(job.size() == 4);
  REQUIRE(local.size() == job.size());
  for (size_t e = 0; e < job.size(); ++e) CHECK(job[e] == Approx(local[e]).epsilon(1e-5));

  r = RunDistgnn({"launch", dir / "two.yaml"}, 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const double acc = FinalTestAcc(dir / "runs/cv-rows-2/metrics.jsonl");
  WARN("featureless Cora, 2 partitions, control variate with learnt rows, 30 epochs: test accuracy " << acc);
  CHECK(acc >= 0.63);  // the majority class of the test nodes is 0.32
}
