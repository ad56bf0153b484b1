// `distgnn train-local --task link` on a typed dataset: link prediction on one
// edge type (train_local_link.h states what is split, excluded and drawn).
#include <spdlog/spdlog.h>

#include "common/sampling/batch_provider.h"
#include "common/sampling/edge_batch.h"
#include "common/sampling/negative_sampler.h"
#include "common/sampling/typed_graph.h"
#include "common/sampling/typed_link.h"
#include "common/storage/link_split.h"
#include "common/storage/node_embedding.h"
#include "roles/trainer/link_trainer.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/train_local_link.h"
#include "roles/trainer/typed_graph_input.h"

namespace dg {

Status RunTrainLocalTypedLink(const LinkLocalArgs& a, TrainerOptions o) {
  const std::string& dir = a.dataset_dir;
  DG_ASSIGN_OR_RETURN(EdgeSplitFractions fractions, ParseEdgeSplit(a.edge_split, "--edge-split"));
  if (a.negatives < 1) return Status::InvalidArgument("--negatives must be >= 1, got " + std::to_string(a.negatives));
  if (a.eval_negatives < 1)
    return Status::InvalidArgument("--eval-negatives must be >= 1, got " + std::to_string(a.eval_negatives));
  if (a.negative_distribution != "uniform" && a.negative_distribution != "degree")
    return Status::InvalidArgument("--negative-distribution: expected uniform or degree, got '" +
                                   a.negative_distribution + "'");
  if (a.no_features || a.normalize_features)
    return Status::InvalidArgument(dir + " is a typed dataset: --no-features and --normalize-features are not "
                                         "supported on it (featureless types read the node embedding)");
  DG_ASSIGN_OR_RETURN(TypedGraphInput input, LoadTypedGraphInput(dir, a.undirected, nullptr));
  if (a.link_etype.empty()) {
    std::string list;
    for (size_t t = 0; t < input.edge_types.size(); ++t)
      list += (t ? ", " : "") + EdgeTypeName(input, static_cast<int>(t));
    return Status::InvalidArgument(dir + " is a typed dataset: --task link needs --link-etype src:relation:dst, "
                                         "the edge type to predict (edge types: " + list + ")");
  }
  DG_ASSIGN_OR_RETURN(int etype, FindEdgeType(input, a.link_etype, "--link-etype"));
  const std::string etype_name = EdgeTypeName(input, etype);
  {
    DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(o.model_path));
    const bool typed_model = IsTypedModel(module);
    if (typed_model && a.merge_types)
      return Status::InvalidArgument("model " + o.model_path + " is typed (rgcn, hetero-sage); --merge-types needs "
                                     "a homogeneous one (sage, gcn, gat)");
    if (!typed_model && !a.merge_types)
      return Status::InvalidArgument("model " + o.model_path + " is not typed: " + dir +
                                     " is a typed dataset; export an rgcn or hetero-sage model with --task link, or "
                                     "pass --merge-types for a homogeneous model");
  }
  DG_ASSIGN_OR_RETURN(TypedLinkEdges edges, HoldOutTypedEdges(&input, etype, fractions, a.split_seed));
  DG_ASSIGN_OR_RETURN(auto graph, TypedInMemoryGraph::Create(std::move(input), a.merge_types));
  std::vector<int64_t> degrees;
  if (a.negative_distribution == "degree") {  // the destination type's in-degrees in the train edges
    degrees.assign(static_cast<size_t>(edges.dst_count), 0);
    for (int64_t d : edges.train.dst) ++degrees[d - edges.dst_first];
  }
  DG_ASSIGN_OR_RETURN(auto sampler, NegativeSampler::Create(a.negative_distribution, edges.dst_count, degrees,
                                                            "--negative-distribution"));
  spdlog::info("{}: link prediction on {} ({} train / {} val / {} test edges; {}); {} {} negatives per edge from "
               "its {} destination nodes; {} nodes, {} edges in message passing{}",
               dir, etype_name, edges.train.src.size(), edges.val.src.size(), edges.test.src.size(),
               edges.reverse_etype >= 0 ? "val/test and their rev_ edges held out of the graph"
                                        : "val/test held out of the graph",
               a.negatives, a.negative_distribution, edges.dst_count, graph->num_nodes(), graph->num_edges(),
               a.merge_types ? " (types merged)" : "");
  std::unique_ptr<LocalNodeEmbedding> embedding;
  if (a.embedding_dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions neo,
                        MakeNodeEmbeddingOptions(a.embedding_dim, a.embedding_optimizer, a.embedding_lr, o.seed));
    DG_ASSIGN_OR_RETURN(embedding, LocalNodeEmbedding::Create(graph->num_nodes(), neo));
    o.embedding = embedding.get();
    o.use_features = true;
  }
  EdgeTable table;
  table.AddPairs(0, edges.train.src, edges.train.dst);
  LinkBatchOptions lo;
  lo.feature_name = "features";
  lo.negatives = a.negatives;
  lo.sampler = sampler;
  lo.negative_offset = edges.dst_first;
  lo.exclude_reverse = edges.reverse_etype >= 0;
  if (!a.merge_types) {  // merged: exclusion by pair, as on a homogeneous graph
    lo.positive_etype = edges.etype;
    lo.reverse_etype = edges.reverse_etype;
  }
  LinkBatchProvider batches(graph.get(), &table, lo, a.sampler_threads, 4);
  LocalBatchProvider nodes(graph.get(), a.sampler_threads, 4, "features");
  LinkOptions link;
  link.layerwise_source = graph.get();  // used by homogeneous models only (link_trainer.h)
  link.feature_name = "features";
  link.eval_negatives = a.eval_negatives;
  link.num_nodes = graph->num_nodes();
  link.negative_first = edges.dst_first;
  link.negative_count = edges.dst_count;
  LinkSeeds seeds;
  seeds.train = table.EdgeIds();
  seeds.val = std::move(edges.val);
  seeds.test = std::move(edges.test);
  DG_ASSIGN_OR_RETURN(auto trainer, LinkTrainer::Create(o, link));
  return trainer->Fit(&batches, &nodes, seeds);
}

}  // namespace dg
