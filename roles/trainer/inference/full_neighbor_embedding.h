// Every node's output of a model with forward_layer(layer, x, block), one
// layer at a time over full-neighbour blocks of a NeighborSource held in this
// process (link prediction's layer-wise evaluation and embeddings): each
// trainer computes its NodeSplit share of the nodes and the rows are summed
// across trainers, so every trainer holds the whole [N, D] table of each
// layer. Layer 0 reads ModelInput of the nodes (features and learnt rows).
#pragma once

#include <torch/script.h>

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/sampling/minibatch.h"
#include "common/storage/node_embedding.h"
#include "roles/trainer/grad_sync.h"

namespace dg {

struct FullNeighborEmbedding {
  NeighborSource* source = nullptr;
  int64_t num_nodes = 0;
  int layers = 0;
  int64_t batch_size = 1024;
  std::string feature_name = "features";  // layer 0 ("" = the learnt rows alone)
  NodeEmbedding* rows = nullptr;           // learnt rows of layer 0, or null
  bool use_features = true;
  int world = 1, rank = 0;
  GradientSync* sync = nullptr;  // sums the rows across trainers; null for one trainer
};

// The model's rows of every node [num_nodes, D] (eval mode, no gradients);
// `model` names the file in errors.
Result<torch::Tensor> EmbedAllNodes(torch::jit::Module& module, const std::string& model,
                                    const FullNeighborEmbedding& o);

}  // namespace dg
