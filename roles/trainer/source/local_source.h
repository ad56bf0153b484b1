// train-local's GraphSource: a dataset directory held in memory.
// LocalGraphSource::Open checks the spec against the directory and reads what
// the spec's task trains on with one of two readers:
//  - homogeneous (local_graph.cpp): edges.npy, features.npy, ..., edges
//    normalized as spec.undirected asks;
//  - typed (local_typed.cpp): meta.json (docs/formats.md), sampled by edge
//    type for a typed model, or, with spec.merge_types, one node and edge type
//    for a homogeneous model.
// The source then hands out the batches made in this process's threads
// (spec.sampler_threads, 4 ahead), the seeds, and for control variate an
// in-process store whose propagated input is computed here when
// spec.cv_input is "" (the mean of `features` over the in-neighbours, what
// `propagate --hops 1 --norm mean` writes).
//
// Link prediction splits the edges with spec.link.edge_split and split_seed
// exactly as `partition --edge-split ... --seed` does (common/storage/link_split.h)
// -- on a homogeneous dataset without an explicit --edge-split, its
// edge_split.npy wins when present -- and builds the message-passing graph from
// the train edges only. Batches are train edges in in-edge CSR order (edge id =
// CSR position, as in a 1-partition partition), negatives from the uniform or
// degree^0.75 distribution, the batch's edges and their reverses excluded from
// its blocks. On a typed dataset the predicted edges are one edge type's
// (spec.link.etype, common/sampling/typed_link.h): its distinct pairs are
// split, val/test edges leave the graph with their rev_ copies, and negatives
// are nodes of the destination type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/base/status.h"
#include "common/sampling/edge_batch.h"
#include "common/sampling/in_memory_graph.h"
#include "config/train_spec.h"
#include "roles/trainer/source/graph_source.h"

namespace dg {

class LocalCvStore;

// How one kind of dataset directory is read.
class DatasetReader {
 public:
  virtual ~DatasetReader() = default;
  // The settings this reader refuses (named by their flags), and the model's
  // fit to the dataset (typed or not), before anything is read.
  virtual Status Check(const TrainSpec& spec) = 0;
  // Node classification: reads the graph; `in` gets the seeds and classes.
  virtual Status ReadNodes(const TrainSpec& spec, NodeInput* in) = 0;
  // Link prediction: reads the message-passing graph; `in` gets the training
  // edge ids, the held-out edges and the link options, `table` the training
  // edges, `batches` how their batches are made (sampler, exclusion, offsets).
  virtual Status ReadLinks(const TrainSpec& spec, LinkInput* in, EdgeTable* table, LinkBatchOptions* batches) = 0;
  virtual NeighborSource* graph() = 0;
  virtual int64_t num_nodes() const = 0;
  // The graph when it is homogeneous (control variate samples it); else null.
  virtual InMemoryGraph* homogeneous() { return nullptr; }
};

std::unique_ptr<DatasetReader> MakeHomogeneousReader();
std::unique_ptr<DatasetReader> MakeTypedReader();

class LocalGraphSource : public GraphSource {
 public:
  // Checks `spec` (which outlives the source) and reads spec.dataset_dir for spec.task.
  static Result<std::unique_ptr<LocalGraphSource>> Open(const TrainSpec& spec);
  ~LocalGraphSource() override;

  int64_t num_nodes() const { return reader_->num_nodes(); }
  Result<NodeInput> Nodes() override;
  Result<LinkInput> Links() override;
  Result<CvInput> ControlVariate() override;
  Result<HistoricalInput> Historical() override;
  std::function<uint64_t()> NetworkBytes() override;

 private:
  LocalGraphSource(const TrainSpec& spec, std::unique_ptr<DatasetReader> reader);
  std::string FeatureName() const;
  std::vector<int64_t> Predict(bool asked) const;

  const TrainSpec& spec_;
  std::unique_ptr<DatasetReader> reader_;
  NodeInput nodes_;
  LinkInput links_;
  EdgeTable table_;
  LinkBatchOptions batches_;
  std::unique_ptr<BatchProvider> node_batches_, edge_batches_;
  std::unique_ptr<LocalCvStore> cv_store_;
  std::unique_ptr<LayerTables> layer_tables_;  // layer-wise evaluation
};

// Number of classes: `classes` if > 0, else 1 + the largest label of a
// labelled node; every label of the seeds must be in [0, classes). `where`
// names the labels file in errors, `first` is subtracted from ids in messages.
Result<int64_t> CheckSeedLabels(const int64_t* labels, const NodeInput& seeds, int64_t classes,
                                const std::string& where, int64_t first);

}  // namespace dg
