// LocalGraphSource (local_source.h): what each task trains on from a dataset
// read into memory, batches made in this process.
#include "roles/trainer/source/local_source.h"

#include "common/storage/typed_dataset.h"
#include "roles/trainer/source/cv_store.h"
#include "roles/trainer/source/layer_tables.h"

namespace dg {

constexpr int kPrefetch = 4;  // batches made ahead of the step

LocalGraphSource::LocalGraphSource(const TrainSpec& spec, std::unique_ptr<DatasetReader> reader)
    : spec_(spec), reader_(std::move(reader)) {}
LocalGraphSource::~LocalGraphSource() = default;

Result<std::unique_ptr<LocalGraphSource>> LocalGraphSource::Open(const TrainSpec& spec) {
  std::unique_ptr<DatasetReader> reader =
      IsTypedDatasetDir(spec.dataset_dir) ? MakeTypedReader() : MakeHomogeneousReader();
  DG_RETURN_IF_ERROR(reader->Check(spec));
  std::unique_ptr<LocalGraphSource> s(new LocalGraphSource(spec, std::move(reader)));
  if (spec.task == TrainTask::kLink) {
    DG_RETURN_IF_ERROR(s->reader_->ReadLinks(spec, &s->links_, &s->table_, &s->batches_));
  } else {
    DG_RETURN_IF_ERROR(s->reader_->ReadNodes(spec, &s->nodes_));
  }
  return s;
}

std::string LocalGraphSource::FeatureName() const { return spec_.embedding.uses_features() ? "features" : ""; }

// Every node, in id order: the rows of predictions.npy / embeddings.npy.
std::vector<int64_t> LocalGraphSource::Predict(bool asked) const {
  if (!asked) return {};
  std::vector<int64_t> all(static_cast<size_t>(num_nodes()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  return all;
}

Result<NodeInput> LocalGraphSource::Nodes() {
  node_batches_ =
      std::make_unique<LocalBatchProvider>(reader_->graph(), spec_.sampler_threads, kPrefetch, FeatureName());
  NodeInput in = nodes_;
  in.batches = node_batches_.get();
  if (in.layerwise_source) {
    layer_tables_ = MakeLocalLayerTables(num_nodes());
    in.layer_tables = layer_tables_.get();
    in.feature_name = FeatureName();
  }
  if (!in.outputs.typed()) in.outputs.predict = Predict(spec_.save_predictions || spec_.save_embeddings);
  return in;
}

Result<LinkInput> LocalGraphSource::Links() {
  batches_.feature_name = FeatureName();
  batches_.negatives = spec_.link.negative_k;
  edge_batches_ =
      std::make_unique<LinkBatchProvider>(reader_->graph(), &table_, batches_, spec_.sampler_threads, kPrefetch);
  node_batches_ =
      std::make_unique<LocalBatchProvider>(reader_->graph(), spec_.sampler_threads, kPrefetch, FeatureName());
  LinkInput in = links_;
  in.edges = edge_batches_.get();
  in.nodes = node_batches_.get();
  in.link.feature_name = FeatureName();
  in.link.num_nodes = num_nodes();
  layer_tables_ = MakeLocalLayerTables(num_nodes());
  in.link.layer_tables = layer_tables_.get();
  if (!in.outputs.typed()) in.outputs.predict = Predict(spec_.save_embeddings);
  return in;
}

Result<CvInput> LocalGraphSource::ControlVariate() {
  InMemoryGraph* graph = reader_->homogeneous();
  if (!graph) return Status::InvalidArgument("--algorithm control_variate needs a homogeneous dataset");
  cv_store_ = std::make_unique<LocalCvStore>(graph);
  node_batches_ =
      std::make_unique<LocalBatchProvider>(reader_->graph(), spec_.sampler_threads, kPrefetch, FeatureName());
  CvInput in;
  in.store = cv_store_.get();
  in.batches = node_batches_.get();
  in.train = nodes_.train;
  in.val = nodes_.val;
  in.test = nodes_.test;
  in.predict = Predict(spec_.save_predictions || spec_.save_embeddings);
  in.input = spec_.cv_input;
  if (in.input.empty() && spec_.embedding.uses_features()) {  // the propagated input, computed here
    in.input = "cv_input";
    DG_ASSIGN_OR_RETURN(Array x, graph->NodeData(spec_.features));
    DG_ASSIGN_OR_RETURN(Array ax, MeanOverInNeighbours(*graph, x));
    cv_store_->AddArray(in.input, std::move(ax));
  }
  return in;
}

Result<HistoricalInput> LocalGraphSource::Historical() {
  InMemoryGraph* graph = reader_->homogeneous();
  if (!graph) return Status::InvalidArgument("--historical-layers needs a homogeneous dataset");
  HistoricalInput in;
  DG_ASSIGN_OR_RETURN(in.nodes, Nodes());
  cv_store_ = std::make_unique<LocalCvStore>(graph);
  in.store = cv_store_.get();
  in.sampler_threads = spec_.sampler_threads;
  return in;
}

std::function<uint64_t()> LocalGraphSource::NetworkBytes() {
  if (spec_.algorithm != TrainAlgorithm::kControlVariate && !spec_.historical.enabled()) return nullptr;
  return [this] { return cv_store_ ? static_cast<uint64_t>(cv_store_->bytes()) : 0; };
}

}  // namespace dg
