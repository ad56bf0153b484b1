#include "roles/trainer/typed_layerwise_inference.h"

#include <ATen/Parallel.h>
#include <spdlog/spdlog.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/client/typed_node_rows.h"
#include "common/io/npy.h"
#include "common/sampling/minibatch.h"
#include "common/storage/partition_seeds.h"
#include "roles/trainer/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

// Rank 0: the target type's rows of the last two layers in original
// type-local order (type_nids/<target>.npy lists their global ids in that
// order, so the files are written sequentially, in chunks), and the exact
// accuracy on the target's val and test nodes (the per-part id files).
Status WriteTypedOutputs(DistGraphClient* client, const InferenceOptions& o, const std::string& last,
                         const std::string& hidden, InferenceResult* result) {
  const PartitionConfig& pc = client->config();
  const int target = pc.NodeTypeId(pc.target);
  const std::string nids_path = pc.TypeNidsPath(target);
  DG_ASSIGN_OR_RETURN(Array gids, NpyLoad(nids_path));
  const int64_t n = pc.num_nodes_per_type[target];
  if (gids.dtype != DType::kInt64 || gids.numel() != n)
    return Status::InvalidArgument(nids_path + ": expected int64 [" + std::to_string(n) + "]");
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  NpyWriter pred_out, logits_out, emb_out;
  constexpr int64_t kChunk = 65536;
  for (int64_t c = 0; c < n; c += kChunk) {
    const std::vector<int64_t> ids(gids.as<int64_t>() + c, gids.as<int64_t>() + std::min(n, c + kChunk));
    DG_ASSIGN_OR_RETURN(Array logits, client->Pull(last, ids));
    Array emb;
    if (!hidden.empty()) {
      DG_ASSIGN_OR_RETURN(emb, client->Pull(hidden, ids));
    }
    torch::Tensor pred = ArrayTensor(logits).argmax(1).contiguous();
    if (c == 0) {
      DG_RETURN_IF_ERROR(pred_out.Open(o.out_dir + "/predictions.npy", DType::kInt64, {n}));
      DG_RETURN_IF_ERROR(logits_out.Open(o.out_dir + "/logits.npy", logits.dtype, {n, logits.shape[1]}));
      if (!hidden.empty())
        DG_RETURN_IF_ERROR(emb_out.Open(o.out_dir + "/embeddings.npy", emb.dtype, {n, emb.shape[1]}));
    }
    DG_RETURN_IF_ERROR(pred_out.Append(pred.data_ptr(), sizeof(int64_t) * ids.size()));
    DG_RETURN_IF_ERROR(logits_out.Append(logits.data, logits.nbytes()));
    if (!hidden.empty()) DG_RETURN_IF_ERROR(emb_out.Append(emb.data, emb.nbytes()));
  }
  DG_RETURN_IF_ERROR(pred_out.Finish());
  DG_RETURN_IF_ERROR(logits_out.Finish());
  if (!hidden.empty()) DG_RETURN_IF_ERROR(emb_out.Finish());
  const std::string prefix = pc.target + "/";
  if (pc.node_data.count(prefix + "split") && pc.node_data.count(prefix + "labels")) {
    DG_RETURN_IF_ERROR(RequirePartSeeds(pc));
    auto pull_split = [&](int64_t begin, int64_t end) {
      std::vector<int64_t> ids(static_cast<size_t>(end - begin));
      for (int64_t i = begin; i < end; ++i) ids[i - begin] = i;
      return PullTypedNodeRows(client, "split", ids);
    };
    double* acc[2] = {&result->val_acc, &result->test_acc};
    for (int v : {1, 2}) {
      DG_ASSIGN_OR_RETURN(std::vector<int64_t> ids, PartSeedSlice(pc, v, 1, 0, /*even=*/false, pull_split));
      if (ids.empty()) continue;
      DG_ASSIGN_OR_RETURN(Array labels, PullTypedNodeRows(client, "labels", ids));
      DG_ASSIGN_OR_RETURN(Array logits, client->Pull(last, ids));
      torch::Tensor pred = ArrayTensor(logits).argmax(1);
      *acc[v - 1] = pred.eq(ArrayTensor(labels)).sum().item<int64_t>() / static_cast<double>(ids.size());
    }
  }
  std::ofstream f(o.out_dir + "/inference.json");
  f << "{\"val_acc\": " << result->val_acc << ", \"test_acc\": " << result->test_acc
    << ", \"seconds\": " << result->seconds << ", \"num_nodes\": " << n << ", \"node_type\": \"" << pc.target
    << "\"}\n";
  if (!f) return Status::IOError("write " + o.out_dir + "/inference.json failed");
  return Status::OK();
}

}  // namespace

