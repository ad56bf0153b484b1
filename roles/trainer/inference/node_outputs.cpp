#include "roles/trainer/inference/node_outputs.h"

#include <filesystem>

#include "common/io/npy.h"
#include "roles/trainer/loop/trainer_setup.h"
#include "roles/trainer/loop/training_state.h"
#include "roles/trainer/model/model_runner.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

struct Collected {
  std::vector<torch::Tensor> preds, embs;
};

// The last hidden layer of mb's seeds (and, with preds, their classes) one
// layer at a time; a typed batch starts from forward_input over its input
// nodes' types and takes typed blocks.
Status LayerByLayer(const TrainSpec& spec, const TrainHooks& hooks, torch::jit::Module& module, const MiniBatch& mb,
                    bool preds, Collected* out) {
  const bool typed = !mb.input_ntypes.empty();
  try {
    DG_ASSIGN_OR_RETURN(torch::Tensor h, ModelInput(hooks.embedding, spec.embedding.features, mb, nullptr));
    if (typed) h = module.get_method("forward_input")({h, VectorTensor(mb.input_ntypes)}).toTensor();
    const int L = static_cast<int>(mb.blocks.size());
    for (int l = 0; l < L; ++l) {
      const Block& b = mb.blocks[l];
      if (l == L - 1) {
        out->embs.push_back(h.narrow(0, 0, b.num_dst).clone());
        if (!preds) return Status::OK();
      }
      h = module.get_method("forward_layer")({int64_t{l}, h, typed ? TypedBlockValue(b, mb.input_ntypes)
                                                                    : BlockValue(b)})
              .toTensor();
    }
    out->preds.push_back(h.argmax(1));
  } catch (const std::exception& e) {
    return Status::InvalidArgument("model " + spec.model + ": forward_layer failed: " + FirstLine(e.what()));
  }
  return Status::OK();
}

// One pass over batches of `nodes`: their classes (preds) and/or last hidden rows (embs).
Result<Collected> Collect(const TrainSpec& spec, const TrainHooks& hooks, torch::jit::Module& module,
                          BatchProvider* batches, const std::vector<int64_t>& nodes, bool preds, bool embs,
                          const BatchForward& forward) {
  DG_RETURN_IF_ERROR(batches->BeginEpoch(EvalRequest(spec, nodes, kPredictSeed, /*labels=*/false)));
  torch::NoGradGuard no_grad;
  module.train(false);
  Collected out;
  MiniBatch mb;
  while (true) {
    DG_ASSIGN_OR_RETURN(bool more, batches->Next(&mb));
    if (!more) break;
    if (embs) {
      DG_RETURN_IF_ERROR(LayerByLayer(spec, hooks, module, mb, preds, &out));
    } else {
      DG_ASSIGN_OR_RETURN(torch::Tensor logits, forward(mb));
      out.preds.push_back(logits.argmax(1));
    }
  }
  return out;
}

Status WriteRows(const std::string& path, const std::vector<torch::Tensor>& parts, torch::ScalarType type) {
  return NpyWrite(path, TensorArray(torch::cat(parts).to(type)));
}

}  // namespace

Status WriteTypedEmbeddings(const TrainHooks& hooks, const NodeOutputRows& rows, const torch::Tensor& embeddings) {
  const torch::Tensor all = embeddings.to(torch::kFloat32);
  const std::string dir = hooks.OutPath("embeddings");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("create " + dir + ": " + ec.message());
  int64_t at = 0;
  for (const auto& [name, count] : rows.embed_types) {
    if (at + count > all.size(0))
      return Status::Internal("embedded " + std::to_string(all.size(0)) + " rows for more nodes of the types");
    DG_RETURN_IF_ERROR(NpyWrite(dir + "/" + name + ".npy", TensorArray(all.narrow(0, at, count))));
    at += count;
  }
  return Status::OK();
}

Status CheckNodeOutputs(const TrainSpec& spec, const torch::jit::Module& module) {
  if (!spec.save_embeddings) return Status::OK();
  if (!HasForwardLayer(module))
    return Status::InvalidArgument("train.save_embeddings needs a model with forward_layer(layer, x, block); " +
                                   spec.model + " has none");
  if (IsTypedModel(module) && !module.find_method("forward_input"))
    return Status::InvalidArgument("train.save_embeddings on a typed graph needs a model with forward_input(x, "
                                   "ntype); " + spec.model + " has none (re-export it: distgnn model export)");
  return Status::OK();
}

Status WriteNodeOutputs(const TrainSpec& spec, const TrainHooks& hooks, torch::jit::Module& module,
                        BatchProvider* batches, const NodeOutputRows& rows, const BatchForward& forward) {
  if (!rows.typed()) {  // one pass over every node gives both files
    if (rows.predict.empty()) return Status::OK();
    DG_ASSIGN_OR_RETURN(Collected c, Collect(spec, hooks, module, batches, rows.predict, /*preds=*/true,
                                             spec.save_embeddings, forward));
    if (spec.save_predictions) DG_RETURN_IF_ERROR(WriteRows(hooks.OutPath("predictions.npy"), c.preds, torch::kInt64));
    if (spec.save_embeddings) DG_RETURN_IF_ERROR(WriteRows(hooks.OutPath("embeddings.npy"), c.embs, torch::kFloat32));
    return Status::OK();
  }
  if (spec.save_predictions && !rows.predict.empty()) {  // the target type's nodes
    DG_ASSIGN_OR_RETURN(Collected c, Collect(spec, hooks, module, batches, rows.predict, true, false, forward));
    DG_RETURN_IF_ERROR(WriteRows(hooks.OutPath("predictions.npy"), c.preds, torch::kInt64));
  }
  if (spec.save_embeddings && !rows.embed.empty()) {  // every type's nodes
    DG_ASSIGN_OR_RETURN(Collected c, Collect(spec, hooks, module, batches, rows.embed, false, true, forward));
    DG_RETURN_IF_ERROR(WriteTypedEmbeddings(hooks, rows, torch::cat(c.embs)));
  }
  return Status::OK();
}

}  // namespace dg
