// Fewer bytes on the wire, end to end: bundled Cora on 2 machines of
// 127.0.0.1 without sampler processes, block 0 aggregated by the servers
// (train.input_aggregation: on) with float16 rows on the wire, trains to the
// accuracy of the plain job; trainer 0 says which input path it took. With a
// sampler process per trainer the same input path trains to the accuracy of
// trainer threads (within a point, same seed) and the MINIBATCH stream
// carries block 0's mean and 16-bit rows: fewer bytes than float32 rows.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

TEST_CASE("launch with input_aggregation on and float16 rows trains Cora to >= 0.78", "[launch][cora][wire]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "processes.samplers_per_trainer=0", "--set",
                "train.input_aggregation=on", "--set", "train.feature_wire_dtype=float16"},
               dir / "launch.log");
  int rc = launch.Wait(300);
  INFO(launch.Output());
  REQUIRE(rc == 0);
  CHECK(FinalTestAcc(dir / "runs/cora/metrics.jsonl") >= 0.78);
  const std::string log = ReadFile(dir / "runs/cora/logs/0-trainer-0.log");
  CHECK(log.find("input rows: aggregated") != std::string::npos);
  CHECK(log.find("float16 on the wire") != std::string::npos);
}

namespace {

struct WireRun {
  double test_acc = 0;
  uint64_t minibatch_bytes = 0;  // MINIBATCH bytes trainer 0 received
  std::string trainer_log;
};

// Launches the Cora job with `sets` into output directory `out`.
WireRun LaunchCora(const TempDir& dir, const std::string& out, const std::vector<std::string>& sets) {
  std::vector<std::string> argv = {DistgnnBin(), "launch", dir / "job.yaml", "--set", "output_dir=" + out};
  for (const std::string& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  Subprocess launch;
  launch.Start(argv, dir / (out + ".log"));
  const int rc = launch.Wait(300);
  INFO(launch.Output());
  REQUIRE(rc == 0);
  CHECK(FindProcesses("--job-id " + JobId(launch.Output())).empty());
  WireRun r;
  r.test_acc = FinalTestAcc(dir / (out + "/cora/metrics.jsonl"));
  r.trainer_log = ReadFile(dir / (out + "/cora/logs/0-trainer-0.log"));
  std::smatch m;
  if (std::regex_search(r.trainer_log, m, std::regex("MINIBATCH sent [0-9]+ received ([0-9]+)")))
    r.minibatch_bytes = std::stoull(m[1]);
  return r;
}

}  // namespace

TEST_CASE("sampler processes send aggregated float16 or bfloat16 rows: Cora trains as in-process, fewer bytes",
          "[launch][cora][wire][sampler]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const WireRun threads = LaunchCora(dir, "threads", {"processes.samplers_per_trainer=0", "train.input_aggregation=on",
                                                      "train.feature_wire_dtype=float16"});
  const WireRun sampler = LaunchCora(dir, "sampler", {"processes.samplers_per_trainer=1", "train.input_aggregation=on",
                                                      "train.feature_wire_dtype=float16"});
  const WireRun plain = LaunchCora(dir, "plain", {"processes.samplers_per_trainer=1", "train.input_aggregation=off"});
  const WireRun bf16 = LaunchCora(dir, "bf16", {"processes.samplers_per_trainer=1", "train.input_aggregation=off",
                                                "train.feature_wire_dtype=bfloat16"});
  WARN("Cora test accuracy: trainer threads " << threads.test_acc << ", sampler process " << sampler.test_acc
                                              << " (aggregated, float16), sampler process " << plain.test_acc
                                              << " (pulled, float32); MINIBATCH bytes " << sampler.minibatch_bytes
                                              << " vs " << plain.minibatch_bytes);
  INFO(sampler.trainer_log);
  CHECK(sampler.trainer_log.find("input rows: aggregated") != std::string::npos);
  CHECK(sampler.trainer_log.find("float16 on the wire") != std::string::npos);
  CHECK(std::fabs(sampler.test_acc - threads.test_acc) <= 0.01);
  CHECK(sampler.test_acc >= 0.78);
  // Rows and means of block 0's destinations (not of its sources) at 2 bytes
  // a value: fewer bytes from the sampler than float32 rows of every input node.
  REQUIRE(plain.minibatch_bytes > 0);
  CHECK(threads.minibatch_bytes == 0);
  CHECK(sampler.minibatch_bytes > 0);
  CHECK(sampler.minibatch_bytes < plain.minibatch_bytes * 0.75);
  // bfloat16 rows without aggregation: every input node's row at half the bytes, plus ids and blocks.
  CHECK(bf16.trainer_log.find("input rows: pulled") != std::string::npos);
  CHECK(std::fabs(bf16.test_acc - plain.test_acc) <= 0.02);
  CHECK(bf16.minibatch_bytes < plain.minibatch_bytes * 0.7);
}
