// `distgnn train-local`: the trainer on one process with the whole graph in
// memory and in-process sampling (the baseline of distributed runs).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "roles/trainer/train_local.h"
#include "roles/trainer/train_local_link.h"
#include "common/storage/node_embedding.h"
#include "common/storage/dataset.h"
#include "common/sampling/in_memory_graph.h"
#include "common/base/logging.h"
#include "common/sampling/minibatch.h"
#include "common/sampling/batch_provider.h"
#include "report/html_report.h"
#include "roles/trainer/trainer.h"
#include "roles/trainer/control_variate.h"
#include "roles/trainer/typed_graph_input.h"

namespace dg {
namespace {

// Number of classes: --classes if given, else 1 + the largest label of a
// labelled (split 0/1/2) node; every such label must be in [0, classes).
Result<int64_t> CheckLabels(const InMemoryGraph& g, int64_t classes) {
  auto labels = g.NodeData("labels");
  if (!labels.ok())
    return Status::InvalidArgument("dataset has no labels.npy (" + labels.status().message() + ")");
  if (labels->dtype != DType::kInt64 || labels->shape.size() != 1)
    return Status::InvalidArgument("labels.npy must be int64 [N], got " +
                                   std::string(DTypeName(labels->dtype)) + labels->ShapeString());
  DG_ASSIGN_OR_RETURN(Array split, g.NodeData("split"));
  const int64_t* l = labels->as<int64_t>();
  int64_t max_label = -1;
  for (int v = 0; v < 3; ++v) {
    DG_ASSIGN_OR_RETURN(std::vector<int64_t> ids, NodesWithSplit(split, v));
    for (int64_t i : ids) {
      if (l[i] < 0 || (classes > 0 && l[i] >= classes))
        return Status::InvalidArgument("labels.npy: node " + std::to_string(i) + " has label " +
                                       std::to_string(l[i]) + ", out of range [0, " +
                                       (classes > 0 ? std::to_string(classes) : "inf") + ")");
      max_label = std::max(max_label, l[i]);
    }
  }
  return classes > 0 ? classes : max_label + 1;
}

}  // namespace

Status TrainLocal(TrainLocalOptions options) {
  const std::string& dataset_dir = options.dataset_dir;
  const bool undirected = options.undirected, normalize_features = options.normalize_features,
             no_features = options.no_features;
  const int sampler_threads = options.sampler_threads;
  const int64_t embedding_dim = options.embedding_dim;
  const std::string& embedding_optimizer = options.embedding_optimizer;
  const double embedding_lr = options.embedding_lr;
  const std::string &algorithm = options.algorithm, &cv_input = options.cv_input, &task = options.task;
  TrainerOptions& o = options.trainer;
  LinkLocalArgs& link = options.link;
  SetupLogging("train-local", 0);
  if (algorithm != "sample" && algorithm != "control_variate")
    return Status::InvalidArgument("--algorithm: expected sample or control_variate, got '" + algorithm + "'");
  if (o.batch_size <= 0)
    return Status::InvalidArgument("--batch-size must be > 0, got " + std::to_string(o.batch_size));
  for (int f : o.fanouts)
    if (f == 0 || f < -1) return Status::InvalidArgument("--fanouts: each fanout must be > 0 or -1 (all)");
  if (task != "node" && task != "link")
    return Status::InvalidArgument("--task: expected node or link, got '" + task + "'");
  if (task != "link" && !link.link_etype.empty())
    return Status::InvalidArgument("--link-etype goes with --task link (the edge type whose links are predicted)");
  if (task == "link" && algorithm == "control_variate")
    return Status::InvalidArgument("--algorithm control_variate trains node classification; --task link samples");
  if (task == "link") {
    if (o.save_predictions || o.save_embeddings)
      return Status::InvalidArgument("--save-predictions / --save-embeddings are not supported with --task link");
    link.dataset_dir = dataset_dir;
    link.undirected = undirected;
    link.normalize_features = normalize_features;
    link.no_features = no_features;
    link.sampler_threads = sampler_threads;
    link.embedding_dim = embedding_dim;
    link.embedding_optimizer = embedding_optimizer;
    link.embedding_lr = embedding_lr;
    link.merge_types = options.merge_types;
    const bool typed = IsTypedDatasetDir(dataset_dir);
    if (!typed && !link.link_etype.empty())
      return Status::InvalidArgument("--link-etype: " + dataset_dir +
                                     " is not a typed dataset (no meta.json with node_types); it has one edge type");
    if (!typed && options.merge_types)
      return Status::InvalidArgument("--merge-types: " + dataset_dir +
                                     " is not a typed dataset (no meta.json with node_types)");
    if (o.threads <= 0)
      o.threads = std::max(1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) - sampler_threads);
    DG_RETURN_IF_ERROR(WriteRunInfo(o.out_dir, {{"kind", "train-local"}, {"command", options.command}}, ""));
    DG_RETURN_IF_ERROR(typed ? RunTrainLocalTypedLink(link, o) : RunTrainLocalLink(link, o));
    spdlog::info("done; outputs in {}; peak RSS {:.1f} MB", o.out_dir, PeakRssBytes() / 1048576.0);
    return Status::OK();
  }

