// Layer-wise distributed inference (DGL's distributed `inference`): exact
// full-neighbour outputs of a model for every node, one layer at a time.
//
// The model must have `forward_layer(layer, x, block)` and `num_layers` (the
// built-in models do). For layer l every trainer takes its share of all nodes
// (its own machine's partition, split among that machine's trainers), builds
// full-neighbour blocks in batches, pulls the layer-l inputs of the sources
// ("features" for l = 0, else the DistTensor h{l}), computes layer l and pushes
// the rows into the DistTensor h{l+1}; a barrier of all trainers ends the
// layer. Rank 0 then writes, in original node order, predictions.npy (int64
// argmax), logits.npy (float32, the last layer) and embeddings.npy (the last
// hidden layer, the input of the last layer), and inference.json with the exact
// accuracy on val and test nodes. A typed partition takes the typed form
// (roles/trainer/typed_layerwise_inference.h). Includes no torch in this header.
#pragma once

#include <cstdint>
#include <string>

#include "common/client/dist_graph_client.h"

namespace dg {

struct InferenceOptions {
  std::string model_path;
  std::string out_dir;            // rank 0 writes here
  // Layer 0's input: these node tensors side by side ("features", and/or a
  // DistEmbedding's table).
  std::vector<std::string> input_names = {"features"};
  int rank = 0, world = 1;        // barrier participants = world
  int machine = 0, index = 0, trainers_per_machine = 1;
  int64_t batch_size = 1024;
  int threads = 1;                // torch intra-op threads
  std::string tag = "infer";      // DistTensors are TAG:h1 ... (unique per run)
};

struct InferenceResult {
  double val_acc = -1, test_acc = -1, seconds = 0;
};

Status RunLayerwiseInference(DistGraphClient* client, const InferenceOptions& options,
                             InferenceResult* result);

}  // namespace dg
