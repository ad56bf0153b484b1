// train-local's homogeneous dataset reader (local_source.h): the dataset as
// one InMemoryGraph, for node classification, control variate and link
// prediction.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/sampling/negative_sampler.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "roles/trainer/source/local_source.h"

namespace dg {
namespace {

Status NormalizeFeatures(const TrainSpec& spec, Dataset* ds) {
  if (!spec.normalize_features) return Status::OK();
  if (!ds->node_data.count("features"))
    return Status::InvalidArgument(spec.dataset_dir + ": --normalize-features, but there is no features.npy");
  return RowNormalize(&ds->node_data["features"], spec.dataset_dir + "/features.npy");
}

// The edges' train/val/test split: the dataset's edge_split.npy unless
// --edge-split was given, else the fractions with --split-seed.
Result<std::vector<int8_t>> SplitEdges(const TrainSpec& spec, Dataset* ds, std::vector<int64_t>* origin) {
  DG_ASSIGN_OR_RETURN(EdgeSplitFractions fractions, ParseEdgeSplit(spec.link.edge_split, "--edge-split"));
  bool input_split_present = false;
  Array input_split;
  if (!spec.link.edge_split_given)
    DG_RETURN_IF_ERROR(LoadInputEdgeSplit(spec.dataset_dir, static_cast<int64_t>(ds->edges.src.size()),
                                          &input_split_present, &input_split));
  EdgeListOptions eo;
  eo.undirected = spec.undirected;
  NormalizeEdges(&ds->edges, eo, origin);
  if (!input_split_present) return AssignEdgeSplit(ds->edges, fractions, spec.link.split_seed, spec.undirected);
  spdlog::info("edge split from {}/edge_split.npy", spec.dataset_dir);
  return SplitFromInput(input_split, ds->edges, *origin, spec.undirected);
}

class HomogeneousReader : public DatasetReader {
 public:
  Status Check(const TrainSpec& spec) override {
    const std::string not_typed = spec.dataset_dir + " is not a typed dataset (no meta.json with node_types)";
    if (!spec.link.etype.empty())
      return Status::InvalidArgument("--link-etype: " + not_typed + "; it has one edge type");
    if (spec.merge_types) return Status::InvalidArgument("--merge-types: " + not_typed);
    return Status::OK();
  }

  NeighborSource* graph() override { return graph_.get(); }
  int64_t num_nodes() const override { return graph_->num_nodes(); }
  InMemoryGraph* homogeneous() override { return graph_.get(); }

  Status ReadNodes(const TrainSpec& spec, NodeInput* d) override {
    EdgeListOptions eo;
    eo.undirected = spec.undirected;
    DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(spec.dataset_dir, eo));
    DG_RETURN_IF_ERROR(NormalizeFeatures(spec, &ds));
    DG_ASSIGN_OR_RETURN(graph_, InMemoryGraph::FromDataset(ds));
    ds = Dataset();  // the graph holds what it needs
    auto labels = graph_->NodeData("labels");
    if (!labels.ok())
      return Status::InvalidArgument("dataset has no labels.npy (" + labels.status().message() + ")");
    if (labels->dtype != DType::kInt64 || labels->shape.size() != 1)
      return Status::InvalidArgument("labels.npy must be int64 [N], got " + std::string(DTypeName(labels->dtype)) +
                                     labels->ShapeString());
    DG_ASSIGN_OR_RETURN(Array split, graph_->NodeData("split"));
    DG_ASSIGN_OR_RETURN(d->train, NodesWithSplit(split, 0));
    DG_ASSIGN_OR_RETURN(d->val, NodesWithSplit(split, 1));
    DG_ASSIGN_OR_RETURN(d->test, NodesWithSplit(split, 2));
    DG_ASSIGN_OR_RETURN(d->num_classes,
                        CheckSeedLabels(labels->as<int64_t>(), *d, spec.num_classes, "labels.npy", 0));
    if (d->train.empty())
      return Status::InvalidArgument(spec.dataset_dir + "/split.npy: no training nodes (no entry equals 0)");
    d->layerwise_source = graph_.get();  // full-neighbour evaluation of every node, layer by layer
    d->num_nodes = graph_->num_nodes();
    d->num_edges = graph_->num_edges();
    spdlog::info("{}: {} nodes, {} edges, {} classes; {} train / {} val / {} test nodes", spec.dataset_dir,
                 graph_->num_nodes(), graph_->num_edges(), d->num_classes, d->train.size(), d->val.size(),
                 d->test.size());
    return Status::OK();
  }

