// `distgnn train-local`: one graph source (train_local_source.h) composed with
// one task -- node classification, control variate or link prediction -- on
// one process, writing the run directory.
#include "roles/trainer/train_local.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/base/logging.h"
#include "common/sampling/batch_provider.h"
#include "common/storage/node_embedding.h"
#include "common/storage/row_l1.h"
#include "common/storage/typed_dataset.h"
#include "config/default_lr.h"
#include "report/html_report.h"
#include "report/run_data.h"
#include "roles/trainer/control_variate.h"
#include "roles/trainer/link_trainer.h"
#include "roles/trainer/model/model_embedding.h"
#include "roles/trainer/model/model_lr.h"
#include "roles/trainer/node_embedding_spec.h"
#include "roles/trainer/train_local_source.h"

namespace dg {
namespace {

// What the loop runs with: the spec with torch threads sharing the cores with
// the sampling threads, and hooks writing into the run directory with the
// learnable embedding of `num_nodes` rows (kept alive by *embedding).
struct LocalTrainRun {
  TrainSpec spec;
  TrainHooks hooks;
};

Result<LocalTrainRun> MakeRun(const TrainSpec& spec, const std::string& out_dir, int64_t num_nodes,
                              std::unique_ptr<LocalNodeEmbedding>* embedding) {
  LocalTrainRun run{spec, TrainHooks()};
  run.hooks.out_dir = out_dir;
  if (run.spec.intra_op_threads <= 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    run.spec.intra_op_threads = std::max(1, cores - spec.sampler_threads);
  }
  if (spec.embedding.dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo, NodeEmbeddingOptionsFrom(spec.embedding, spec.seed));
    DG_ASSIGN_OR_RETURN(*embedding, LocalNodeEmbedding::Create(num_nodes, eo));
    run.hooks.embedding = embedding->get();
  }
  return run;
}

// Every node, in id order: the rows of predictions.npy / embeddings.npy.
std::vector<int64_t> AllNodes(int64_t n) {
  std::vector<int64_t> all(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) all[i] = i;
  return all;
}

std::string FeatureName(const TrainSpec& spec) { return spec.embedding.uses_features() ? "features" : ""; }

// run.json once the data is loaded, so a bad dataset leaves no run behind.
Status StartRun(const LocalRun& run, bool* started) {
  DG_RETURN_IF_ERROR(WriteRunInfo(run.out_dir, {{"kind", "train-local"}, {"command", run.command}}, ""));
  *started = true;
  return Status::OK();
}

Status RunNodeTask(LocalGraphSource* source, const TrainSpec& spec, const LocalRun& run, bool* started) {
  const std::string& out_dir = run.out_dir;
  DG_ASSIGN_OR_RETURN(LocalNodeData data, source->LoadNodes(spec));
  if (spec.save_predictions || spec.save_embeddings) data.seeds.predict = AllNodes(data.num_nodes);
  std::unique_ptr<LocalNodeEmbedding> embedding;
  DG_ASSIGN_OR_RETURN(LocalTrainRun train, MakeRun(spec, out_dir, data.num_nodes, &embedding));
  train.spec.num_classes = data.num_classes;
  DG_RETURN_IF_ERROR(StartRun(run, started));
  if (spec.algorithm == TrainAlgorithm::kControlVariate) {
    if (!data.homogeneous) return Status::InvalidArgument("--algorithm control_variate needs a homogeneous dataset");
    return RunControlVariateLocal(data.homogeneous, train.spec, train.hooks, data.seeds);
  }
  DG_ASSIGN_OR_RETURN(auto trainer, Trainer::Create(train.spec, train.hooks));
  LocalBatchProvider provider(data.graph, spec.sampler_threads, 4, FeatureName(spec));
  return trainer->Fit(&provider, data.seeds);
}

Status RunLinkTask(LocalGraphSource* source, const TrainSpec& spec, const LocalRun& run, bool* started) {
  const std::string& out_dir = run.out_dir;
  DG_ASSIGN_OR_RETURN(LocalLinkData data, source->LoadLinks(spec));
  if (spec.save_embeddings) data.seeds.predict = AllNodes(data.num_nodes);
  std::unique_ptr<LocalNodeEmbedding> embedding;
  DG_ASSIGN_OR_RETURN(LocalTrainRun train, MakeRun(spec, out_dir, data.num_nodes, &embedding));
  data.batches.feature_name = FeatureName(spec);
  data.batches.negatives = spec.link.negative_k;
  data.link.feature_name = data.batches.feature_name;
  data.link.num_nodes = data.num_nodes;
  LinkBatchProvider edges(data.graph, data.table.get(), data.batches, spec.sampler_threads, 4);
  LocalBatchProvider nodes(data.graph, spec.sampler_threads, 4, data.batches.feature_name);
  DG_RETURN_IF_ERROR(StartRun(run, started));
  DG_ASSIGN_OR_RETURN(auto trainer, LinkTrainer::Create(train.spec, train.hooks, data.link));
  return trainer->Fit(&edges, &nodes, data.seeds);
}

// The report reads peak RSS lines from RUN_DIR/logs/.
void WriteReport(const std::string& out_dir) {
  std::filesystem::create_directories(out_dir + "/logs");
  {
    std::ofstream log(out_dir + "/logs/train-local.log");
    log << "peak RSS " << PeakRssBytes() / 1048576.0 << " MB\n";
  }
  auto report = WriteRunReport(out_dir);
  if (report.ok()) spdlog::info("report {}", *report);
  else spdlog::warn("no report: {}", report.status().message());
}

bool HasFeatures(const std::string& dir) {
  return std::filesystem::exists(dir + "/features.npy") || std::filesystem::exists(dir + "/features.npy.gz");
}

// The node embedding the model reads where the flags give no width
// (model_embedding.h): a typed model's featureless types, or every node of a
// dataset without features.
Result<TrainSpec> WithModelEmbedding(const TrainSpec& spec, bool typed) {
  TrainSpec s = spec;
  if (typed) DG_RETURN_IF_ERROR(TakeTypedModelEmbedding(s.model, "--embedding-dim", &s.embedding));
  else if (!HasFeatures(s.dataset_dir))
    DG_RETURN_IF_ERROR(TakeFeaturelessModelEmbedding(s.model, "--embedding-dim", &s.embedding));
  return s;
}

}  // namespace

Status TrainLocal(const TrainSpec& flags, const LocalRun& run) {
  SetupLogging("train-local", 0);
  const bool typed = IsTypedDatasetDir(flags.dataset_dir);
  std::unique_ptr<LocalGraphSource> source = typed ? MakeTypedInMemorySource() : MakeInMemorySource();
  DG_ASSIGN_OR_RETURN(TrainSpec spec, WithModelEmbedding(flags, typed));
  DG_RETURN_IF_ERROR(TakeDefaultLr(&spec, [&spec]() -> Result<std::optional<double>> {
    if (spec.normalize_features) return std::optional<double>(1.0);  // every row then sums to 1
    return DatasetRowL1(spec.dataset_dir, kRowL1SampleRows);
  }));
  DG_RETURN_IF_ERROR(source->Check(spec));
  bool started = false;
  const Status st = spec.task == TrainTask::kLink ? RunLinkTask(source.get(), spec, run, &started)
                                                  : RunNodeTask(source.get(), spec, run, &started);
  if (started) WriteReport(run.out_dir);
  DG_RETURN_IF_ERROR(st);
  spdlog::info("done; outputs in {}; peak RSS {:.1f} MB", run.out_dir, PeakRssBytes() / 1048576.0);
  return Status::OK();
}

}  // namespace dg
