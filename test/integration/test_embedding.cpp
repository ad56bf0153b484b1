// DistEmbedding end to end: Cora with its features ignored, a learnable 64-dim
// per-node embedding on the servers (sparse optimizer next to the data) as the
// model's only input, 2 partitions / 2 trainers as real processes. Structure
// alone must give > 0.6 test accuracy; a persistent table is saved into the
// partitions, reloaded by the next job's servers and used by layer-wise
// inference.
#include <catch2/catch.hpp>

#include "common/io/npy.h"
#include "test/integration/dist_job.h"

using namespace dg::test;

namespace {

DistJobOptions FeaturelessJob(const std::string& optimizer, double lr, bool persistent) {
  DistJobOptions o;
  o.parts = 2;
  o.samplers = 1;
  o.epochs = 50;
  o.model = {"--arch", "gcn", "--in-dim", "64", "--hidden", "64", "--classes", "7", "--layers", "2"};
  o.extra_train_yaml = "embedding: {dim: 64, optimizer: " + optimizer + ", lr: " + std::to_string(lr) +
                       ", features: false" + (persistent ? ", persistent: true" : "") + "}";
  return o;
}

}  // namespace

TEST_CASE("featureless Cora with a 64-dim DistEmbedding (sparse_adagrad) trains above 0.6", "[embedding][cora]") {
  DistJob job(FeaturelessJob("sparse_adagrad", 0.5, false));
  RunToCompletion(job, 2, 0.6);
  // Not persistent: nothing was written into the partitions.
  CHECK_FALSE(std::filesystem::exists(job.dir() / "parts/part0/tensors/embedding.npy"));
}

TEST_CASE("a persistent DistEmbedding (sparse_adam) is saved, reloaded and used by layer-wise inference",
          "[embedding][cora]") {
  DistJob job(FeaturelessJob("sparse_adam", 0.05, true));
  RunToCompletion(job, 2, 0.6);
  int64_t rows = 0;
  for (int p = 0; p < 2; ++p) {
    auto a = dg::NpyLoad(job.dir() / ("parts/part" + std::to_string(p) + "/tensors/embedding.npy"));
    REQUIRE(a.ok());
    CHECK(a->shape.size() == 2);
    CHECK(a->shape[1] == 64);
    rows += a->shape[0];
  }
  CHECK(rows == 2708);
  // A new job (servers load the saved table) runs layer-wise inference on it.
  auto r = RunDistgnn({"launch", job.dir() / "job.yaml", "--mode", "infer", "--quiet"}, 180);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::string inference = ReadFile(job.run_dir() + "/inference.json");
  INFO(inference);
  REQUIRE(!JsonField(inference, "test_acc").empty());
  CHECK(std::stod(JsonField(inference, "test_acc")) > 0.55);
}
