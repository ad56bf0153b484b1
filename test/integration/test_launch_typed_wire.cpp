// 16-bit feature rows on a typed partition, end to end: bundled IMDB
// (--undirected), 2 partitions on 2 machines of 127.0.0.1, RGCN with a node
// embedding for the featureless types (as test_launch_typed.cpp). With
// train.feature_wire_dtype float16 or bfloat16 each type's remote feature rows
// come by PULL_BLOCK in that dtype, made by trainer threads (float16 here) or
// by a sampler process (bfloat16 here; it sends them on to its trainer in 16
// bits too: the same path takes either dtype); test accuracy
// stays within half a point of the float32 job's (IMDB's 0/1 features are
// exact in 16 bits), and the feature bytes trainer 0 receives are fewer.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <string>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

namespace {

constexpr int kEpochs = 5;

void WriteJob(const TempDir& dir, const std::string& name, int samplers_per_trainer, const std::string& wire) {
  const int base = FreePortRange(5);
  std::ofstream y(dir / (name + ".yaml"));
  y << "job: " << name << "\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers_per_trainer << "}\n"
    << "train: {model: rgcn.pt, fanouts: [10, 10], batch_size: 64, epochs: " << kEpochs
    << ", lr: 0.005, seed: 0, intra_op_threads: 1, feature_wire_dtype: " << wire
    << ", embedding: {dim: 64, lr: 0.01}}\noutput_dir: runs\n";
}

struct Run {
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
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
  return {FinalTestAcc(dir / ("runs/" + name + "/metrics.jsonl")), ReadFile(dir / ("runs/" + name + "/logs/0-trainer-0.log"))};
}

// Bytes trainer 0 received in messages of `type` (its "bytes by message" line).
uint64_t Received(const std::string& log, const std::string& type) {
  std::smatch m;
  if (!std::regex_search(log, m, std::regex("[:;] " + type + " sent [0-9]+ received ([0-9]+)"))) return 0;
  return std::stoull(m[1]);
}

}  // namespace

TEST_CASE("typed IMDB with float16 and bfloat16 feature rows trains within half a point of float32",
          "[launch][typed][wire]") {
  TempDir dir;
  const std::string imdb = SourceDir() + "/data/imdb-hetero";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--name", "imdb", "--out",
                       dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json", "--embedding-dim",
                  "64", "--hidden", "64", "--bases", "2", "--seed", "0", "-o", dir / "rgcn.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  WriteJob(dir, "f32", 0, "float32");
  WriteJob(dir, "f16", 0, "float16");
  WriteJob(dir, "bf16_sampler", 1, "bfloat16");
  const Run f32 = Launch(dir, "f32");
  const Run f16 = Launch(dir, "f16");
  const Run bf16_sampler = Launch(dir, "bf16_sampler");
  WARN("IMDB RGCN test accuracy: float32 " << f32.test_acc << ", float16 " << f16.test_acc
                                          << ", bfloat16 by a sampler process " << bf16_sampler.test_acc);
  CHECK(f32.test_acc > 0.5);
  CHECK(std::fabs(f16.test_acc - f32.test_acc) <= 0.005);
  CHECK(std::fabs(bf16_sampler.test_acc - f32.test_acc) <= 0.005);
  INFO(f16.log);
  CHECK(f16.log.find("float16 on the wire") != std::string::npos);
  // Trainer threads: the remote feature rows come by PULL_BLOCK at 2 bytes a
  // value instead of by PULL at 4 (labels and embedding rows still by PULL).
  const uint64_t f32_rows = Received(f32.log, "PULL");
  const uint64_t f16_rows = Received(f16.log, "PULL") + Received(f16.log, "PULL_BLOCK");
  CHECK(Received(f32.log, "PULL_BLOCK") == 0);
  CHECK(Received(f16.log, "PULL_BLOCK") > 0);
  CHECK(f16_rows < f32_rows * 0.75);
  // Sampler processes: the MINIBATCH stream carries 16-bit rows.
  CHECK(Received(bf16_sampler.log, "MINIBATCH") > 0);
}
