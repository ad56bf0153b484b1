// train-local's typed dataset reader (local_source.h): a typed dataset as
// one TypedInMemoryGraph -- a fanout per edge type for a typed model, or, with
// --merge-types, the same graph seen as one node and edge type -- for node
// classification of the target type and link prediction on one edge type.
#include <spdlog/spdlog.h>

#include "common/sampling/negative_sampler.h"
#include "common/sampling/typed_graph.h"
#include "common/sampling/typed_link.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/source/local_source.h"
#include "roles/trainer/model/typed_graph_input.h"

namespace dg {
namespace {

class TypedReader : public DatasetReader {
 public:
  Status Check(const TrainSpec& spec) override {
    const std::string& dir = spec.dataset_dir;
    const bool link = spec.task == TrainTask::kLink;
    if (spec.algorithm != TrainAlgorithm::kSample)
      return Status::InvalidArgument(dir + " is a typed dataset: train-local supports --algorithm sample on it");
    if (!spec.embedding.features || spec.normalize_features)
      return Status::InvalidArgument(dir + " is a typed dataset: --no-features and --normalize-features are not "
                                           "supported on it (featureless types read the node embedding)");
    DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(spec.model));
    const bool typed_model = IsTypedModel(module);
    if (typed_model && spec.merge_types)
      return Status::InvalidArgument("model " + spec.model + " is typed (rgcn, hetero-sage); --merge-types needs "
                                     "a homogeneous one (sage, gcn, gat, mlp)");
    if (!typed_model && !spec.merge_types)
      return Status::InvalidArgument("model " + spec.model + " is not typed: " + dir +
                                     " is a typed dataset; export an rgcn or hetero-sage model" +
                                     (link ? " with --task link" : "") + ", or pass --merge-types for a homogeneous model");
    return Status::OK();
  }

  NeighborSource* graph() override { return graph_.get(); }
  int64_t num_nodes() const override { return graph_->num_nodes(); }

  Status ReadNodes(const TrainSpec& spec, NodeInput* d) override {
    const std::string& dir = spec.dataset_dir;
    int64_t meta_classes = 0;
    DG_ASSIGN_OR_RETURN(TypedGraphInput input, LoadTypedGraphInput(dir, spec.undirected, &meta_classes));
    const std::string target = input.node_types[input.target].name;
    const int target_type = input.target;
    DG_ASSIGN_OR_RETURN(graph_, TypedInMemoryGraph::Create(std::move(input), spec.merge_types));
    DG_ASSIGN_OR_RETURN(d->train, NodesWithSplit(graph_->split(), 0));
    DG_ASSIGN_OR_RETURN(d->val, NodesWithSplit(graph_->split(), 1));
    DG_ASSIGN_OR_RETURN(d->test, NodesWithSplit(graph_->split(), 2));
    const int64_t classes = spec.num_classes > 0 ? spec.num_classes : meta_classes;
    DG_ASSIGN_OR_RETURN(d->num_classes, CheckSeedLabels(graph_->labels().as<int64_t>(), *d, classes,
                                                       dir + "/nodes/" + target + "/labels.npy",
                                                       graph_->type_offsets()[0]));
    if (d->train.empty()) return Status::InvalidArgument(dir + ": no training nodes of the target type");
    d->outputs = OutputRows(spec, target_type);
    spdlog::info("{}: {} node types, {} edge types{}, {} nodes, {} edges, {} classes; {} train / {} val / {} test {}",
                 dir, graph_->num_node_types(), graph_->relations().size(), spec.merge_types ? " (merged)" : "",
                 graph_->num_nodes(), graph_->num_edges(), d->num_classes, d->train.size(), d->val.size(),
                 d->test.size(), target);
    return Status::OK();
  }

