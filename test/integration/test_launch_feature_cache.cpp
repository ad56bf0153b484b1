// The feature cache end to end: bundled Cora on 2 machines of 127.0.0.1
// without sampler processes, block 0 aggregated by the servers and a 1 MB
// cache of remote rows (train.feature_cache_mb), trains to the accuracy of
// the plain job; every epoch line of metrics.jsonl has the cache's hits and
// the trainer's bytes per message type, trainer 0 logs the cache, and the
// report shows the cache's table and every process's bytes per message type.
#include <catch2/catch.hpp>

#include <regex>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

TEST_CASE("launch with a feature cache trains Cora to >= 0.78 and reports its hits", "[launch][cora][feature_cache]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "processes.samplers_per_trainer=0", "--set",
                "train.input_aggregation=on", "--set", "train.feature_cache_mb=1"},
               dir / "launch.log");
  int rc = launch.Wait(300);
  INFO(launch.Output());
  REQUIRE(rc == 0);
  const std::string metrics_path = dir / "runs/cora/metrics.jsonl";
  CHECK(FinalTestAcc(metrics_path) >= 0.78);
  const std::string metrics = ReadFile(metrics_path);
  INFO(metrics);
  // Every epoch: rows held (1 MB / (1433 x 4 + 8) bytes, less the bitmap), hits, PULL_BLOCK bytes.
  std::smatch m;
  REQUIRE(std::regex_search(metrics, m, std::regex("\"feature_cache\": \\{\"rows\": ([0-9]+).*?\"hits\": ([0-9]+)")));
  CHECK(std::stol(m[1]) == (1048576 - (2708 + 63) / 64 * 8) / (1433 * 4 + 8));
  CHECK(std::stol(m[2]) > 0);
  int cache_lines = 0, byte_lines = 0;
  std::istringstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    cache_lines += line.find("\"feature_cache\"") != std::string::npos;
    byte_lines += std::regex_search(line, std::regex("\"message_bytes\": \\{.*\"SAMPLE_BLOCK\": \\{\"sent\": [1-9]"));
  }
  CHECK(cache_lines == EpochLines(metrics_path));
  CHECK(byte_lines == EpochLines(metrics_path));
  const std::string log = ReadFile(dir / "runs/cora/logs/0-trainer-0.log");
  CHECK(log.find("feature cache: ") != std::string::npos);
  CHECK(log.find("bytes by message: ") != std::string::npos);
  const std::string html = ReadFile(dir / "runs/cora/report.html");
  CHECK(html.find("Feature cache (trainer 0)") != std::string::npos);
  CHECK(html.find("Bytes per message type") != std::string::npos);
  for (const char* p : {"0-server-0", "1-server-0", "0-trainer-0", "1-trainer-0"})
    CHECK(std::regex_search(html, std::regex("<td class=\"l\">" + std::string(p) + "</td><td class=\"l\">SAMPLE_BLOCK")));
}

TEST_CASE("train.feature_cache_mb: a size in MiB, 0 by default", "[config][feature_cache]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  auto r = RunDistgnn({"config", "check", dir / "job.yaml", "--set", "train.feature_cache_mb=-1"}, 60);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("train.feature_cache_mb") != std::string::npos);
  r = RunDistgnn({"config", "check", dir / "job.yaml", "--set", "train.feature_cache_mb=64"}, 60);
  INFO(r.output);
  CHECK(r.exit_code == 0);
}
