// ParseTrainSection: the `train:` keys of a job YAML (docs/guide.md) read into
// a TrainSpec. Only types are checked here; ValidateTrainSpec has the rules.
#include "config/train_yaml.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace dg {

namespace {

const std::vector<std::string> kTrainKeys = {
    "model",      "fanouts",          "batch_size", "epochs",          "lr",
    "weight_decay", "optimizer", "momentum", "grad_clip", "lr_schedule",      "eval_every", "eval_full_neighbors", "select_by", "seed",
    "intra_op_threads", "credits",    "save_predictions", "save_embeddings",
    "layerwise_inference", "embedding",
    "task", "negative", "eval_negatives", "link_etype",  // link prediction
    "algorithm", "cv_input",               // control variate
    "historical",                          // historical rows of remote nodes
    "input_aggregation", "feature_wire_dtype", "feature_cache_mb",  // fewer bytes on the wire
    "checkpoint_every_steps", "checkpoint_keep"};  // step checkpoints
const std::vector<std::string> kLrScheduleKeys = {"kind", "warmup_steps", "min_lr", "step_size", "gamma"};
const std::vector<std::string> kHistoricalKeys = {"layers", "max_age_steps", "nodes"};
const std::vector<std::string> kNegativeKeys = {"k", "distribution"};
const std::vector<std::string> kEmbeddingKeys = {"dim",        "optimizer",  "lr",          "features",
                                                 "name",       "persistent", "init_scale", "weight_decay",
                                                 "l2"};

// Reads the keys of one map of the section, recording each key's line.
class Reader {
 public:
  Reader(const Checker& c, TrainSpecSource* source) : c_(c), source_(source) {}

  // The node of `key` (the full path, e.g. "train.negative.k") in `map`, or
  // an undefined node; a present one has its line recorded.
  YAML::Node At(const YAML::Node& map, const std::string& name, const std::string& key) const {
    const YAML::Node n = map[name];
    if (n) Mark(n, key);
    return n;
  }
  void Mark(const YAML::Node& n, const std::string& key) const {
    if (n.Mark().line >= 0) source_->lines[key] = n.Mark().line + 1;
  }

  template <class T>
  Status Int(const YAML::Node& map, const std::string& name, const std::string& key, T* out) const {
    const YAML::Node n = At(map, name, key);
    return n ? IntValue(n, key, out) : Status::OK();
  }
  template <class T>
  Status IntValue(const YAML::Node& n, const std::string& key, T* out) const {
    T v{};
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size())
      return c_.Err(n, key, "expected " + ExpectedValue(key) + ", got " + Describe(n));
    *out = v;
    return Status::OK();
  }

  Status Double(const YAML::Node& map, const std::string& name, const std::string& key, double* out) const {
    const YAML::Node n = At(map, name, key);
    if (!n) return Status::OK();
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
      return c_.Err(n, key, "expected " + ExpectedValue(key) + ", got " + Describe(n));
    *out = v;
    return Status::OK();
  }

  Status Bool(const YAML::Node& map, const std::string& name, const std::string& key, bool* out) const {
    const YAML::Node n = At(map, name, key);
    return n ? c_.Bool(n, key, out) : Status::OK();
  }

  Status String(const YAML::Node& map, const std::string& name, const std::string& key, std::string* out) const {
    const YAML::Node n = At(map, name, key);
    return n ? c_.String(n, key, true, out) : Status::OK();
  }

  template <class E>
  Status Enum(const YAML::Node& map, const std::string& name, const std::string& key, E* out) const {
    const YAML::Node n = At(map, name, key);
    if (!n) return Status::OK();
    std::string word;
    DG_RETURN_IF_ERROR(c_.String(n, key, true, &word));
    if (!Parse(word, out)) return c_.Err(n, key, "expected " + Choices<E>() + ", got '" + word + "'");
    return Status::OK();
  }

  const Checker& checker() const { return c_; }

