// train.task / train.negative / train.eval_negatives: defaults, a
// valid link job, and one error per bad value naming the key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "config/job_config.h"
#include "test/support/test_support.h"

namespace {

std::string Yaml(const std::string& train_extra) {
  return "job: link\npartition: parts/cora.json\nmachines:\n  - host: 127.0.0.1\n"
         "ports: {server: 30050, trainer: 30200, rendezvous: 29500}\n"
         "processes: {servers: 1, trainers: 1, samplers_per_trainer: 0}\n"
         "train:\n  model: sage.pt\n" + train_extra + "output_dir: runs\n";
}

dg::Result<dg::JobConfig> Load(const dg::test::TempDir& dir, const std::string& extra) {
  std::filesystem::create_directories(dir / "parts");
  std::ofstream(dir / "parts/cora.json") << "{\"num_parts\": 1, \"graph_name\": \"cora\"}\n";
  std::ofstream(dir / "sage.pt") << "x";
  std::ofstream(dir / "parts/link_split.json") << "{}\n";
  std::ofstream(dir / "job.yaml") << Yaml(extra);
  return dg::LoadJobConfig(dir / "job.yaml", {});
}

}  // namespace

TEST_CASE("job config: link prediction keys", "[config][link]") {
  dg::test::TempDir dir;
  auto def = Load(dir, "");
  REQUIRE(def.ok());
  CHECK(def->train.task == dg::TrainTask::kNode);
  CHECK(def->train.link.negative_k == 5);
  CHECK(def->train.link.negative_distribution == dg::NegativeDistribution::kUniform);
  CHECK(def->train.link.eval_negatives == 100);
  auto link = Load(dir, "  task: link\n  negative: {k: 3, distribution: degree}\n  eval_negatives: 50\n");
  REQUIRE(link.ok());
  CHECK(link->train.task == dg::TrainTask::kLink);
  CHECK(link->train.link.negative_k == 3);
  CHECK(link->train.link.negative_distribution == dg::NegativeDistribution::kDegree);
  CHECK(link->train.link.eval_negatives == 50);
  const std::vector<std::pair<std::string, std::string>> bad{
      {"  task: edges\n", "train.task"},
      {"  negative: {k: 0}\n", "train.negative.k"},
      {"  negative: {distribution: zipf}\n", "train.negative.distribution"},
      {"  negative: {kk: 2}\n", "kk"},
      {"  eval_negatives: 0\n", "train.eval_negatives"},
      {"  task: link\n  save_predictions: true\n", "train.task"}};
  // A link job on a partition without an edge split.
  std::filesystem::remove(dir / "parts/link_split.json");
  {
    std::ofstream(dir / "job.yaml") << Yaml("  task: link\n");
    auto r = dg::LoadJobConfig(dir / "job.yaml", {});
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("--edge-split") != std::string::npos);
  }
  for (const auto& [extra, key] : bad) {
    auto r = Load(dir, extra);
    INFO(extra);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find(key) != std::string::npos);
  }
}
