// Block 0 aggregated by the servers on a typed partition, end to end: bundled
// IMDB (--undirected), 2 partitions on 2 machines of 127.0.0.1, RGCN with
// learnt rows for the featureless types (a DistEmbedding, whose relations stay
// per source row). With train.input_aggregation on, made by trainer threads or
// by a sampler process, every epoch's training loss is within 1% of the job's
// with it off and test accuracy within a point (the same edges; only the
// order of float additions differs), the trainer says it aggregates, and
// fewer feature bytes come back.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

namespace {

constexpr int kEpochs = 4;

void WriteJob(const TempDir& dir, const std::string& name, int samplers_per_trainer, const std::string& aggregation) {
  const int base = FreePortRange(5);
  std::ofstream y(dir / (name + ".yaml"));
  y << "job: " << name << "\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers_per_trainer << "}\n"
    << "train: {model: rgcn.pt, fanouts: [10, 10], batch_size: 64, epochs: " << kEpochs
    << ", lr: 0.005, seed: 0, intra_op_threads: 1, input_aggregation: " << aggregation << "}\noutput_dir: runs\n";
}

struct Run {
  std::vector<double> loss;  // per epoch
  double test_acc = 0;
  std::string log;  // trainer 0's
};

Run Launch(const TempDir& dir, const std::string& name) {
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / (name + ".yaml")}, dir / (name + ".log"));
  const int rc = launch.Wait(300);
  const std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  Run run;
  const std::string metrics_path = dir / ("runs/" + name + "/metrics.jsonl");
  const std::string metrics = ReadFile(metrics_path);
  const std::regex loss("\"epoch\": *[0-9]+, \"loss\": *([0-9.eE+-]+)");
  for (auto it = std::sregex_iterator(metrics.begin(), metrics.end(), loss); it != std::sregex_iterator(); ++it)
    run.loss.push_back(std::stod((*it)[1]));
  run.test_acc = FinalTestAcc(metrics_path);
  run.log = ReadFile(dir / ("runs/" + name + "/logs/0-trainer-0.log"));
  return run;
}

// Bytes trainer 0 received in messages of `type` (its "bytes by message" line).
uint64_t Received(const std::string& log, const std::string& type) {
  std::smatch m;
  if (!std::regex_search(log, m, std::regex("[:;] " + type + " sent [0-9]+ received ([0-9]+)"))) return 0;
  return std::stoull(m[1]);
}

}  // namespace

TEST_CASE("typed IMDB with block 0 aggregated by the servers trains as with every row pulled",
          "[launch][typed][aggregate]") {
  TempDir dir;
  auto r = RunDistgnn({"partition", "--dataset", SourceDir() + "/data/imdb-hetero", "--undirected", "--num-parts",
                       "2", "--name", "imdb", "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--hidden", "64",
                  "--seed", "0", "-o", dir / "rgcn.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  WriteJob(dir, "off", 0, "off");
  WriteJob(dir, "on", 0, "on");
  WriteJob(dir, "on_sampler", 1, "on");
  const Run off = Launch(dir, "off");
  const Run on = Launch(dir, "on");
  const Run on_sampler = Launch(dir, "on_sampler");
  WARN("IMDB RGCN test accuracy: aggregation off " << off.test_acc << ", on " << on.test_acc
                                                  << ", on by a sampler process " << on_sampler.test_acc);
  REQUIRE(off.loss.size() == static_cast<size_t>(kEpochs));
  for (const Run* run : {&on, &on_sampler}) {
    REQUIRE(run->loss.size() == off.loss.size());
    for (size_t e = 0; e < off.loss.size(); ++e) {
      WARN("epoch " << e << " loss: off " << off.loss[e] << ", on " << run->loss[e]);
      INFO("epoch " << e << ": loss off " << off.loss[e] << ", on " << run->loss[e]);
      CHECK(std::fabs(run->loss[e] - off.loss[e]) <= 0.01 * off.loss[e]);
    }
    CHECK(std::fabs(run->test_acc - off.test_acc) <= 0.01);
  }
  CHECK(off.test_acc > 0.5);
  INFO(on.log);
  CHECK(on.log.find("input rows: aggregated") != std::string::npos);
  CHECK(off.log.find("input rows: pulled") != std::string::npos);
  // Trainer threads: the movie rows behind the rev_ relations come as one
  // mean per destination (PULL_BLOCK) instead of row by row (PULL).
  const uint64_t off_rows = Received(off.log, "PULL") + Received(off.log, "PULL_BLOCK");
  const uint64_t on_rows = Received(on.log, "PULL") + Received(on.log, "PULL_BLOCK");
  WARN("trainer 0's PULL + PULL_BLOCK bytes: aggregation off " << off_rows << ", on " << on_rows);
  CHECK(on_rows < off_rows);
}