Status RunTypedLayerwiseInference(DistGraphClient* client, const InferenceOptions& o, InferenceResult* result) {
  const auto t0 = std::chrono::steady_clock::now();
  at::set_num_threads(std::max(1, o.threads));
  DG_ASSIGN_OR_RETURN(torch::jit::Module module, LoadModel(o.model_path));
  if (!IsTypedModel(module) || !HasForwardLayer(module) || !module.find_method("forward_input") ||
      !module.hasattr("num_layers"))
    return Status::InvalidArgument("model " + o.model_path +
                                   ": layer-wise inference on a typed partition needs a typed model with "
                                   "forward_input(x, ntype), forward_layer(layer, h, block) and num_layers "
                                   "(docs/models.md; `distgnn model export --arch rgcn|hetero-sage` writes them)");
  module.eval();
  torch::NoGradGuard no_grad;
  const int layers = static_cast<int>(module.attr("num_layers").toInt());
  const PartitionConfig& pc = client->config();
  const int target = pc.NodeTypeId(pc.target);
  if (target < 0 || pc.num_nodes_per_type[target] == 0)
    return Status::InvalidArgument(pc.path + ": layer-wise inference needs a target node type with nodes");
  // This trainer's share of [begin, end), a range of its machine's partition cut among the machine's trainers.
  auto share = [&](int64_t begin, int64_t end) {
    const int64_t per = (end - begin + o.trainers_per_machine - 1) / o.trainers_per_machine;
    const int64_t lo = std::min(end, begin + per * o.index);
    return std::make_pair(lo, std::min(end, lo + per));
  };
  // Rows [dst] of DistTensor `name`, created on first use by every trainer with rows (idempotent).
  auto push = [&](const std::string& name, const std::vector<int64_t>& dst, const torch::Tensor& h,
                  bool* created) -> Status {
    if (!*created) {
      InitTensorSpec spec;
      spec.name = name;
      spec.shape = {pc.num_nodes, h.size(1)};
      DG_RETURN_IF_ERROR(client->InitTensor(spec));
      *created = true;
    }
    return client->Push(name, dst, TensorArray(h), PushMode::kOverwrite);
  };
  auto batch_of = [&](int64_t c, int64_t hi) {
    std::vector<int64_t> dst;
    for (int64_t v = c; v < std::min(hi, c + o.batch_size); ++v) dst.push_back(v);
    return dst;
  };
  // The input layer depends on a node's own row and type only: once per node, into TAG:h0.
  std::string input = o.tag + ":h0", hidden;
  {
    const auto [lo, hi] = share(client->book().Begin(o.machine), client->book().End(o.machine));
    bool created = false;
    std::vector<int64_t> ntypes;
    for (int64_t c = lo; c < hi; c += o.batch_size) {
      const std::vector<int64_t> dst = batch_of(c, hi);
      DG_RETURN_IF_ERROR(TypedNodeTypes(pc, dst, &ntypes));
      std::vector<torch::Tensor> xs;
      for (const std::string& name : o.input_names) {
        Result<Array> x = PullTypedNodeRows(client, name, dst);
        if (!x.ok() && x.status().code() == Status::Code::kNotFound && name != "features")
          return Status::InvalidArgument("the node embedding '" + name + "' is not on the servers: `launch --mode "
                                         "infer` reads the table a training job saved with "
                                         "train.embedding.persistent: true (" + x.status().message() + ")");
        DG_RETURN_IF_ERROR(x.status());
        xs.push_back(ArrayTensor(*x).to(torch::kFloat32));
      }
      torch::Tensor h;
      try {
        h = module.get_method("forward_input")({xs.size() == 1 ? xs[0] : torch::cat(xs, 1), VectorTensor(ntypes)})
                .toTensor();
      } catch (const std::exception& e) {
        return Status::InvalidArgument("model " + o.model_path + ": forward_input failed: " + FirstLine(e.what()));
      }
      DG_RETURN_IF_ERROR(push(input, dst, h, &created));
    }
    DG_RETURN_IF_ERROR(client->Barrier(input, static_cast<uint32_t>(o.world)));
    spdlog::info("input layer done ({} nodes here)", hi - lo);
  }
  SampleSpec every_edge;  // full in-neighbourhood of every edge type, no edge ids
  every_edge.etype_fanouts.assign(pc.edge_types.size(), -1);
  for (int l = 0; l < layers; ++l) {
    const std::string output = o.tag + ":h" + std::to_string(l + 1);
    // The nodes the next layer reads: all of them, or the target type's after the last layer.
    const bool last = l + 1 == layers;
    const std::vector<int64_t>& types_here = pc.node_type_offsets[o.machine];
    const auto [lo, hi] = last ? share(types_here[target], types_here[target + 1])
                               : share(client->book().Begin(o.machine), client->book().End(o.machine));
    bool created = false;
    std::vector<int64_t> src_nodes, ntypes;
    for (int64_t c = lo; c < hi; c += o.batch_size) {
      const std::vector<int64_t> dst = batch_of(c, hi);
      DG_ASSIGN_OR_RETURN(SampledEdges s, client->SampleNeighbors(dst, every_edge));
      SampledNeighbors nb{std::move(s.offsets), std::move(s.src), std::move(s.etypes)};
      Block block = BuildBlock(dst, nb, &src_nodes, client->num_nodes());
      DG_RETURN_IF_ERROR(TypedNodeTypes(pc, src_nodes, &ntypes));
      DG_ASSIGN_OR_RETURN(Array x, client->Pull(input, src_nodes));
      torch::Tensor h;
      try {
        h = module.get_method("forward_layer")({int64_t{l}, ArrayTensor(x), TypedBlockValue(block, ntypes)})
                .toTensor();
      } catch (const std::exception& e) {
        return Status::InvalidArgument("model " + o.model_path + ": forward_layer(" + std::to_string(l) +
                                       ") on a typed block failed: " + FirstLine(e.what()));
      }
      DG_RETURN_IF_ERROR(push(output, dst, h, &created));
    }
    DG_RETURN_IF_ERROR(client->Barrier(output, static_cast<uint32_t>(o.world)));
    spdlog::info("layer {} of {} done ({} nodes here)", l + 1, layers, hi - lo);
    hidden = input;
    input = output;
  }
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (o.rank == 0) DG_RETURN_IF_ERROR(WriteTypedOutputs(client, o, input, hidden, result));
  return Status::OK();
}

}  // namespace dg
