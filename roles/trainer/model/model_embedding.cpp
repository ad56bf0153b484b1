#include "roles/trainer/model/model_embedding.h"

#include <spdlog/spdlog.h>

#include "roles/trainer/model/model_export.h"
#include "roles/trainer/model/model_runner.h"

namespace dg {
namespace {

// An int attribute of the module; -1 when it has none.
int64_t IntAttribute(const torch::jit::Module& module, const char* name) {
  if (!module.hasattr(name)) return -1;
  const c10::IValue v = module.attr(name);
  return v.isInt() ? v.toInt() : -1;
}

// A float attribute of the module; `otherwise` when it has none.
double FloatAttribute(const torch::jit::Module& module, const char* name, double otherwise) {
  if (!module.hasattr(name)) return otherwise;
  const c10::IValue v = module.attr(name);
  return v.isDouble() ? v.toDouble() : otherwise;
}

// A string attribute of the module; "" when it has none.
std::string StringAttribute(const torch::jit::Module& module, const char* name) {
  if (!module.hasattr(name)) return "";
  const c10::IValue v = module.attr(name);
  return v.isString() ? v.toStringRef() : "";
}

Status Mismatch(const std::string& key, int64_t given, const std::string& model_path, const char* attribute,
                int64_t recorded, const std::string& hint) {
  return Status::InvalidArgument(key + " is " + std::to_string(given) + " but " + model_path + " reads " +
                                 std::to_string(recorded) + " embedding columns (its " + attribute + "; " + hint +
                                 "): give " + std::to_string(recorded) + " or leave the width out");
}

}  // namespace

Status TakeTypedModelEmbedding(const std::string& model_path, const std::string& key, EmbeddingSpec* embedding) {
  DG_ASSIGN_OR_RETURN(const torch::jit::Module module, LoadModel(model_path));
  const int64_t recorded = IntAttribute(module, "embedding_dim");
  if (recorded < 0) return Status::OK();
  if (embedding->dim > 0 && embedding->dim != recorded)
    return Mismatch(key, embedding->dim, model_path, "embedding_dim", recorded, "model export --embedding-dim");
  if (recorded == 0) return Status::OK();
  if (embedding->dim == 0)
    spdlog::info("node embedding: {} learnt columns per node for the featureless types, as {} records "
                 "(model export --embedding-dim)", recorded, model_path);
  embedding->dim = recorded;
  // The start and rate export chose from the types (model_embedding.h).
  if (!embedding->init_scale)
    embedding->init_scale = FloatAttribute(module, "embedding_init_scale", kFeaturelessTypeInitScale);
  if (!embedding->lr) embedding->lr = FloatAttribute(module, "embedding_lr", kFeaturelessTypeLr);
  const bool decay_recorded = !embedding->weight_decay && module.hasattr("embedding_weight_decay");
  if (decay_recorded) embedding->weight_decay = FloatAttribute(module, "embedding_weight_decay", 0);
  // Each step multiplies every row by 1 - lr * weight_decay. config/ checks
  // the product with the values the user gave; the model's rate or decay
  // completes it only here.
  if (*embedding->lr * embedding->weight_decay_or_default() >= 1)
    return Status::InvalidArgument(fmt::format(
        "the embedding's learning rate (train.embedding.lr, --embedding-lr) is {:g}, but times the weight decay {} "
        "it must be < 1: lower the rate or the decay (train.embedding.weight_decay, --embedding-weight-decay)",
        *embedding->lr,
        decay_recorded ? fmt::format("{} records for its rows (embedding_weight_decay {:g})", model_path,
                                     *embedding->weight_decay)
                       : fmt::format("{:g} (train.embedding.weight_decay, --embedding-weight-decay)",
                                     *embedding->weight_decay)));
  // Relation rows are layer 0's weights: they take the dense weights' L2 penalty.
  FeaturelessInput input = FeaturelessInput::kTypeRows;
  embedding->rows_are_weights =
      Parse(StringAttribute(module, "featureless_input"), &input) && input == FeaturelessInput::kRelationRows;
  if (embedding->rows_are_weights && !embedding->l2)
    spdlog::info("node embedding: {} records relation rows (layer 0's weights): their L2 penalty is "
                 "train.weight_decay's (--weight-decay) unless train.embedding.l2 (--embedding-l2) is set",
                 model_path);
  return Status::OK();
}

Status TakeFeaturelessModelEmbedding(const std::string& model_path, const std::string& key,
                                     EmbeddingSpec* embedding) {
  DG_ASSIGN_OR_RETURN(const torch::jit::Module module, LoadModel(model_path));
  const int64_t in_dim = IntAttribute(module, "in_dim");
  if (in_dim <= 0) return Status::OK();
  if (embedding->dim > 0 && embedding->dim != in_dim)
    return Mismatch(key, embedding->dim, model_path, "in_dim", in_dim, "model export --in-dim");
  if (embedding->dim == 0)
    spdlog::info("no features: the model's input is a learnt row of {} columns per node ({}'s in_dim)", in_dim,
                 model_path);
  embedding->dim = in_dim;
  embedding->features = false;
  return Status::OK();
}

}  // namespace dg
