// MakeTask's composition table (roles/trainer/run/make_task.h): every
// combination of train.task, train.algorithm, a learnt-row table and the
// outputs asked for either builds a task on a real GraphSource (train-local's,
// a dataset directory on disk) or is refused by the spec's rules with the
// YAML key of the setting named. A built combination then trains one epoch
// and writes what it was asked to: predictions.npy and embeddings.npy of
// every node, and trainer-0.json.
#include "test/support/torch_catch.h"

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include "common/io/npy.h"
#include "common/storage/node_embedding.h"
#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/loop/epoch_task.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/model/node_embedding_spec.h"
#include "roles/trainer/source/local_source.h"
#include "roles/trainer/run/make_task.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

constexpr int64_t kNodes = 40, kDim = 4, kClasses = 3, kEmbedding = 8;

// A ring with chords, 4-dim features, 3 classes, a node split, and ax.npy
// (a stand-in for the propagated input of control variate).
void WriteDataset(const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::ofstream edges(dir + "/edges.tsv");
  for (int64_t i = 0; i < kNodes; ++i)
    edges << i << "\t" << (i + 1) % kNodes << "\n" << i << "\t" << (i * 7 + 3) % kNodes << "\n";
  Array feat = Array::Zeros(DType::kFloat32, {kNodes, kDim});
  Array labels = Array::Zeros(DType::kInt64, {kNodes});
  Array split = Array::Zeros(DType::kInt8, {kNodes});
  for (int64_t i = 0; i < kNodes; ++i) {
    labels.as<int64_t>()[i] = i % kClasses;
    feat.as<float>()[i * kDim + i % kClasses] = 1;
    split.as<int8_t>()[i] = static_cast<int8_t>(i % 4 == 3 ? 1 : (i % 4 == 2 ? 2 : 0));
  }
  REQUIRE(NpyWrite(dir + "/features.npy", feat).ok());
  REQUIRE(NpyWrite(dir + "/ax.npy", feat).ok());
  REQUIRE(NpyWrite(dir + "/labels.npy", labels).ok());
  REQUIRE(NpyWrite(dir + "/split.npy", split).ok());
}

std::string ExportSage(const std::string& path, int64_t in_dim) {
  ModelSpec m;
  m.arch = ModelArch::kSage;
  m.in_dim = in_dim;
  m.hidden = 8;
  m.classes = kClasses;
  m.layers = 2;
  REQUIRE(ExportModel(m, path).ok());
  return path;
}

struct Combination {
  TrainTask task;
  TrainAlgorithm algorithm;
  bool embedding, save_predictions, save_embeddings;

  std::string Text() const {
    return std::string(Name(task)) + " / " + Name(algorithm) + (embedding ? " / embedding" : "") +
           (save_predictions ? " / save_predictions" : "") + (save_embeddings ? " / save_embeddings" : "");
  }
};

// Runs one combination: the spec's rules as a job file states them, then
// MakeTask on train-local's source and one epoch of the loop. True when it built.
bool Check(const Combination& c, const std::string& dir, const std::string& plain, const std::string& wide) {
  INFO(c.Text());
  TrainSpec spec;
  spec.task = c.task;
  spec.algorithm = c.algorithm;
  spec.dataset_dir = dir + "/data";
  spec.model = c.embedding ? wide : plain;
  // Control variate samples one hop per layer but the first, whose input mean
  // is propagated, unless that input is learnt.
  spec.fanouts = c.algorithm == TrainAlgorithm::kControlVariate && !c.embedding ? std::vector<int>{3}
                                                                               : std::vector<int>{3, 3};
  spec.batch_size = 8;
  spec.epochs = 1;
  spec.intra_op_threads = 1;
  spec.sampler_threads = 1;
  spec.quiet = true;
  spec.undirected = true;
  spec.cv_input = "ax";
  spec.embedding.dim = c.embedding ? kEmbedding : 0;
  spec.save_predictions = c.save_predictions;
  spec.save_embeddings = c.save_embeddings;
  TrainSpecSource yaml;
  yaml.kind = TrainSpecSource::kYaml;
  yaml.yaml_path = "job.yaml";
  const Status rules = ValidateTrainSpec(spec, yaml);
  if (!rules.ok()) {
    INFO(rules.message());
    CHECK(rules.code() == Status::Code::kInvalidArgument);
    CHECK(rules.message().find("train.") != std::string::npos);  // the key the user wrote
    return false;
  }
  auto source = LocalGraphSource::Open(spec);
  REQUIRE(source.ok());
  TrainHooks hooks;
  hooks.out_dir = dir + "/run-" + std::to_string(std::hash<std::string>()(c.Text()));
  std::unique_ptr<LocalNodeEmbedding> rows;
  if (c.embedding) {
    auto eo = NodeEmbeddingOptionsFrom(spec.embedding, spec.seed);
    REQUIRE(eo.ok());
    auto made = LocalNodeEmbedding::Create((*source)->num_nodes(), *eo);
    REQUIRE(made.ok());
    rows = std::move(*made);
    hooks.embedding = rows.get();
  }
  auto task = MakeTask(spec, hooks, source->get());
  INFO(task.status().ToString());
  REQUIRE(task.ok());
  EpochLoop loop(spec, hooks, task->get());
  const Status run = loop.Run();
  INFO(run.ToString());
  REQUIRE(run.ok());
  CHECK(std::filesystem::exists(hooks.OutPath("trainer-0.json")));
  CHECK(std::filesystem::exists(hooks.OutPath("model.pt")));
  if (c.save_predictions) {
    auto p = NpyLoad(hooks.OutPath("predictions.npy"));
    REQUIRE(p.ok());
    CHECK(p->rows() == kNodes);
  }
  if (c.save_embeddings) {
    auto e = NpyLoad(hooks.OutPath("embeddings.npy"));
    REQUIRE(e.ok());
    CHECK(e->rows() == kNodes);
  }
  return true;
}

}  // namespace

TEST_CASE("MakeTask: every combination of task, algorithm, learnt rows and outputs builds and trains, or is "
          "refused naming its key",
          "[make_task]") {
  test::TempDir dir;
  WriteDataset(dir / "data");
  const std::string plain = ExportSage(dir / "sage.pt", kDim);
  const std::string wide = ExportSage(dir / "sage_wide.pt", kDim + kEmbedding);
  int built = 0, refused = 0;
  for (TrainTask task : {TrainTask::kNode, TrainTask::kLink})
    for (TrainAlgorithm algorithm : {TrainAlgorithm::kSample, TrainAlgorithm::kControlVariate})
      for (bool embedding : {false, true})
        for (bool predictions : {false, true})
          for (bool embeddings : {false, true}) {
            const Combination c{task, algorithm, embedding, predictions, embeddings};
            (Check(c, dir.path(), plain, wide) ? built : refused) += 1;
          }
  // node/sample: all 8; link/sample: the 4 without save_predictions; control
  // variate: all 8 of node.
  CHECK(built == 20);
  CHECK(refused == 12);
}

}  // namespace dg
