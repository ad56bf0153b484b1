// The one layer-wise driver (layerwise_form.h): the layers in order and each
// trainer's share of their nodes, into LayerTables; what a homogeneous or
// typed partition, or a NeighborSource, does differently is its LayerwiseForm.
// RunLayerwiseInference (layerwise_inference.h) runs it over DistTensors.
#include "roles/trainer/inference/layerwise_inference.h"

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "roles/trainer/source/layer_tables.h"
#include "roles/trainer/inference/layerwise_form.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

using RowsFn = std::function<Result<torch::Tensor>(const std::vector<int64_t>&)>;

// This trainer's share of `r`, a range of its machine's partition cut among the machine's trainers.
NodeRange Share(const LayerShare& o, NodeRange r) {
  const int64_t per = (r.second - r.first + o.trainers_per_machine - 1) / o.trainers_per_machine;
  const int64_t lo = std::min(r.second, r.first + per * o.index);
  return {lo, std::min(r.second, lo + per)};
}

// One layer: the rows of this trainer's share of `range`, in batches, written
// into table `output`; the layer ends when every trainer has written its rows.
Status ComputeLayer(LayerTables& tables, const LayerShare& o, NodeRange range, const std::string& output,
                    const RowsFn& rows, const std::string& what) {
  const auto [lo, hi] = Share(o, range);
  std::vector<int64_t> dst;
  for (int64_t c = lo; c < hi; c += o.batch_size) {
    dst.clear();
    for (int64_t v = c; v < std::min(hi, c + o.batch_size); ++v) dst.push_back(v);
    DG_ASSIGN_OR_RETURN(torch::Tensor h, rows(dst));
    DG_RETURN_IF_ERROR(tables.Write(output, dst, TensorArray(h.to(torch::kFloat32).contiguous())));
  }
  DG_RETURN_IF_ERROR(tables.EndLayer(output));
  if (o.log_layers) spdlog::info("{} done ({} nodes here)", what, hi - lo);
  return Status::OK();
}

}  // namespace

Result<LayerOutputs> RunLayers(LayerwiseForm& form, LayerTables& tables, const LayerShare& share, int layers) {
  std::string input, hidden;  // the tables of the layer's input and of the one before
  if (form.has_input_layer()) {
    input = share.tag + ":h0";
    DG_RETURN_IF_ERROR(ComputeLayer(tables, share, form.InputRange(), input,
                                    [&](const std::vector<int64_t>& dst) { return form.InputRows(dst); },
                                    "input layer"));
  }
  for (int l = 0; l < layers; ++l) {
    const std::string output = share.tag + ":h" + std::to_string(l + 1);
    DG_RETURN_IF_ERROR(ComputeLayer(tables, share, form.LayerRange(l, l + 1 == layers), output,
                                    [&](const std::vector<int64_t>& dst) { return form.LayerRows(l, dst, input); },
                                    "layer " + std::to_string(l + 1) + " of " + std::to_string(layers)));
    hidden = input;
    input = output;
  }
  return LayerOutputs{input, hidden};
}

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
  std::unique_ptr<LayerTables> tables = MakeDistLayerTables(client, o.world);
  LayerShare share;
  share.trainers_per_machine = o.trainers_per_machine;
  share.index = o.index;
  share.batch_size = o.batch_size;
  share.tag = o.tag;
  DG_ASSIGN_OR_RETURN(LayerOutputs out, RunLayers(*form, *tables, share, layers));
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.rank == 0) DG_RETURN_IF_ERROR(form->WriteOutputs(out.last, out.hidden, result));
  return Status::OK();
}

}  // namespace dg
