#include "roles/trainer/train_local_link.h"

#include <spdlog/spdlog.h>

#include <thread>

#include "common/sampling/batch_provider.h"
#include "common/sampling/edge_batch.h"
#include "common/sampling/negative_sampler.h"
#include "common/storage/dataset.h"
#include "common/sampling/in_memory_graph.h"
#include "common/storage/link_split.h"
#include "common/storage/node_embedding.h"
#include "roles/trainer/link_trainer.h"

namespace dg {

Status RunTrainLocalLink(const LinkLocalArgs& a, TrainerOptions o) {
  DG_ASSIGN_OR_RETURN(EdgeSplitFractions fractions, ParseEdgeSplit(a.edge_split, "--edge-split"));
  if (a.negatives < 1) return Status::InvalidArgument("--negatives must be >= 1, got " + std::to_string(a.negatives));
  if (a.eval_negatives < 1)
    return Status::InvalidArgument("--eval-negatives must be >= 1, got " + std::to_string(a.eval_negatives));
  if (a.negative_distribution != "uniform" && a.negative_distribution != "degree")
    return Status::InvalidArgument("--negative-distribution: expected uniform or degree, got '" +
                                   a.negative_distribution + "'");
  if (a.no_features && a.embedding_dim <= 0)
    return Status::InvalidArgument("--no-features needs --embedding-dim > 0 (the model needs some input)");
  EdgeListOptions eo;
  eo.undirected = a.undirected;
  EdgeListOptions raw;  // normalized below, keeping each edge's input index for edge_split.npy
  DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(a.dataset_dir, raw));
  bool input_split_present = false;
  Array input_split;
  if (!a.edge_split_given)
    DG_RETURN_IF_ERROR(LoadInputEdgeSplit(a.dataset_dir, static_cast<int64_t>(ds.edges.src.size()),
                                          &input_split_present, &input_split));
  std::vector<int64_t> origin;
  NormalizeEdges(&ds.edges, eo, &origin);
  if (a.normalize_features) {
    if (!ds.node_data.count("features"))
      return Status::InvalidArgument(a.dataset_dir + ": --normalize-features, but there is no features.npy");
    DG_RETURN_IF_ERROR(RowNormalize(&ds.node_data["features"], a.dataset_dir + "/features.npy"));
  }
  if (!a.no_features && !ds.node_data.count("features"))
    return Status::InvalidArgument(a.dataset_dir + ": no features.npy (use --no-features --embedding-dim D)");
  std::vector<int8_t> split;
  if (input_split_present) {
    spdlog::info("edge split from {}/edge_split.npy", a.dataset_dir);
    DG_ASSIGN_OR_RETURN(split, SplitFromInput(input_split, ds.edges, origin, a.undirected));
  } else {
    split = AssignEdgeSplit(ds.edges, fractions, a.split_seed, a.undirected);
  }
  DG_ASSIGN_OR_RETURN(HeldOutEdges held, SplitEdgeList(&ds.edges, &origin, split));
  DG_ASSIGN_OR_RETURN(auto graph, InMemoryGraph::FromEdges(ds.num_nodes, ds.edges.src, ds.edges.dst, ds.node_data));
  ds = Dataset();
  EdgeTable table;
  table.AddCsr(0, 0, graph->indptr().data(), graph->num_nodes(), graph->indices().data());
  std::vector<int64_t> degrees(graph->num_nodes());
  for (int64_t i = 0; i < graph->num_nodes(); ++i) degrees[i] = graph->indptr()[i + 1] - graph->indptr()[i];
  DG_ASSIGN_OR_RETURN(auto sampler, NegativeSampler::Create(a.negative_distribution, graph->num_nodes(), degrees,
                                                            "--negative-distribution"));
  spdlog::info("{}: {} nodes; {} train / {} val / {} test edges (message passing over the train edges); "
               "{} {} negatives per edge",
               a.dataset_dir, graph->num_nodes(), graph->num_edges(), held.val.src.size(), held.test.src.size(),
               a.negatives, a.negative_distribution);
  std::unique_ptr<LocalNodeEmbedding> embedding;
  if (a.embedding_dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions neo,
                        MakeNodeEmbeddingOptions(a.embedding_dim, a.embedding_optimizer, a.embedding_lr, o.seed));
    DG_ASSIGN_OR_RETURN(embedding, LocalNodeEmbedding::Create(graph->num_nodes(), neo));
    o.embedding = embedding.get();
    o.use_features = !a.no_features;
  }
  LinkBatchOptions lo;
  lo.feature_name = a.no_features ? "" : "features";
  lo.negatives = a.negatives;
  lo.sampler = sampler;
  lo.exclude_reverse = a.undirected;
  LinkBatchProvider edges(graph.get(), &table, lo, a.sampler_threads, 4);
  LocalBatchProvider nodes(graph.get(), a.sampler_threads, 4, lo.feature_name);
  LinkOptions link;
  link.layerwise_source = graph.get();  // full-neighbor evaluation: every node's embedding, layer by layer
  link.feature_name = lo.feature_name;
  link.eval_negatives = a.eval_negatives;
  link.num_nodes = graph->num_nodes();
  LinkSeeds seeds;
  seeds.train = table.EdgeIds();
  seeds.val = std::move(held.val);
  seeds.test = std::move(held.test);
  DG_ASSIGN_OR_RETURN(auto trainer, LinkTrainer::Create(o, link));
  return trainer->Fit(&edges, &nodes, seeds);
}

}  // namespace dg
