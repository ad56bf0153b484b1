// `distgnn train-local`: the dataset in memory (source/local_source.h) and
// the spec's task on it (run/make_task.h), in one process, writing the run
// directory.
#include "roles/trainer/train_local/train_local.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/base/logging.h"
#include "common/storage/node_embedding.h"
#include "common/storage/row_l1.h"
#include "common/storage/typed_dataset.h"
#include "config/default_lr.h"
#include "report/html_report.h"
#include "report/run_data.h"
#include "roles/trainer/model/model_embedding.h"
#include "roles/trainer/model/model_lr.h"
#include "roles/trainer/model/node_embedding_spec.h"
#include "roles/trainer/source/local_source.h"
#include "roles/trainer/run/make_task.h"

namespace dg {
namespace {

// The hooks of a run writing into `out_dir`, with the learnable embedding of
// the source's nodes (kept alive by *embedding) and the source's bytes.
Result<TrainHooks> MakeHooks(const TrainSpec& spec, const std::string& out_dir, LocalGraphSource* source,
                             std::unique_ptr<LocalNodeEmbedding>* embedding) {
  TrainHooks hooks;
  hooks.out_dir = out_dir;
  hooks.network_bytes = source->NetworkBytes();
  if (spec.embedding.dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo, NodeEmbeddingOptionsFrom(spec.embedding, spec.seed));
    DG_ASSIGN_OR_RETURN(*embedding, LocalNodeEmbedding::Create(source->num_nodes(), eo));
    hooks.embedding = embedding->get();
  }
  return hooks;
}

// Torch threads share the cores with the sampling threads.
TrainSpec WithThreads(TrainSpec spec) {
  if (spec.intra_op_threads <= 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    spec.intra_op_threads = std::max(1, cores - spec.sampler_threads);
  }
  return spec;
}

// run.json once the data is loaded, so a bad dataset leaves no run behind;
// then the spec's task on the source.
Status Run(const TrainSpec& flags, const LocalRun& run, bool* started) {
  const TrainSpec spec = WithThreads(flags);
  DG_ASSIGN_OR_RETURN(std::unique_ptr<LocalGraphSource> source, LocalGraphSource::Open(spec));
  std::unique_ptr<LocalNodeEmbedding> embedding;
  DG_ASSIGN_OR_RETURN(const TrainHooks hooks, MakeHooks(spec, run.out_dir, source.get(), &embedding));
  DG_RETURN_IF_ERROR(WriteRunInfo(run.out_dir, {{"kind", "train-local"}, {"command", run.command}}, ""));
  *started = true;
  return Train(spec, hooks, source.get());
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
  DG_ASSIGN_OR_RETURN(TrainSpec spec, WithModelEmbedding(flags, IsTypedDatasetDir(flags.dataset_dir)));
  DG_RETURN_IF_ERROR(TakeDefaultLr(&spec, [&spec]() -> Result<std::optional<double>> {
    if (spec.normalize_features) return std::optional<double>(1.0);  // every row then sums to 1
    return DatasetRowL1(spec.dataset_dir, kRowL1SampleRows);
  }));
  bool started = false;
  const Status st = Run(spec, run, &started);
  if (started) WriteReport(run.out_dir);
  DG_RETURN_IF_ERROR(st);
  spdlog::info("done; outputs in {}; peak RSS {:.1f} MB", run.out_dir, PeakRssBytes() / 1048576.0);
  return Status::OK();
}

}  // namespace dg
