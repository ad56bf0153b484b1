// `distgnn train-local` on a typed dataset: node classification of the target
// type with typed sampling (a fanout per edge type) and a typed model, or,
// with --merge-types, the same graph seen as one node and edge type.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/base/logging.h"
#include "common/sampling/batch_provider.h"
#include "common/sampling/typed_graph.h"
#include "common/storage/dataset.h"
#include "common/storage/node_embedding.h"
#include "report/html_report.h"
#include "report/run_data.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/train_local.h"
#include "roles/trainer/trainer.h"
#include "roles/trainer/typed_graph_input.h"

namespace dg {

Status TrainLocalTyped(TrainLocalOptions options) {
  TrainerOptions& o = options.trainer;
  const std::string& dir = options.dataset_dir;
  if (options.task != "node" || options.algorithm != "sample")
    return Status::InvalidArgument(dir + " is a typed dataset: train-local supports --task node --algorithm sample on it");
  if (options.no_features || options.normalize_features || o.save_embeddings)
    return Status::InvalidArgument(
        dir + " is a typed dataset: --no-features, --normalize-features and --save-embeddings are not supported on it");
  if (o.batch_size <= 0)
    return Status::InvalidArgument("--batch-size must be > 0, got " + std::to_string(o.batch_size));
  for (int f : o.fanouts)
    if (f == 0 || f < -1) return Status::InvalidArgument("--fanouts: each fanout must be > 0 or -1 (all)");
  int64_t meta_classes = 0;
  DG_ASSIGN_OR_RETURN(TypedGraphInput input, LoadTypedGraphInput(dir, options.undirected, &meta_classes));
  const std::string target = input.node_types[input.target].name;
  DG_ASSIGN_OR_RETURN(auto graph, TypedInMemoryGraph::Create(std::move(input), options.merge_types));
  if (o.num_classes <= 0) o.num_classes = meta_classes;
  {
    DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(o.model_path));
    const bool typed_model = IsTypedModel(module);
    if (typed_model && options.merge_types)
      return Status::InvalidArgument("model " + o.model_path + " is typed (rgcn, hetero-sage); --merge-types needs "
                                     "a homogeneous one (sage, gcn, gat, mlp)");
    if (!typed_model && !options.merge_types)
      return Status::InvalidArgument("model " + o.model_path + " is not typed: " + dir +
                                     " is a typed dataset; export an rgcn or hetero-sage model, or pass --merge-types "
                                     "for a homogeneous model");
  }
  const int64_t* labels = graph->labels().as<int64_t>();
  TrainerSeeds seeds;
  DG_ASSIGN_OR_RETURN(seeds.train, NodesWithSplit(graph->split(), 0));
  DG_ASSIGN_OR_RETURN(seeds.val, NodesWithSplit(graph->split(), 1));
  DG_ASSIGN_OR_RETURN(seeds.test, NodesWithSplit(graph->split(), 2));
  int64_t max_label = -1;
  for (const auto* ids : {&seeds.train, &seeds.val, &seeds.test})
    for (int64_t i : *ids) {
      if (labels[i] < 0 || (o.num_classes > 0 && labels[i] >= o.num_classes))
        return Status::InvalidArgument(dir + "/nodes/" + target + "/labels.npy: node " +
                                       std::to_string(i - graph->type_offsets()[0]) + " has label " +
                                       std::to_string(labels[i]) + ", out of range");
      max_label = std::max(max_label, labels[i]);
    }
  if (o.num_classes <= 0) o.num_classes = max_label + 1;
  if (seeds.train.empty()) return Status::InvalidArgument(dir + ": no training nodes of the target type");
  if (o.save_predictions) {
    seeds.predict.resize(graph->num_nodes());
    for (int64_t i = 0; i < graph->num_nodes(); ++i) seeds.predict[i] = i;
  }
  spdlog::info("{}: {} node types, {} edge types{}, {} nodes, {} edges, {} classes; {} train / {} val / {} test {}",
               dir, graph->num_node_types(), graph->relations().size(), options.merge_types ? " (merged)" : "",
               graph->num_nodes(), graph->num_edges(), o.num_classes, seeds.train.size(), seeds.val.size(),
               seeds.test.size(), target);
  std::unique_ptr<LocalNodeEmbedding> embedding;
  if (options.embedding_dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo, MakeNodeEmbeddingOptions(options.embedding_dim,
                                                                          options.embedding_optimizer,
                                                                          options.embedding_lr, o.seed));
    DG_ASSIGN_OR_RETURN(embedding, LocalNodeEmbedding::Create(graph->num_nodes(), eo));
    o.embedding = embedding.get();
    o.use_features = true;
  }
  if (o.threads <= 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    o.threads = std::max(1, cores - options.sampler_threads);
  }
  DG_RETURN_IF_ERROR(WriteRunInfo(o.out_dir, {{"kind", "train-local"}, {"command", options.command}}, ""));
  DG_ASSIGN_OR_RETURN(auto trainer, Trainer::Create(o));
  LocalBatchProvider provider(graph.get(), options.sampler_threads, 4, "features");
  Status fit = trainer->Fit(&provider, seeds);
  {
    std::filesystem::create_directories(o.out_dir + "/logs");
    std::ofstream log(o.out_dir + "/logs/train-local.log");
    log << "peak RSS " << PeakRssBytes() / 1048576.0 << " MB\n";
  }
  auto report = WriteRunReport(o.out_dir);
  if (!report.ok()) spdlog::warn("no report: {}", report.status().message());
  DG_RETURN_IF_ERROR(fit);
  spdlog::info("done; outputs in {}; peak RSS {:.1f} MB", o.out_dir, PeakRssBytes() / 1048576.0);
  return Status::OK();
}

}  // namespace dg