 private:
  const Checker& c_;
  TrainSpecSource* source_;
};

Status ReadFanouts(const Reader& r, const YAML::Node& train, TrainSpec* t) {
  const YAML::Node f = r.At(train, "fanouts", "train.fanouts");
  if (!f) return Status::OK();
  if (!f.IsSequence() || f.size() == 0)
    return r.checker().Err(f, "train.fanouts",
                           "expected a non-empty list of fanouts, e.g. [10, 25], got " + Describe(f));
  t->fanouts.clear();
  for (size_t k = 0; k < f.size(); ++k) {
    const std::string key = "train.fanouts[" + std::to_string(k) + "]";
    r.Mark(f[k], key);
    int v = 0;
    DG_RETURN_IF_ERROR(r.IntValue(f[k], key, &v));
    t->fanouts.push_back(v);
  }
  return Status::OK();
}

// A number the YAML may leave out (nullopt: the default is chosen later).
Status OptionalDouble(const Reader& r, const YAML::Node& n, const char* field, const char* key,
                      std::optional<double>* out) {
  if (!n[field]) return Status::OK();
  double v = 0;
  DG_RETURN_IF_ERROR(r.Double(n, field, key, &v));
  *out = v;
  return Status::OK();
}

// An integer the YAML may leave out (nullopt: not written).
Status OptionalInt(const Reader& r, const YAML::Node& n, const char* field, const char* key,
                   std::optional<int64_t>* out) {
  if (!n[field]) return Status::OK();
  int64_t v = 0;
  DG_RETURN_IF_ERROR(r.Int(n, field, key, &v));
  *out = v;
  return Status::OK();
}

// train.lr_schedule: a kind alone (`lr_schedule: cosine`) or a map with it.
Status ReadLrSchedule(const Reader& r, const YAML::Node& train, LrScheduleSpec* l) {
  const YAML::Node n = r.At(train, "lr_schedule", "train.lr_schedule");
  if (!n) return Status::OK();
  if (n.IsScalar()) return r.Enum(train, "lr_schedule", "train.lr_schedule", &l->kind);
  const Checker& c = r.checker();
  DG_RETURN_IF_ERROR(c.Map(n, "train.lr_schedule"));
  DG_RETURN_IF_ERROR(c.CheckKeys(n, "train.lr_schedule", kLrScheduleKeys));
  if (!n["kind"]) return c.Err(n, "train.lr_schedule.kind", "missing (" + Choices<LrScheduleKind>() + ")");
  DG_RETURN_IF_ERROR(r.Enum(n, "kind", "train.lr_schedule.kind", &l->kind));
  DG_RETURN_IF_ERROR(OptionalInt(r, n, "warmup_steps", "train.lr_schedule.warmup_steps", &l->warmup_steps));
  DG_RETURN_IF_ERROR(OptionalDouble(r, n, "min_lr", "train.lr_schedule.min_lr", &l->min_lr));
  DG_RETURN_IF_ERROR(OptionalInt(r, n, "step_size", "train.lr_schedule.step_size", &l->step_size));
  return OptionalDouble(r, n, "gamma", "train.lr_schedule.gamma", &l->gamma);
}