  if (IsTypedDatasetDir(dataset_dir)) return TrainLocalTyped(std::move(options));
  if (options.merge_types)
    return Status::InvalidArgument("--merge-types: " + dataset_dir + " is not a typed dataset (no meta.json with node_types)");
  EdgeListOptions eo;
  eo.undirected = undirected;
  DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(dataset_dir, eo));
  if (normalize_features) {
    if (!ds.node_data.count("features"))
      return Status::InvalidArgument(dataset_dir + ": --normalize-features, but there is no features.npy");
    DG_RETURN_IF_ERROR(RowNormalize(&ds.node_data["features"], dataset_dir + "/features.npy"));
  }
  DG_ASSIGN_OR_RETURN(auto graph, InMemoryGraph::FromDataset(ds));
  ds = Dataset();  // the graph holds what it needs
  DG_ASSIGN_OR_RETURN(o.num_classes, CheckLabels(*graph, o.num_classes));
  DG_ASSIGN_OR_RETURN(Array split, graph->NodeData("split"));
  TrainerSeeds seeds;
  DG_ASSIGN_OR_RETURN(seeds.train, NodesWithSplit(split, 0));
  DG_ASSIGN_OR_RETURN(seeds.val, NodesWithSplit(split, 1));
  DG_ASSIGN_OR_RETURN(seeds.test, NodesWithSplit(split, 2));
  if (seeds.train.empty())
    return Status::InvalidArgument(dataset_dir + "/split.npy: no training nodes (no entry equals 0)");
  if (o.save_predictions || o.save_embeddings) {
    seeds.predict.resize(graph->num_nodes());
    for (int64_t i = 0; i < graph->num_nodes(); ++i) seeds.predict[i] = i;
  }
  spdlog::info("{}: {} nodes, {} edges, {} classes; {} train / {} val / {} test nodes",
               dataset_dir, graph->num_nodes(), graph->num_edges(), o.num_classes,
               seeds.train.size(), seeds.val.size(), seeds.test.size());
  std::unique_ptr<LocalNodeEmbedding> embedding;
  if (no_features && embedding_dim <= 0)
    return Status::InvalidArgument("--no-features needs --embedding-dim > 0 (the model needs some input)");
  if (embedding_dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo,
                        MakeNodeEmbeddingOptions(embedding_dim, embedding_optimizer, embedding_lr, o.seed));
    DG_ASSIGN_OR_RETURN(embedding, LocalNodeEmbedding::Create(graph->num_nodes(), eo));
    o.embedding = embedding.get();
    o.use_features = !no_features;
  }
  if (o.threads <= 0) {  // sampling threads and torch share the cores
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    o.threads = std::max(1, cores - sampler_threads);
  }
  DG_RETURN_IF_ERROR(WriteRunInfo(o.out_dir, {{"kind", "train-local"}, {"command", options.command}}, ""));
  if (algorithm == "control_variate") {
    if (embedding) return Status::InvalidArgument("--algorithm control_variate: --embedding-dim is not supported");
    return RunControlVariateLocal(graph.get(), o, cv_input, seeds);
  }
  DG_ASSIGN_OR_RETURN(auto trainer, Trainer::Create(o));
  LocalBatchProvider provider(graph.get(), sampler_threads, 4, no_features ? "" : "features");
  Status fit = trainer->Fit(&provider, seeds);
  {  // the report reads peak RSS lines from RUN_DIR/logs/
    std::filesystem::create_directories(o.out_dir + "/logs");
    std::ofstream log(o.out_dir + "/logs/train-local.log");
    log << "peak RSS " << PeakRssBytes() / 1048576.0 << " MB\n";
  }
  auto report = WriteRunReport(o.out_dir);
  if (report.ok()) spdlog::info("report {}", *report);
  else spdlog::warn("no report: {}", report.status().message());
  DG_RETURN_IF_ERROR(fit);
  spdlog::info("done; outputs in {}; peak RSS {:.1f} MB", o.out_dir, PeakRssBytes() / 1048576.0);
  return Status::OK();
}

}  // namespace dg
