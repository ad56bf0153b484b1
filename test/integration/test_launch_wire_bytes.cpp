// Fewer bytes on the wire, end to end: bundled Cora on 2 machines of
// 127.0.0.1 without sampler processes, block 0 aggregated by the servers
// (train.input_aggregation: on) with float16 rows on the wire, trains to the
// accuracy of the plain job; trainer 0 says which input path it took. A job
// that cannot aggregate but asks for it (sampler processes) is refused
// naming the key.
#include <catch2/catch.hpp>

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

TEST_CASE("input_aggregation on with sampler processes is refused naming the key", "[launch][wire]") {
  TempDir dir;
  PrepareCoraLaunch(dir);  // 2 samplers per trainer
  auto r = RunDistgnn({"config", "check", dir / "job.yaml", "--set", "train.input_aggregation=on"}, 60);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("train.input_aggregation") != std::string::npos);
  CHECK(r.output.find("samplers_per_trainer 0") != std::string::npos);
  r = RunDistgnn({"config", "check", dir / "job.yaml", "--set", "train.feature_wire_dtype=bfloat16"}, 60);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("train.feature_wire_dtype") != std::string::npos);
}