Status ReadEmbedding(const Reader& r, const YAML::Node& train, EmbeddingSpec* e) {
  const YAML::Node n = r.At(train, "embedding", "train.embedding");
  if (!n) return Status::OK();
  const Checker& c = r.checker();
  DG_RETURN_IF_ERROR(c.Map(n, "train.embedding"));
  DG_RETURN_IF_ERROR(c.CheckKeys(n, "train.embedding", kEmbeddingKeys));
  if (!n["dim"]) return c.Err(n, "train.embedding.dim", "missing (width of the learnable per-node rows, e.g. 64)");
  DG_RETURN_IF_ERROR(r.Int(n, "dim", "train.embedding.dim", &e->dim));
  DG_RETURN_IF_ERROR(r.Enum(n, "optimizer", "train.embedding.optimizer", &e->optimizer));
  DG_RETURN_IF_ERROR(OptionalDouble(r, n, "lr", "train.embedding.lr", &e->lr));
  DG_RETURN_IF_ERROR(r.Bool(n, "features", "train.embedding.features", &e->features));
  DG_RETURN_IF_ERROR(r.String(n, "name", "train.embedding.name", &e->name));
  DG_RETURN_IF_ERROR(r.Bool(n, "persistent", "train.embedding.persistent", &e->persistent));
  DG_RETURN_IF_ERROR(OptionalDouble(r, n, "init_scale", "train.embedding.init_scale", &e->init_scale));
  DG_RETURN_IF_ERROR(OptionalDouble(r, n, "l2", "train.embedding.l2", &e->l2));
  return OptionalDouble(r, n, "weight_decay", "train.embedding.weight_decay", &e->weight_decay);
}

// train.historical: {layers: [1], max_age_steps: K}.
Status ReadHistorical(const Reader& r, const YAML::Node& train, HistoricalSpec* h) {
  const YAML::Node n = r.At(train, "historical", "train.historical");
  if (!n) return Status::OK();
  const Checker& c = r.checker();
  DG_RETURN_IF_ERROR(c.Map(n, "train.historical"));
  DG_RETURN_IF_ERROR(c.CheckKeys(n, "train.historical", kHistoricalKeys));
  const YAML::Node layers = r.At(n, "layers", "train.historical.layers");
  if (!layers) return c.Err(n, "train.historical.layers", "missing (the layers whose input rows may be historical, e.g. [1])");
  if (!layers.IsSequence() || layers.size() == 0)
    return c.Err(layers, "train.historical.layers", "expected a non-empty list of layer numbers, e.g. [1]");
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string key = "train.historical.layers[" + std::to_string(i) + "]";
    r.Mark(layers[i], key);
    int v = 0;
    DG_RETURN_IF_ERROR(r.IntValue(layers[i], key, &v));
    h->layers.push_back(v);
  }
  if (!n["max_age_steps"])
    return c.Err(n, "train.historical.max_age_steps", "missing (how many steps old a stored row may be, e.g. 20)");
  DG_RETURN_IF_ERROR(r.Enum(n, "nodes", "train.historical.nodes", &h->nodes));
  return r.Int(n, "max_age_steps", "train.historical.max_age_steps", &h->max_age_steps);
}

Status ReadLink(const Reader& r, const YAML::Node& train, TrainSpec* t) {
  DG_RETURN_IF_ERROR(r.Enum(train, "task", "train.task", &t->task));
  if (const YAML::Node g = r.At(train, "negative", "train.negative")) {
    DG_RETURN_IF_ERROR(r.checker().Map(g, "train.negative"));
    DG_RETURN_IF_ERROR(r.checker().CheckKeys(g, "train.negative", kNegativeKeys));
    DG_RETURN_IF_ERROR(r.Int(g, "k", "train.negative.k", &t->link.negative_k));
    DG_RETURN_IF_ERROR(r.Enum(g, "distribution", "train.negative.distribution", &t->link.negative_distribution));
  }
  DG_RETURN_IF_ERROR(r.Int(train, "eval_negatives", "train.eval_negatives", &t->link.eval_negatives));
  return r.String(train, "link_etype", "train.link_etype", &t->link.etype);
}