  Status ReadLinks(const TrainSpec& spec, LinkInput* d, EdgeTable* table, LinkBatchOptions* batches) override {
    const std::string& dir = spec.dataset_dir;
    DG_ASSIGN_OR_RETURN(EdgeSplitFractions fractions, ParseEdgeSplit(spec.link.edge_split, "--edge-split"));
    DG_ASSIGN_OR_RETURN(TypedGraphInput input, LoadTypedGraphInput(dir, spec.undirected, nullptr));
    if (spec.link.etype.empty()) {
      std::string list;
      for (size_t t = 0; t < input.edge_types.size(); ++t)
        list += (t ? ", " : "") + EdgeTypeName(input, static_cast<int>(t));
      return Status::InvalidArgument(dir + " is a typed dataset: --task link needs --link-etype src:relation:dst, "
                                           "the edge type to predict (edge types: " + list + ")");
    }
    DG_ASSIGN_OR_RETURN(int etype, FindEdgeType(input, spec.link.etype, "--link-etype"));
    const std::string etype_name = EdgeTypeName(input, etype);
    DG_ASSIGN_OR_RETURN(TypedLinkEdges edges, HoldOutTypedEdges(&input, etype, fractions, spec.link.split_seed));
    DG_ASSIGN_OR_RETURN(graph_, TypedInMemoryGraph::Create(std::move(input), spec.merge_types));
    std::vector<int64_t> degrees;
    if (spec.link.negative_distribution == NegativeDistribution::kDegree) {  // the type's train in-degrees
      degrees.assign(static_cast<size_t>(edges.dst_count), 0);
      for (int64_t dst : edges.train.dst) ++degrees[dst - edges.dst_first];
    }
    DG_ASSIGN_OR_RETURN(batches->sampler, NegativeSampler::Create(spec.link.negative_distribution,
                                                                   edges.dst_count, degrees,
                                                                   "--negative-distribution"));
    batches->negative_offset = edges.dst_first;
    batches->exclude_reverse = edges.reverse_etype >= 0;
    if (!spec.merge_types) {  // merged: exclusion by pair, as on a homogeneous graph
      batches->positive_etype = edges.etype;
      batches->reverse_etype = edges.reverse_etype;
    }
    table->AddPairs(0, edges.train.src, edges.train.dst);
    d->outputs = OutputRows(spec, -1);
    d->link.layerwise_source = graph_.get();  // used by homogeneous models only (graph_source.h)
    d->link.negative_first = edges.dst_first;
    d->link.negative_count = edges.dst_count;
    spdlog::info("{}: link prediction on {} ({} train / {} val / {} test edges; {}); {} {} negatives per edge from "
                 "its {} destination nodes; {} nodes, {} edges in message passing{}",
                 dir, etype_name, edges.train.src.size(), edges.val.src.size(), edges.test.src.size(),
                 edges.reverse_etype >= 0 ? "val/test and their rev_ edges held out of the graph"
                                          : "val/test held out of the graph",
                 spec.link.negative_k, Name(spec.link.negative_distribution), edges.dst_count, graph_->num_nodes(),
                 graph_->num_edges(), spec.merge_types ? " (types merged)" : "");
    d->train = table->EdgeIds();
    d->val = std::move(edges.val);
    d->test = std::move(edges.test);
    return Status::OK();
  }

 private:
  // The target type's nodes for predictions.npy (target_type -1: none);
  // every node, type after type, for embeddings/<type>.npy (global ids are
  // type-major, each type in type-local order).
  NodeOutputRows OutputRows(const TrainSpec& spec, int target_type) const {
    NodeOutputRows rows;
    const std::vector<int64_t>& at = graph_->type_offsets();
    for (int t = 0; t < graph_->num_node_types(); ++t)
      rows.embed_types.emplace_back(graph_->type_names()[t], at[t + 1] - at[t]);
    auto range = [](int64_t begin, int64_t end) {
      std::vector<int64_t> ids(static_cast<size_t>(end - begin));
      for (int64_t i = begin; i < end; ++i) ids[i - begin] = i;
      return ids;
    };
    if (spec.save_predictions && target_type >= 0) rows.predict = range(at[target_type], at[target_type + 1]);
    if (spec.save_embeddings) rows.embed = range(0, at.back());
    return rows;
  }

  std::unique_ptr<TypedInMemoryGraph> graph_;
};

}  // namespace

std::unique_ptr<DatasetReader> MakeTypedReader() { return std::make_unique<TypedReader>(); }

}  // namespace dg
