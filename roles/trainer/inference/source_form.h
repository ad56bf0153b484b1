// The layer-wise form (layerwise_form.h) of a graph behind a NeighborSource
// with the model being trained: full-neighbour evaluation of link prediction
// and node classification, and link prediction's embeddings, in a job and in
// train-local. Layer l's blocks hold every
// in-edge of its nodes; layer 0 reads ModelInput of the sources (features
// and learnt rows), later layers the previous layer's table. Every node is
// computed at every layer, the trainers taking even contiguous cuts of the
// ids (LayerShare: trainers_per_machine = world, index = rank).
#pragma once

#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/storage/node_embedding.h"
#include "config/train_spec.h"
#include "roles/trainer/inference/layerwise_form.h"

namespace dg {

class GradientSync;
class NeighborSource;

struct SourceFormOptions {
  NeighborSource* source = nullptr;
  int64_t num_nodes = 0;
  int layers = 0;
  std::string feature_name = "features";  // layer 0 ("" = the learnt rows alone)
  NodeEmbedding* rows = nullptr;           // learnt rows of layer 0, or null
  bool use_features = true;
  std::string model;                       // names the model in errors
};

// The options for the model being trained: spec's layers, model name and
// whether features go in, the run's learnt rows (or null).
SourceFormOptions TrainingFormOptions(const TrainSpec& spec, NodeEmbedding* rows, NeighborSource* source,
                                      int64_t num_nodes, const std::string& feature_name);

// `module`, `tables` and the options' pointers outlive the form.
std::unique_ptr<LayerwiseForm> MakeSourceForm(const SourceFormOptions& options, torch::jit::Module* module,
                                              LayerTables* tables);

// Every node's rows through every layer of `module` (eval mode, no
// gradients) into `tables` as TAG:h1, TAG:h2, ..., this trainer (`rank` of
// `world`) computing its even cut of each layer in batches of `batch_size`
// destinations; the name of the last layer's table. Collective: every
// trainer calls it; with `sync` (several trainers) each layer ends in its
// collective, which names a lost or frozen trainer by its deadline.
Result<std::string> ComputeEveryNode(const SourceFormOptions& options, torch::jit::Module* module,
                                     LayerTables* tables, GradientSync* sync, int rank, int world,
                                     int64_t batch_size, const std::string& tag);

}  // namespace dg
