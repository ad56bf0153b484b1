// Layer-wise distributed inference on a typed partition (format_version 2):
// the typed form of RunLayerwiseInference (roles/trainer/layerwise_inference.h),
// which calls it when the client's partition is typed.
//
// The model must be typed (docs/models.md "Typed graphs") and have
// `forward_input(x, ntype)` (layer 0's input rows -> its first hidden rows,
// by node type), `forward_layer(layer, h, block)` and `num_layers`; the
// built-in rgcn and hetero-sage models do. The input layer depends on a
// node's own row and type only, so it runs once per node: every trainer
// takes its share of all nodes (its own machine's partition, split among
// that machine's trainers), pulls their padded "features" rows and the job's
// node embedding rows (the DistEmbedding, read only for featureless types)
// and pushes forward_input's rows into the DistTensor TAG:h0. For layer l
// every trainer takes its share of the nodes the next layer needs (every
// node of every type for l < L-1; the target type only for the last layer),
// samples the full in-neighbourhood of every edge type (typed
// SAMPLE_NEIGHBORS, fanout -1 per type), pulls the sources' rows of TAG:h{l},
// computes layer l and pushes the rows into TAG:h{l+1}. A barrier of all
// trainers ends each layer. Rank 0 then writes, for the target type in its
// original type-local order, predictions.npy, logits.npy, embeddings.npy
// (the input of the last layer) and inference.json with the exact accuracy
// on the target's val and test nodes. Includes no torch in this header.
#pragma once

#include "roles/trainer/layerwise_inference.h"

namespace dg {

Status RunTypedLayerwiseInference(DistGraphClient* client, const InferenceOptions& options, InferenceResult* result);

}  // namespace dg
