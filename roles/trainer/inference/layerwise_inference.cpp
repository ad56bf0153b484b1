// The one driver of layer-wise inference (layerwise_inference.h): the model,
// the layers in order and each trainer's share of their nodes; what a
// homogeneous or typed partition does differently is its LayerwiseForm.
#include "roles/trainer/inference/layerwise_inference.h"

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "roles/trainer/inference/layerwise_form.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

using RowsFn = std::function<Result<torch::Tensor>(const std::vector<int64_t>&)>;

// This trainer's share of `r`, a range of its machine's partition cut among the machine's trainers.
NodeRange Share(const InferenceOptions& o, NodeRange r) {
  const int64_t per = (r.second - r.first + o.trainers_per_machine - 1) / o.trainers_per_machine;
  const int64_t lo = std::min(r.second, r.first + per * o.index);
  return {lo, std::min(r.second, lo + per)};
}

// One layer: the rows of this trainer's share of `range`, in batches, pushed
// into the DistTensor `output` (created by every trainer with rows the same
// way: idempotent); a barrier of all trainers ends it.
Status ComputeLayer(DistGraphClient* client, const InferenceOptions& o, NodeRange range, const std::string& output,
                    const RowsFn& rows, const std::string& what) {
  const auto [lo, hi] = Share(o, range);
  bool created = false;
  for (int64_t c = lo; c < hi; c += o.batch_size) {
    std::vector<int64_t> dst;
    for (int64_t v = c; v < std::min(hi, c + o.batch_size); ++v) dst.push_back(v);
    DG_ASSIGN_OR_RETURN(torch::Tensor h, rows(dst));
    if (!created) {
      InitTensorSpec spec;
      spec.name = output;
      spec.shape = {client->config().num_nodes, h.size(1)};
      DG_RETURN_IF_ERROR(client->InitTensor(spec));
      created = true;
    }
    DG_RETURN_IF_ERROR(client->Push(output, dst, TensorArray(h), PushMode::kOverwrite));
  }
  DG_RETURN_IF_ERROR(client->Barrier(output, static_cast<uint32_t>(o.world)));
  spdlog::info("{} done ({} nodes here)", what, hi - lo);
  return Status::OK();
}

}  // namespace

Status RunLayerwiseInference(DistGraphClient* client, const InferenceOptions& o, InferenceResult* result) {
  const auto t0 = std::chrono::steady_clock::now();
  at::set_num_threads(std::max(1, o.threads));
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(o.model_path));
  std::unique_ptr<LayerwiseForm> form =
      client->config().typed() ? MakeTypedForm(client, o, &module) : MakeHomogeneousForm(client, o, &module);
  DG_RETURN_IF_ERROR(form->Check());
  module.eval();
  torch::NoGradGuard no_grad;
  const int layers = static_cast<int>(module.attr("num_layers").toInt());
  std::string input, hidden;  // the DistTensors of the layer's input and of the one before
  if (form->has_input_layer()) {
    input = o.tag + ":h0";
    DG_RETURN_IF_ERROR(ComputeLayer(client, o, form->InputRange(), input,
                                    [&](const std::vector<int64_t>& dst) { return form->InputRows(dst); },
                                    "input layer"));
  }
  for (int l = 0; l < layers; ++l) {
    const std::string output = o.tag + ":h" + std::to_string(l + 1);
    DG_RETURN_IF_ERROR(ComputeLayer(client, o, form->LayerRange(l, l + 1 == layers), output,
                                    [&](const std::vector<int64_t>& dst) { return form->LayerRows(l, dst, input); },
                                    "layer " + std::to_string(l + 1) + " of " + std::to_string(layers)));
    hidden = input;
    input = output;
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.rank == 0) DG_RETURN_IF_ERROR(form->WriteOutputs(input, hidden, result));
  return Status::OK();
}

}  // namespace dg