Status ReadOptimization(const Reader& r, const YAML::Node& n, TrainSpec* t) {
  DG_RETURN_IF_ERROR(ReadFanouts(r, n, t));
  DG_RETURN_IF_ERROR(r.Int(n, "batch_size", "train.batch_size", &t->batch_size));
  DG_RETURN_IF_ERROR(r.Int(n, "epochs", "train.epochs", &t->epochs));
  DG_RETURN_IF_ERROR(OptionalDouble(r, n, "lr", "train.lr", &t->lr));
  DG_RETURN_IF_ERROR(r.Double(n, "weight_decay", "train.weight_decay", &t->weight_decay));
  DG_RETURN_IF_ERROR(r.Double(n, "momentum", "train.momentum", &t->momentum));
  DG_RETURN_IF_ERROR(r.Enum(n, "optimizer", "train.optimizer", &t->optimizer));
  DG_RETURN_IF_ERROR(r.Double(n, "grad_clip", "train.grad_clip", &t->grad_clip));
  DG_RETURN_IF_ERROR(ReadLrSchedule(r, n, &t->lr_schedule));
  DG_RETURN_IF_ERROR(r.Int(n, "seed", "train.seed", &t->seed));
  DG_RETURN_IF_ERROR(r.Enum(n, "algorithm", "train.algorithm", &t->algorithm));
  return r.String(n, "cv_input", "train.cv_input", &t->cv_input);
}

Status ReadRunSettings(const Reader& r, const YAML::Node& n, TrainSpec* t) {
  DG_RETURN_IF_ERROR(r.Int(n, "eval_every", "train.eval_every", &t->eval_every));
  DG_RETURN_IF_ERROR(r.Enum(n, "select_by", "train.select_by", &t->select_by));
  DG_RETURN_IF_ERROR(r.Bool(n, "eval_full_neighbors", "train.eval_full_neighbors", &t->eval_full_neighbors));
  DG_RETURN_IF_ERROR(r.Int(n, "checkpoint_every_steps", "train.checkpoint_every_steps", &t->checkpoint_every_steps));
  DG_RETURN_IF_ERROR(r.Int(n, "checkpoint_keep", "train.checkpoint_keep", &t->checkpoint_keep));
  DG_RETURN_IF_ERROR(r.Int(n, "intra_op_threads", "train.intra_op_threads", &t->intra_op_threads));
  DG_RETURN_IF_ERROR(r.Int(n, "credits", "train.credits", &t->credits));
  DG_RETURN_IF_ERROR(r.Bool(n, "save_predictions", "train.save_predictions", &t->save_predictions));
  DG_RETURN_IF_ERROR(r.Bool(n, "save_embeddings", "train.save_embeddings", &t->save_embeddings));
  DG_RETURN_IF_ERROR(r.Bool(n, "layerwise_inference", "train.layerwise_inference", &t->layerwise_inference));
  DG_RETURN_IF_ERROR(r.Enum(n, "input_aggregation", "train.input_aggregation", &t->input_aggregation));
  DG_RETURN_IF_ERROR(r.Enum(n, "feature_wire_dtype", "train.feature_wire_dtype", &t->feature_wire_dtype));
  return r.Int(n, "feature_cache_mb", "train.feature_cache_mb", &t->feature_cache_mb);
}

}  // namespace

Status ParseTrainSection(const Checker& c, const YAML::Node& n, const std::string& base_dir, TrainSpec* t,
                         TrainSpecSource* source) {
  source->kind = TrainSpecSource::kYaml;
  source->yaml_path = c.file();
  source->overridden = c.overridden();
  const Reader r(c, source);
  r.Mark(n, "train");
  DG_RETURN_IF_ERROR(c.Map(n, "train"));
  DG_RETURN_IF_ERROR(c.CheckKeys(n, "train", kTrainKeys));
  if (!n["model"]) return c.Err(n, "train.model", "missing (path of a TorchScript model file)");
  DG_RETURN_IF_ERROR(r.String(n, "model", "train.model", &t->model));
  t->model = ResolvePath(base_dir, t->model);
  DG_RETURN_IF_ERROR(ReadOptimization(r, n, t));
  DG_RETURN_IF_ERROR(ReadRunSettings(r, n, t));
  DG_RETURN_IF_ERROR(ReadEmbedding(r, n, &t->embedding));
  DG_RETURN_IF_ERROR(ReadHistorical(r, n, &t->historical));
  return ReadLink(r, n, t);
}

}  // namespace dg