  Status ReadLinks(const TrainSpec& spec, LinkInput* d, EdgeTable* table, LinkBatchOptions* batches) override {
    const bool features = spec.embedding.uses_features();
    DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(spec.dataset_dir, EdgeListOptions()));  // normalized in SplitEdges
    std::vector<int64_t> origin;  // each edge's input index, for edge_split.npy
    DG_ASSIGN_OR_RETURN(std::vector<int8_t> split, SplitEdges(spec, &ds, &origin));
    DG_RETURN_IF_ERROR(NormalizeFeatures(spec, &ds));
    if (features && !ds.node_data.count("features"))
      return Status::InvalidArgument(spec.dataset_dir + ": no features.npy (use --no-features --embedding-dim D)");
    DG_ASSIGN_OR_RETURN(HeldOutEdges held, SplitEdgeList(&ds.edges, &origin, split));
    DG_ASSIGN_OR_RETURN(graph_, InMemoryGraph::FromEdges(ds.num_nodes, ds.edges.src, ds.edges.dst, ds.node_data));
    ds = Dataset();
    table->AddCsr(0, 0, graph_->indptr().data(), graph_->num_nodes(), graph_->indices().data());
    std::vector<int64_t> degrees(graph_->num_nodes());
    for (int64_t i = 0; i < graph_->num_nodes(); ++i) degrees[i] = graph_->indptr()[i + 1] - graph_->indptr()[i];
    DG_ASSIGN_OR_RETURN(batches->sampler, NegativeSampler::Create(spec.link.negative_distribution,
                                                                   graph_->num_nodes(), degrees,
                                                                   "--negative-distribution"));
    batches->exclude_reverse = spec.undirected;
    d->link.layerwise_source = graph_.get();  // full-neighbor evaluation: every node's embedding, layer by layer
    d->train = table->EdgeIds();
    d->val = std::move(held.val);
    d->test = std::move(held.test);
    spdlog::info("{}: {} nodes; {} train / {} val / {} test edges (message passing over the train edges); "
                 "{} {} negatives per edge",
                 spec.dataset_dir, graph_->num_nodes(), graph_->num_edges(), d->val.src.size(),
                 d->test.src.size(), spec.link.negative_k, Name(spec.link.negative_distribution));
    return Status::OK();
  }

 private:
  std::unique_ptr<InMemoryGraph> graph_;
};

}  // namespace

std::unique_ptr<DatasetReader> MakeHomogeneousReader() { return std::make_unique<HomogeneousReader>(); }

Result<int64_t> CheckSeedLabels(const int64_t* labels, const NodeInput& seeds, int64_t classes,
                                const std::string& where, int64_t first) {
  int64_t max_label = -1;
  for (const auto* ids : {&seeds.train, &seeds.val, &seeds.test})
    for (int64_t i : *ids) {
      if (labels[i] < 0 || (classes > 0 && labels[i] >= classes))
        return Status::InvalidArgument(where + ": node " + std::to_string(i - first) + " has label " +
                                       std::to_string(labels[i]) + ", out of range [0, " +
                                       (classes > 0 ? std::to_string(classes) : "inf") + ")");
      max_label = std::max(max_label, labels[i]);
    }
  return classes > 0 ? classes : max_label + 1;
}

}  // namespace dg
