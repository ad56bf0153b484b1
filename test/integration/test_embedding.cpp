// DistEmbedding end to end: Cora with its features ignored, a learnable 64-dim
// per-node embedding on the servers (sparse optimizer next to the data) as the
// model's only input, 2 partitions / 2 trainers as real processes. Structure
// alone must give > 0.6 test accuracy; a persistent table is saved into the
// partitions, reloaded by the next job's servers and used by layer-wise
// inference.
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>

#include "common/io/npy.h"
#include "test/integration/dist_job.h"

using namespace dg::test;

namespace {

DistJobOptions FeaturelessJob(const std::string& optimizer, double lr, bool persistent, const std::string& arch) {
  DistJobOptions o;
  o.parts = 2;
  o.samplers = 1;
  o.epochs = 50;
  o.model = {"--arch", arch, "--in-dim", "64", "--hidden", "64", "--classes", "7", "--layers", "2"};
  o.extra_train_yaml = "embedding: {dim: 64, optimizer: " + optimizer + ", lr: " + std::to_string(lr) +
                       ", features: false" + (persistent ? ", persistent: true" : "") + "}";
  return o;
}

}  // namespace

TEST_CASE("featureless Cora with a 64-dim DistEmbedding (sparse_adagrad) trains above 0.6", "[embedding][cora]") {
  DistJob job(FeaturelessJob("sparse_adagrad", 0.5, false, "gcn"));
  RunToCompletion(job, 2, 0.6);
  // Not persistent: nothing was written into the partitions.
  CHECK_FALSE(std::filesystem::exists(job.dir() / "parts/part0/tensors/embedding.npy"));
}

TEST_CASE("a persistent DistEmbedding (sparse_adam) is saved with the best epoch's rows, reloaded and used by "
          "layer-wise inference",
          "[embedding][cora]") {
  DistJob job(FeaturelessJob("sparse_adam", 0.05, true, "sage"));
  RunToCompletion(job, 2, 0.55);
  // The best evaluation's rows were kept on each partition's server (CHECKPOINT keep best) and put back before
  // the table was saved: the saved rows are that copy's.
  for (int p = 0; p < 2; ++p) {
    const std::string part = job.dir() / ("parts/part" + std::to_string(p));
    CHECK(std::filesystem::exists(part + "/checkpoints/best/step.txt"));
    std::istringstream tensors(ReadFile(part + "/checkpoints/best/tensors"));  // "I persistent has_optimizer name"
    std::string index, persistent, has_optimizer, name;
    while (tensors >> index >> persistent >> has_optimizer >> name && name != "embedding") {
    }
    REQUIRE(name == "embedding");
    auto saved = dg::NpyLoad(part + "/tensors/embedding.npy");
    auto kept = dg::NpyLoad(part + "/checkpoints/best/tensor-" + index + ".npy");
    REQUIRE((saved.ok() && kept.ok()));
    CHECK(saved->shape == kept->shape);
    CHECK(std::memcmp(saved->data, kept->data, saved->nbytes()) == 0);
  }
  int64_t rows = 0;
  for (int p = 0; p < 2; ++p) {
    auto a = dg::NpyLoad(job.dir() / ("parts/part" + std::to_string(p) + "/tensors/embedding.npy"));
    REQUIRE(a.ok());
    CHECK(a->shape.size() == 2);
    CHECK(a->shape[1] == 64);
    rows += a->shape[0];
  }
  CHECK(rows == 2708);
  // A new job (servers load the saved table) runs layer-wise inference on it with the trained model.
  std::filesystem::copy_file(job.run_dir() + "/model.pt", job.dir() / "trained.pt");
  auto r = RunDistgnn({"launch", job.dir() / "job.yaml", "--mode", "infer", "--quiet", "--set",
                       "train.model=" + (job.dir() / "trained.pt")},
                      180);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::string inference = ReadFile(job.run_dir() + "/inference.json");
  INFO(inference);
  REQUIRE(!JsonField(inference, "test_acc").empty());
  CHECK(std::stod(JsonField(inference, "test_acc")) > 0.55);
  // model.pt and the table are the best epoch's pair: inference scores that epoch's figures (the last step's rows
  // give another validation accuracy here).
  const std::string metrics = ReadFile(job.run_dir() + "/metrics.jsonl");
  const std::string final_line = metrics.substr(metrics.rfind("{\"final\""));
  CHECK(std::stod(JsonField(inference, "val_acc")) == Approx(std::stod(JsonField(final_line, "best_val_acc"))).margin(1e-9));
  CHECK(std::stod(JsonField(inference, "test_acc")) == Approx(FinalTestAccuracy(job.run_dir())).margin(1e-9));
}
