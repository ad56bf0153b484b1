#include "roles/trainer/layerwise_inference.h"

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>
#include <torch/script.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/sampling/minibatch.h"
#include "common/io/npy.h"
#include "roles/trainer/model_runner.h"

namespace dg {
namespace {

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

Array TensorToArray(const torch::Tensor& t) {
  torch::Tensor c = t.contiguous();
  DType dt = c.scalar_type() == torch::kInt64 ? DType::kInt64 : DType::kFloat32;
  if (dt == DType::kFloat32) c = c.to(torch::kFloat32);
  std::vector<int64_t> shape(c.sizes().begin(), c.sizes().end());
  Array a = Array::Zeros(dt, shape);
  std::memcpy(a.data, c.data_ptr(), a.nbytes());
  return a;
}

// Rows of `a` reordered so row j is original node j (order[j] = its new id).
Array ToOriginalOrder(const Array& a, const std::vector<int64_t>& order) {
  Array out = Array::Zeros(a.dtype, a.shape);
  const size_t rb = a.row_bytes();
  for (size_t j = 0; j < order.size(); ++j)
    std::memcpy(out.as<uint8_t>() + j * rb, a.as<uint8_t>() + order[j] * rb, rb);
  return out;
}

Status WriteNpy(const std::string& path, const Array& a) {
  DG_RETURN_IF_ERROR(NpyWrite(path + ".tmp", a));
  std::error_code ec;
  std::filesystem::rename(path + ".tmp", path, ec);
  if (ec) return Status::IOError("rename " + path + ".tmp: " + ec.message());
  return Status::OK();
}

// Rank 0: outputs in original node order and exact accuracy.
Status WriteOutputs(DistGraphClient* client, const InferenceOptions& o, const std::string& last,
                    const std::string& hidden, InferenceResult* result) {
  const PartitionConfig& pc = client->config();
  const int64_t n = pc.num_nodes;
  std::vector<int64_t> all(n);
  for (int64_t i = 0; i < n; ++i) all[i] = i;
  DG_ASSIGN_OR_RETURN(Array logits, client->Pull(last, all));
  DG_ASSIGN_OR_RETURN(Array emb, client->Pull(hidden, all));
  DG_ASSIGN_OR_RETURN(Array orig, NpyLoad(pc.base_dir + "/" + pc.orig_nids));
  std::vector<int64_t> order(n);
  for (int64_t g = 0; g < n; ++g) order[orig.as<int64_t>()[g]] = g;
  torch::Tensor pred = ArrayTensor(logits).argmax(1);
  Array pred_a = TensorToArray(pred);
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  DG_RETURN_IF_ERROR(WriteNpy(o.out_dir + "/predictions.npy", ToOriginalOrder(pred_a, order)));
  DG_RETURN_IF_ERROR(WriteNpy(o.out_dir + "/logits.npy", ToOriginalOrder(logits, order)));
  DG_RETURN_IF_ERROR(WriteNpy(o.out_dir + "/embeddings.npy", ToOriginalOrder(emb, order)));
  if (pc.node_data.count("split") && pc.node_data.count("labels")) {
    DG_ASSIGN_OR_RETURN(Array split, client->Pull("split", all));
    DG_ASSIGN_OR_RETURN(Array labels, client->Pull("labels", all));
    for (int v : {1, 2}) {
      DG_ASSIGN_OR_RETURN(std::vector<int64_t> ids, NodesWithSplit(split, v));
      int64_t ok = 0;
      for (int64_t i : ids) ok += pred_a.as<int64_t>()[i] == labels.as<int64_t>()[i];
      (v == 1 ? result->val_acc : result->test_acc) = ids.empty() ? -1 : double(ok) / ids.size();
    }
  }
  std::ofstream f(o.out_dir + "/inference.json");
  f << "{\"val_acc\": " << result->val_acc << ", \"test_acc\": " << result->test_acc
    << ", \"seconds\": " << result->seconds << ", \"num_nodes\": " << n << "}\n";
  if (!f) return Status::IOError("write " + o.out_dir + "/inference.json failed");
  return Status::OK();
}

}  // namespace

Status RunLayerwiseInference(DistGraphClient* client, const InferenceOptions& o, InferenceResult* result) {
  const auto t0 = std::chrono::steady_clock::now();
  at::set_num_threads(std::max(1, o.threads));
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(o.model_path));
  if (!HasForwardLayer(module) || !module.hasattr("num_layers"))
    return Status::InvalidArgument("model " + o.model_path +
                                   ": layer-wise inference needs forward_layer(layer, x, block) and num_layers");
  module.eval();
  torch::NoGradGuard no_grad;
  const int layers = static_cast<int>(module.attr("num_layers").toInt());
  const PartitionConfig& pc = client->config();
  const PartitionBook& book = client->book();
  // This trainer's share: its machine's partition, cut among the machine's trainers.
  const int64_t begin = book.Begin(o.machine), end = book.End(o.machine);
  const int64_t per = (end - begin + o.trainers_per_machine - 1) / o.trainers_per_machine;
  const int64_t lo = std::min(end, begin + per * o.index), hi = std::min(end, lo + per);

  std::string input, hidden;  // layer l >= 1 reads DistTensor `input`
  for (int l = 0; l < layers; ++l) {
    const std::string output = o.tag + ":h" + std::to_string(l + 1);
    bool created = false;
    for (int64_t c = lo; c < hi; c += o.batch_size) {
      std::vector<int64_t> dst;
      for (int64_t v = c; v < std::min(hi, c + o.batch_size); ++v) dst.push_back(v);
      DG_ASSIGN_OR_RETURN(SampledEdges s, client->SampleNeighbors(dst, -1, false, 0));
      SampledNeighbors nb{std::move(s.offsets), std::move(s.src)};
      std::vector<int64_t> src_nodes;
      Block block = BuildBlock(dst, nb, &src_nodes);
      std::vector<torch::Tensor> xs;
      for (const std::string& name : l == 0 ? o.input_names : std::vector<std::string>{input}) {
        DG_ASSIGN_OR_RETURN(Array x, client->Pull(name, src_nodes));
        xs.push_back(ArrayTensor(x).to(torch::kFloat32));
      }
      torch::Tensor h;
      try {
        h = module.get_method("forward_layer")({int64_t{l}, xs.size() == 1 ? xs[0] : torch::cat(xs, 1),
                                                BlockValue(block)})
                .toTensor();
      } catch (const std::exception& e) {
        return Status::InvalidArgument("model " + o.model_path + ": forward_layer(" + std::to_string(l) +
                                       ") failed: " + FirstLine(e.what()));
      }
      Array rows = TensorToArray(h);
      if (!created) {  // every trainer creates it the same way (idempotent)
        InitTensorSpec spec;
        spec.name = output;
        spec.shape = {pc.num_nodes, h.size(1)};
        DG_RETURN_IF_ERROR(client->InitTensor(spec));
        created = true;
      }
      DG_RETURN_IF_ERROR(client->Push(output, dst, rows, PushMode::kOverwrite));
    }
    if (!created) return Status::InvalidArgument("trainer " + std::to_string(o.rank) + " has no nodes to infer");
    DG_RETURN_IF_ERROR(client->Barrier(output, static_cast<uint32_t>(o.world)));
    spdlog::info("layer {} of {} done", l + 1, layers);
    hidden = input;
    input = output;
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.rank == 0) DG_RETURN_IF_ERROR(WriteOutputs(client, o, input, hidden, result));
  return Status::OK();
}

}  // namespace dg
