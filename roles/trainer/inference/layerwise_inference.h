// Layer-wise distributed inference (DGL's distributed `inference`): exact
// full-neighbour outputs of a model for every node, one layer at a time.
//
// For each layer every trainer takes its share of the nodes the layer
// computes (its own machine's partition, cut among that machine's trainers),
// builds full-neighbour blocks in batches, pulls the sources' rows of the
// layer's input, computes the layer and pushes the rows into the DistTensor
// TAG:h{l+1}; a barrier of all trainers ends the layer. Rank 0 then writes
// predictions.npy (int64 argmax), logits.npy (float32, the last layer),
// embeddings.npy (the last hidden layer, the input of the last layer) and
// inference.json with the exact accuracy on val and test nodes.
//
// One driver (layerwise_inference.cpp) runs both forms of a partition
// (layerwise_form.h):
//  - homogeneous (homogeneous_form.cpp): the model has forward_layer(layer, x,
//    block) and num_layers (the built-in models do); layer 0 reads the node
//    inputs (o.input_names side by side); outputs in original node order.
//  - typed (typed_form.cpp, format_version 2): the model is typed
//    (docs/models.md "Typed graphs") with forward_input(x, ntype),
//    forward_layer and num_layers (rgcn, hetero-sage). The input layer
//    depends on a node's own row and type only, so it runs once per node into
//    TAG:h0 (the padded "features" rows and the job's node embedding, read only
//    for featureless types); blocks hold the full in-neighbourhood of every
//    edge type; the last layer computes the target type only, and the outputs
//    are the target type's, in its original type-local order.
// Includes no torch in this header.
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
