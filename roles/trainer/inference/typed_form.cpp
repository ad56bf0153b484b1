// Layer-wise inference on a typed partition (layerwise_form.h): the input
// layer once per node (forward_input), blocks of every edge type's full
// in-neighbourhood, the last layer for the target type only; rank 0 writes
// the target type's outputs in its original type-local order.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/client/typed_node_rows.h"
#include "common/io/npy.h"
#include "common/sampling/minibatch.h"
#include "common/storage/partition_seeds.h"
#include "roles/trainer/inference/layerwise_form.h"
#include "roles/trainer/model/model_runner.h"
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

class TypedForm : public LayerwiseForm {
 public:
  TypedForm(DistGraphClient* client, const InferenceOptions& o, torch::jit::Module* module)
      : client_(client), o_(o), module_(module), pc_(client->config()), target_(pc_.NodeTypeId(pc_.target)) {
    every_edge_.etype_fanouts.assign(pc_.edge_types.size(), -1);  // full in-neighbourhood of every edge type
  }

  Status Check() const override {
    if (!IsTypedModel(*module_) || !HasForwardLayer(*module_) || !module_->find_method("forward_input") ||
        !module_->hasattr("num_layers"))
      return Status::InvalidArgument("model " + o_.model_path +
                                     ": layer-wise inference on a typed partition needs a typed model with "
                                     "forward_input(x, ntype), forward_layer(layer, h, block) and num_layers "
                                     "(docs/models.md; `distgnn model export --arch rgcn|hetero-sage` writes them)");
    if (target_ < 0 || pc_.num_nodes_per_type[target_] == 0)
      return Status::InvalidArgument(pc_.path + ": layer-wise inference needs a target node type with nodes");
    return Status::OK();
  }

  bool has_input_layer() const override { return true; }
  NodeRange InputRange() const override { return Partition(); }

  // forward_input of the nodes' own rows ("features" padded, the node embedding for featureless types).
  Result<torch::Tensor> InputRows(const std::vector<int64_t>& dst) override {
    std::vector<int64_t> ntypes;
    DG_RETURN_IF_ERROR(TypedNodeTypes(pc_, dst, &ntypes));
    std::vector<torch::Tensor> xs;
    for (const std::string& name : o_.input_names) {
      Result<Array> x = PullTypedNodeRows(client_, name, dst);
      if (!x.ok() && x.status().code() == Status::Code::kNotFound && name != "features")
        return Status::InvalidArgument("the node embedding '" + name + "' is not on the servers: `launch --mode "
                                       "infer` reads the table a training job saved with "
                                       "train.embedding.persistent: true (" + x.status().message() + ")");
      DG_RETURN_IF_ERROR(x.status());
      xs.push_back(ArrayTensor(*x).to(torch::kFloat32));
    }
    try {
      return module_->get_method("forward_input")({xs.size() == 1 ? xs[0] : torch::cat(xs, 1), VectorTensor(ntypes)})
          .toTensor();
    } catch (const std::exception& e) {
      return Status::InvalidArgument("model " + o_.model_path + ": forward_input failed: " + FirstLine(e.what()));
    }
  }

  // Every node for the hidden layers; the target type's nodes for the last.
  NodeRange LayerRange(int /*l*/, bool last) const override {
    if (!last) return Partition();
    const std::vector<int64_t>& types_here = pc_.node_type_offsets[o_.machine];
    return {types_here[target_], types_here[target_ + 1]};
  }

  Result<torch::Tensor> LayerRows(int l, const std::vector<int64_t>& dst, const std::string& input) override {
    DG_ASSIGN_OR_RETURN(SampledEdges s, client_->SampleNeighbors(dst, every_edge_));
    SampledNeighbors nb{std::move(s.offsets), std::move(s.src), std::move(s.etypes)};
    std::vector<int64_t> src_nodes, ntypes;
    Block block = BuildBlock(dst, nb, &src_nodes, client_->num_nodes());
    DG_RETURN_IF_ERROR(TypedNodeTypes(pc_, src_nodes, &ntypes));
    DG_ASSIGN_OR_RETURN(Array x, client_->Pull(input, src_nodes));
    try {
      return module_->get_method("forward_layer")({int64_t{l}, ArrayTensor(x), TypedBlockValue(block, ntypes)})
          .toTensor();
    } catch (const std::exception& e) {
      return Status::InvalidArgument("model " + o_.model_path + ": forward_layer(" + std::to_string(l) +
                                     ") on a typed block failed: " + FirstLine(e.what()));
    }
  }

  Status WriteOutputs(const std::string& last, const std::string& hidden, InferenceResult* result) override {
    return WriteTypedOutputs(client_, o_, last, hidden, result);
  }

 private:
  NodeRange Partition() const { return {client_->book().Begin(o_.machine), client_->book().End(o_.machine)}; }

  DistGraphClient* client_;
  const InferenceOptions& o_;
  torch::jit::Module* module_;
  const PartitionConfig& pc_;
  const int target_;
  SampleSpec every_edge_;
};

}  // namespace

std::unique_ptr<LayerwiseForm> MakeTypedForm(DistGraphClient* client, const InferenceOptions& options,
                                             torch::jit::Module* module) {
  return std::make_unique<TypedForm>(client, options, module);
}

}  // namespace dg
