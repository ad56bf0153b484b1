// LayerwiseForm: what layer-wise inference (layerwise_inference.h) does
// differently on a homogeneous and on a typed partition. The driver
// (layerwise_inference.cpp) owns the rest: each trainer's share of the nodes,
// batches, the DistTensors TAG:hN, barriers, timing. A form is one
// implementation of this interface, in one file.
#pragma once

#include <torch/script.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "roles/trainer/inference/layerwise_inference.h"

namespace dg {

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
  // Rank 0 after the last layer: the output files and the exact accuracy.
  virtual Status WriteOutputs(const std::string& last, const std::string& hidden, InferenceResult* result) = 0;
};

// `client`, `options` and `module` outlive the form.
std::unique_ptr<LayerwiseForm> MakeHomogeneousForm(DistGraphClient* client, const InferenceOptions& options,
                                                   torch::jit::Module* module);
std::unique_ptr<LayerwiseForm> MakeTypedForm(DistGraphClient* client, const InferenceOptions& options,
                                             torch::jit::Module* module);

}  // namespace dg
