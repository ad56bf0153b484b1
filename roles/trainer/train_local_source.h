// A graph source of `distgnn train-local`: a dataset directory held in memory,
// and what each task trains on from it. train_local.cpp composes one source
// with one task (node classification, control variate, link prediction):
//  - MakeInMemorySource (train_local_graph.cpp): a homogeneous dataset
//    (edges.npy, features.npy, ...), edges normalized as spec.undirected asks.
//  - MakeTypedInMemorySource (train_local_typed.cpp): a typed dataset
//    (meta.json, docs/formats.md), sampled by edge type for a typed model, or,
//    with spec.merge_types, one node and edge type for a homogeneous model.
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
#include "roles/trainer/link_trainer.h"
#include "roles/trainer/trainer.h"

namespace dg {

// Node classification: the graph, this run's seeds and the number of classes.
struct LocalNodeData {
  NeighborSource* graph = nullptr;        // owned by the source
  InMemoryGraph* homogeneous = nullptr;   // the same graph when homogeneous (control variate); else null
  TrainerSeeds seeds;
  int64_t num_classes = 0;
  int64_t num_nodes = 0;
};

// Link prediction: the message-passing graph, the training edges and how
// their batches are made, and the held-out edges.
struct LocalLinkData {
  NeighborSource* graph = nullptr;  // owned by the source
  std::unique_ptr<EdgeTable> table;
  LinkBatchOptions batches;
  LinkOptions link;
  LinkSeeds seeds;
  int64_t num_nodes = 0;
};

class LocalGraphSource {
 public:
  virtual ~LocalGraphSource() = default;
  // The settings this source refuses (named by their flags), and the model's
  // fit to the source (typed or not), before anything is loaded.
  virtual Status Check(const TrainSpec& spec) = 0;
  virtual Result<LocalNodeData> LoadNodes(const TrainSpec& spec) = 0;
  virtual Result<LocalLinkData> LoadLinks(const TrainSpec& spec) = 0;
};

std::unique_ptr<LocalGraphSource> MakeInMemorySource();
std::unique_ptr<LocalGraphSource> MakeTypedInMemorySource();

// Number of classes: `classes` if > 0, else 1 + the largest label of a
// labelled node; every label of seeds must be in [0, classes). `where` names
// the labels file in errors, `first` is subtracted from ids in messages.
Result<int64_t> CheckSeedLabels(const int64_t* labels, const TrainerSeeds& seeds, int64_t classes,
                                const std::string& where, int64_t first);

}  // namespace dg
