// LayerwiseForm: what layer-wise computation does differently on a
// homogeneous partition, a typed partition (layerwise_inference.h) and a
// graph behind a NeighborSource with the model being trained (source_form.h,
// link prediction's evaluation and embeddings). The one driver, RunLayers
// (layerwise_inference.cpp), owns the rest: each trainer's share of the
// nodes, batches, the tables TAG:hN (source/layer_tables.h), the end of each layer.
// A form is one implementation of this interface, in one file.
#pragma once

#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "roles/trainer/inference/layerwise_inference.h"

namespace dg {

class LayerTables;

using NodeRange = std::pair<int64_t, int64_t>;  // [begin, end) of new global ids

class LayerwiseForm {
 public:
  virtual ~LayerwiseForm() = default;

  // Whether the model fits this form and the partition has something to
  // infer; InvalidArgument naming what is missing.
  virtual Status Check() const = 0;
  // Whether layer 0 reads TAG:h0, made first by InputRows for every node of
  // InputRange (typed: forward_input); else layer 0 reads the node inputs.
  virtual bool has_input_layer() const { return false; }
  virtual NodeRange InputRange() const { return {0, 0}; }
  virtual Result<torch::Tensor> InputRows(const std::vector<int64_t>& dst) = 0;
  // The nodes of this machine's partition that layer l computes.
  virtual NodeRange LayerRange(int l, bool last) const = 0;
  // Layer l's rows of `dst`; `input` is the DistTensor of its input ("" for
  // layer 0 of a form without an input layer).
  virtual Result<torch::Tensor> LayerRows(int l, const std::vector<int64_t>& dst, const std::string& input) = 0;
  // Rank 0 after the last layer: the output files and the exact accuracy
  // (RunLayerwiseInference's forms).
  virtual Status WriteOutputs(const std::string& /*last*/, const std::string& /*hidden*/,
                              InferenceResult* /*result*/) {
    return Status::Internal("this layer-wise form writes no output files");
  }
};

// How the trainers share the layers' nodes and name the tables.
struct LayerShare {
  int trainers_per_machine = 1, index = 0;  // this trainer's cut of each LayerRange
  int64_t batch_size = 1024;
  std::string tag;          // tables TAG:h0 (input layer), TAG:h1, ...
  bool log_layers = true;   // one info line per layer
};

// The tables of the last layer and of the one before it (the last hidden
// layer; "" for a one-layer form without an input layer).
struct LayerOutputs {
  std::string last, hidden;
};

// Every layer of `form` in order into `tables`, each trainer its share; the
// caller puts the model in eval mode without gradients.
Result<LayerOutputs> RunLayers(LayerwiseForm& form, LayerTables& tables, const LayerShare& share, int layers);

// `client`, `options` and `module` outlive the form.
std::unique_ptr<LayerwiseForm> MakeHomogeneousForm(DistGraphClient* client, const InferenceOptions& options,
                                                   torch::jit::Module* module);
std::unique_ptr<LayerwiseForm> MakeTypedForm(DistGraphClient* client, const InferenceOptions& options,
                                             torch::jit::Module* module);

}  // namespace dg
