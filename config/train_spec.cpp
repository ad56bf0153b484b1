// TrainSpec's rules, in one place: the spelling of every enum, the range of
// every numeric setting (RangeRule), and the combinations that are refused.
// The YAML parser (job_config.cpp) and train-local's flags (cmd/) only read
// values; ValidateTrainSpec decides whether they make a run.
#include "config/train_spec.h"

#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <utility>

#include "common/storage/link_split.h"
#include "config/yaml_checker.h"

namespace dg {

namespace {

// ---- enums ----------------------------------------------------------------

template <class E>
struct Spelling {
  E value;
  const char* word;
};

const std::vector<Spelling<TrainTask>> kTasks = {{TrainTask::kNode, "node"}, {TrainTask::kLink, "link"}};
const std::vector<Spelling<TrainAlgorithm>> kAlgorithms = {{TrainAlgorithm::kSample, "sample"},
                                                           {TrainAlgorithm::kControlVariate, "control_variate"}};
const std::vector<Spelling<OptimizerKind>> kOptimizers = {{OptimizerKind::kAdam, "adam"},
                                                          {OptimizerKind::kSgd, "sgd"}};
const std::vector<Spelling<SparseOptimizerKind>> kEmbeddingOptimizers = {
    {SparseOptimizerKind::kAdam, "sparse_adam"}, {SparseOptimizerKind::kAdagrad, "sparse_adagrad"}};
const std::vector<Spelling<HistoricalNodes>> kHistoricalNodes = {{HistoricalNodes::kRemote, "remote"},
                                                                  {HistoricalNodes::kAll, "all"}};
const std::vector<Spelling<InputAggregation>> kAggregations = {
    {InputAggregation::kAuto, "auto"}, {InputAggregation::kOn, "on"}, {InputAggregation::kOff, "off"}};
const std::vector<Spelling<NegativeDistribution>> kDistributions = {{NegativeDistribution::kUniform, "uniform"},
                                                                    {NegativeDistribution::kDegree, "degree"}};
const std::vector<Spelling<TrainMode>> kModes = {
    {TrainMode::kTrain, "train"}, {TrainMode::kInfer, "infer"}, {TrainMode::kPropagate, "propagate"}};
const std::vector<Spelling<ModelSelection>> kSelections = {{ModelSelection::kValMetric, "val_metric"},
                                                            {ModelSelection::kValLoss, "val_loss"}};
const std::vector<Spelling<LrScheduleKind>> kLrSchedules = {
    {LrScheduleKind::kNone, "none"}, {LrScheduleKind::kCosine, "cosine"}, {LrScheduleKind::kStep, "step"}};
const std::vector<Spelling<WireDType>> kWireDTypes = {
    {WireDType::kFloat32, "float32"}, {WireDType::kFloat16, "float16"}, {WireDType::kBFloat16, "bfloat16"}};

template <class E>
const char* NameIn(const std::vector<Spelling<E>>& table, E v) {
  for (const auto& s : table)
    if (s.value == v) return s.word;
  return "?";
}

template <class E>
bool ParseIn(const std::vector<Spelling<E>>& table, const std::string& word, E* out) {
  for (const auto& s : table)
    if (word == s.word) {
      *out = s.value;
      return true;
    }
  return false;
}

// "a, b or c".
template <class E>
std::string ChoicesIn(const std::vector<Spelling<E>>& table) {
  std::string out;
  for (size_t i = 0; i < table.size(); ++i)
    out += (i == 0 ? "" : i + 1 == table.size() ? " or " : ", ") + std::string(table[i].word);
  return out;
}

// ---- numeric ranges --------------------------------------------------------

// One numeric setting's range, by its YAML key (indices stripped) and flag.
struct RangeRule {
  const char* key;
  const char* flag;
  bool integer;
  double lo;
  bool lo_open;  // lo itself is refused ("> 0")
  double hi;
  const char* note;  // after the range: " (-1 = all neighbors)"
};

constexpr double kInt64Max = 9223372036854775807.0;

const std::vector<RangeRule> kRanges = {
    {"train.fanouts", "--fanouts", true, -1, false, 1000000, " (-1 = all neighbors)"},
    {"train.eval_fanouts", "--eval-fanouts", true, -1, false, 1000000, " (-1 = all neighbors)"},
    {"train.batch_size", "--batch-size", true, 1, false, 100000000, ""},
    {"train.eval_batch_size", "--eval-batch-size", true, 0, false, 100000000, ""},
    {"train.epochs", "--epochs", true, 1, false, 1000000, ""},
    {"train.lr", "--lr", false, 0, true, 1e3, ""},
    {"train.weight_decay", "--weight-decay", false, 0, false, 1e3, ""},
    {"train.momentum", "--momentum", false, 0, false, 1, ""},
    {"train.grad_clip", "--grad-clip", false, 0, false, 1e9, " (0 = no clipping)"},
    {"train.lr_schedule.warmup_steps", "--warmup-steps", true, 0, false, kInt64Max, ""},
    {"train.lr_schedule.min_lr", "--min-lr", false, 0, false, 1e3, ""},
    {"train.lr_schedule.step_size", "--lr-step-size", true, 1, false, kInt64Max, ""},
    {"train.lr_schedule.gamma", "--lr-gamma", false, 0, true, 1, ""},
    {"train.seed", "--seed", true, 0, false, kInt64Max, ""},
    {"train.eval_every", "--eval-every", true, 0, false, 1000000, ""},
    {"train.checkpoint_every_steps", "--checkpoint-every-steps", true, 0, false, kInt64Max, ""},
    {"train.checkpoint_keep", "--checkpoint-keep", true, 1, false, 1000, ""},
    {"train.feature_cache_mb", "--feature-cache-mb", true, 0, false, 1 << 20, ""},
    {"train.intra_op_threads", "--threads", true, 0, false, 1024, ""},
    {"train.credits", "--credits", true, 1, false, 1024, ""},
    {"train.sampler_threads", "--sampler-threads", true, 1, false, 1024, ""},
    {"train.log_every", "--log-every", true, 0, false, 1000000000, ""},
    {"train.num_classes", "--classes", true, 0, false, 1 << 30, ""},
    {"train.embedding.dim", "--embedding-dim", true, 0, false, 1 << 20, ""},
    {"train.embedding.lr", "--embedding-lr", false, 0, true, 1e3, ""},
    {"train.embedding.init_scale", "--embedding-init-scale", false, 0, false, 1e3, ""},
    {"train.embedding.weight_decay", "--embedding-weight-decay", false, 0, false, 1e3, ""},
    {"train.embedding.l2", "--embedding-l2", false, 0, false, 1e3, ""},
    {"train.negative.k", "--negatives", true, 1, false, 100000, ""},
    {"train.historical.layers", "--historical-layers", true, 1, false, 1000, ""},
    {"train.historical.max_age_steps", "--historical-max-age", true, 0, false, kInt64Max, ""},
    {"train.eval_negatives", "--eval-negatives", true, 1, false, 1000000, ""},
};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string IntText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%" PRId64, v >= kInt64Max ? INT64_MAX : static_cast<int64_t>(v));
  return buf;
}

const RangeRule* FindRange(std::string key) {
  const size_t bracket = key.find('[');
  if (bracket != std::string::npos) key.resize(bracket);
  for (const RangeRule& r : kRanges)
    if (key == r.key) return &r;
  return nullptr;
}

std::string Describe(const RangeRule& r) {
  if (r.integer) return "an integer in [" + IntText(r.lo) + ", " + IntText(r.hi) + "]" + r.note;
  return std::string("a number ") + (r.lo_open ? "> " : ">= ") + Num(r.lo) + " and <= " + Num(r.hi) + r.note;
}

// ---- checking --------------------------------------------------------------

// Collects the first broken rule of a spec, with its setting's name as the
// source spells it.
class Rules {
 public:
  explicit Rules(const TrainSpecSource& source) : src_(source) {}

  Status Fail(const std::string& key, const std::string& flag, const std::string& what) const {
    return Status::InvalidArgument(src_.Where(key, flag) + ": " + what);
  }
  std::string Name(const std::string& key, const std::string& flag) const { return src_.Name(key, flag); }

  // `key` may carry an index ("train.fanouts[1]"); the flag is the rule's.
  Status Range(const std::string& key, double v) const {
    const RangeRule* r = FindRange(key);
    const bool low = v < r->lo || (r->lo_open && v == r->lo);
    if (!low && v <= r->hi) return Status::OK();
    return Fail(key, r->flag, "expected " + Describe(*r) + ", got " + (r->integer ? IntText(v) : Num(v)));
  }

  Status Fanouts(const std::string& key, const std::string& flag, const std::vector<int>& fanouts) const {
    for (size_t k = 0; k < fanouts.size(); ++k) {
      const std::string at = key + "[" + std::to_string(k) + "]";
      if (fanouts[k] == 0) return Fail(at, flag, "expected a fanout >= 1 or -1 (all neighbors), got 0");
      DG_RETURN_IF_ERROR(Range(at, fanouts[k]));
    }
    return Status::OK();
  }

  bool yaml() const { return src_.kind == TrainSpecSource::kYaml; }

 private:
  const TrainSpecSource& src_;
};

Status CheckNumbers(const Rules& r, const TrainSpec& s) {
  if (s.fanouts.empty())
    return r.Fail("train.fanouts", "--fanouts", "expected a non-empty list of fanouts, e.g. [10, 25]");
  DG_RETURN_IF_ERROR(r.Fanouts("train.fanouts", "--fanouts", s.fanouts));
  DG_RETURN_IF_ERROR(r.Fanouts("train.eval_fanouts", "--eval-fanouts", s.eval_fanouts));
  const std::pair<const char*, double> values[] = {
      {"train.batch_size", double(s.batch_size)},
      {"train.eval_batch_size", double(s.eval_batch_size)},
      {"train.epochs", s.epochs},
      {"train.lr", s.lr_or_default()},
      {"train.weight_decay", s.weight_decay},
      {"train.momentum", s.momentum},
      {"train.grad_clip", s.grad_clip},
      {"train.lr_schedule.warmup_steps", double(s.lr_schedule.warmup_steps_or_default())},
      {"train.lr_schedule.min_lr", s.lr_schedule.min_lr_or_default()},
      {"train.lr_schedule.step_size", double(s.lr_schedule.step_size_or_default())},
      {"train.lr_schedule.gamma", s.lr_schedule.gamma_or_default()},
      {"train.eval_every", s.eval_every},
      {"train.checkpoint_every_steps", double(s.checkpoint_every_steps)},
      {"train.checkpoint_keep", s.checkpoint_keep},
      {"train.feature_cache_mb", double(s.feature_cache_mb)},
      {"train.intra_op_threads", s.intra_op_threads},
      {"train.credits", s.credits},
      {"train.sampler_threads", s.sampler_threads},
      {"train.log_every", s.log_every},
      {"train.num_classes", double(s.num_classes)},
      {"train.embedding.dim", double(s.embedding.dim)},
      {"train.embedding.lr", s.embedding.lr_or_default()},
      {"train.embedding.init_scale", s.embedding.init_scale_or_default()},
      {"train.embedding.weight_decay", s.embedding.weight_decay_or_default()},
      {"train.embedding.l2", s.embedding.l2.value_or(0)},
      {"train.negative.k", s.link.negative_k},
      {"train.eval_negatives", s.link.eval_negatives},
  };
  for (const auto& [key, v] : values) {
    if (!std::isfinite(v)) return r.Fail(key, FindRange(key)->flag, "expected " + Describe(*FindRange(key)));
    DG_RETURN_IF_ERROR(r.Range(key, v));
  }
  return Status::OK();
}

Status CheckFiles(const Rules& r, const TrainSpec& s) {
  if (s.model.empty()) return r.Fail("train.model", "--model", "missing (path of a TorchScript model file)");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(s.model, ec))
    return r.Fail("train.model", "--model",
                  "model file '" + s.model + "' does not exist" +
                      (r.yaml() ? " (paths are relative to the config file)"
                                : " (not found from the working directory " +
                                      std::filesystem::current_path(ec).string() + ")"));
  return Status::OK();
}

Status CheckEmbedding(const Rules& r, const TrainSpec& s) {
  const EmbeddingSpec& e = s.embedding;
  if (!e.features && e.dim == 0)
    return r.Fail("train.embedding.features", "--no-features",
                  "needs " + r.Name("train.embedding.dim", "--embedding-dim") +
                      " > 0 (the model needs some input)");
  // Each step multiplies every row by 1 - lr * weight_decay (with the larger
  // default lr when none is set: the featureless types' default is smaller).
  if (e.lr_or_default() * e.weight_decay_or_default() >= 1)
    return r.Fail("train.embedding.weight_decay", "--embedding-weight-decay",
                  "times " + r.Name("train.embedding.lr", "--embedding-lr") + " must be < 1, got " +
                      Num(e.lr_or_default() * e.weight_decay_or_default()));
  if (e.name.empty()) return r.Fail("train.embedding.name", "", "expected a non-empty name");
  for (char ch : e.name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-')
      return r.Fail("train.embedding.name", "", "expected letters, digits, '_' or '-', got '" + e.name + "'");
  return Status::OK();
}

// The values of train.lr_schedule that go with its kind, and min_lr below lr.
Status CheckLrSchedule(const Rules& r, const TrainSpec& s) {
  const LrScheduleSpec& l = s.lr_schedule;
  const std::string kind = r.Name("train.lr_schedule.kind", "--lr-schedule");
  auto only = [&](bool given, const char* key, const char* flag, const std::string& kinds) {
    return given ? r.Fail(key, flag, "goes with " + kind + " " + kinds + " (it is " + Name(l.kind) + ")")
                 : Status::OK();
  };
  const bool cosine = l.kind == LrScheduleKind::kCosine, step = l.kind == LrScheduleKind::kStep;
  DG_RETURN_IF_ERROR(only(l.warmup_steps && !cosine && !step, "train.lr_schedule.warmup_steps", "--warmup-steps",
                          "cosine or step"));
  DG_RETURN_IF_ERROR(only(l.min_lr && !cosine, "train.lr_schedule.min_lr", "--min-lr", "cosine"));
  DG_RETURN_IF_ERROR(only(l.step_size && !step, "train.lr_schedule.step_size", "--lr-step-size", "step"));
  DG_RETURN_IF_ERROR(only(l.gamma && !step, "train.lr_schedule.gamma", "--lr-gamma", "step"));
  if (step && !l.step_size)
    return r.Fail("train.lr_schedule.step_size", "--lr-step-size",
                  "missing: " + kind + " step needs the optimizer steps between decays");
  if (cosine && l.min_lr_or_default() > s.lr_or_default())
    return r.Fail("train.lr_schedule.min_lr", "--min-lr",
                  "must be <= " + r.Name("train.lr", "--lr") + " (" + Num(s.lr_or_default()) + "), got " +
                      Num(l.min_lr_or_default()));
  return Status::OK();
}

// The settings that go with one task or algorithm only, and the pairs refused.
// Historical rows replace the layers below a node with a stored row: node
// classification by sampling, layers with one below them and one above.
Status CheckHistorical(const Rules& r, const TrainSpec& s) {
  const HistoricalSpec& h = s.historical;
  if (!h.enabled()) return Status::OK();
  const std::string what = r.Name("train.historical", "--historical-layers");
  for (size_t i = 0; i < h.layers.size(); ++i) {
    const std::string key = "train.historical.layers[" + std::to_string(i) + "]";
    DG_RETURN_IF_ERROR(r.Range(key, h.layers[i]));
    if (h.layers[i] >= static_cast<int>(s.fanouts.size()))
      return r.Fail(key, "--historical-layers",
                    "layer " + std::to_string(h.layers[i]) + " has no layer below it to skip: with " +
                        std::to_string(s.fanouts.size()) + " fanouts the layers are 0.." +
                        std::to_string(s.fanouts.size() - 1) + ", and a historical layer is one of 1.." +
                        std::to_string(s.fanouts.size() - 1));
    if (i > 0 && h.layers[i] <= h.layers[i - 1])
      return r.Fail(key, "--historical-layers", "layers must be ascending and distinct");
  }
  DG_RETURN_IF_ERROR(r.Range("train.historical.max_age_steps", static_cast<double>(h.max_age_steps)));
  if (s.task == TrainTask::kLink)
    return r.Fail("train.historical", "--historical-layers",
                  "trains node classification; " + r.Name("train.task", "--task") + " link has no historical rows");
  if (s.algorithm == TrainAlgorithm::kControlVariate)
    return r.Fail("train.historical", "--historical-layers",
                  "goes with " + r.Name("train.algorithm", "--algorithm") +
                      " sample (control_variate keeps its own history)");
  if (s.embedding.dim > 0)
    return r.Fail("train.historical", "--historical-layers",
                  "does not support learnt rows (" + r.Name("train.embedding", "--embedding-dim") +
                      "): " + what + " reads the layers' inputs from features");
  return Status::OK();
}

Status CheckCombinations(const Rules& r, const TrainSpec& s) {
  if (s.momentum != 0 && s.optimizer != OptimizerKind::kSgd)
    return r.Fail("train.momentum", "--momentum",
                  "goes with " + r.Name("train.optimizer", "--optimizer") + " sgd (adam keeps its own moments)");
  const bool link = s.task == TrainTask::kLink;
  if (!link && !s.link.etype.empty())
    return r.Fail("train.link_etype", "--link-etype",
                  "goes with " + r.Name("train.task", "--task") + " link (the edge type to predict)");
  if (link && (s.save_predictions || s.layerwise_inference))
    return r.Fail("train.task", "--task",
                  "link does not support " + r.Name("train.save_predictions", "--save-predictions") + " or " +
                      r.Name("train.layerwise_inference", "layer-wise inference") +
                      " (class outputs; link prediction writes embeddings with " +
                      r.Name("train.save_embeddings", "--save-embeddings") + ")");
  if (link && !r.yaml()) {  // train-local splits the edges itself; a job's partition holds its split
    auto fractions = ParseEdgeSplit(s.link.edge_split, "--edge-split");
    if (!fractions.ok()) return fractions.status();
  }
  DG_RETURN_IF_ERROR(CheckHistorical(r, s));
  if (s.algorithm != TrainAlgorithm::kControlVariate) return Status::OK();
  const std::string cv = r.Name("train.algorithm", "--algorithm") + " control_variate";
  if (link)
    return r.Fail("train.algorithm", "--algorithm",
                  "control_variate trains node classification; " + r.Name("train.task", "--task") + " link samples");
  // It samples that many neighbours per layer and reads the others' history
  // rows: "every neighbour" would make the history pointless.
  for (size_t k = 0; k < s.fanouts.size(); ++k)
    if (s.fanouts[k] < 0)
      return r.Fail("train.fanouts[" + std::to_string(k) + "]", "--fanouts",
                    "-1 (every neighbour) is not a fanout of " + cv +
                        ", which samples a few neighbours per layer and reads the others' history; give a number >= 1");
  if (r.yaml() && s.cv_input.empty() && s.embedding.uses_features())
    return r.Fail("train.cv_input", "--cv-input",
                  "missing: " + cv + " needs the propagated input (the node array written by "
                  "`distgnn propagate --hops 1 --norm mean --output NAME`, e.g. cv_input: NAME_1)");
  if (s.layerwise_inference)
    return r.Fail("train.layerwise_inference", "layer-wise inference",
                  "is not supported with " + cv + " (its evaluation is already exact over all in-neighbours)");
  return Status::OK();
}

}  // namespace

std::string TrainSpecSource::Name(const std::string& yaml_key, const std::string& flag) const {
  return kind == kYaml ? yaml_key : flag;
}

std::string TrainSpecSource::Where(const std::string& yaml_key, const std::string& flag) const {
  if (kind == kFlags) return flag;
  // The key's own line, else its nearest written parent's ("train" for a default).
  std::string key = yaml_key;
  int line = 0;
  while (!key.empty()) {
    auto it = lines.find(key);
    if (it != lines.end()) {
      line = it->second;
      break;
    }
    const size_t cut = key.find_last_of(".[");
    key = cut == std::string::npos ? "" : key.substr(0, cut);
  }
  return YamlWhere(yaml_path, overridden, yaml_key, line);
}

std::string ExpectedValue(const std::string& yaml_key) {
  const RangeRule* r = FindRange(yaml_key);
  return r ? Describe(*r) : "";
}

Status ValidateTrainSpec(const TrainSpec& spec, const TrainSpecSource& source) {
  const Rules rules(source);
  DG_RETURN_IF_ERROR(CheckFiles(rules, spec));
  DG_RETURN_IF_ERROR(CheckNumbers(rules, spec));
  DG_RETURN_IF_ERROR(CheckEmbedding(rules, spec));
  DG_RETURN_IF_ERROR(CheckLrSchedule(rules, spec));
  return CheckCombinations(rules, spec);
}

const char* Name(TrainTask v) { return NameIn(kTasks, v); }
const char* Name(TrainAlgorithm v) { return NameIn(kAlgorithms, v); }
const char* Name(OptimizerKind v) { return NameIn(kOptimizers, v); }
const char* Name(SparseOptimizerKind v) { return NameIn(kEmbeddingOptimizers, v); }
const char* Name(InputAggregation v) { return NameIn(kAggregations, v); }
const char* Name(HistoricalNodes v) { return NameIn(kHistoricalNodes, v); }
const char* Name(NegativeDistribution v) { return NameIn(kDistributions, v); }
const char* Name(TrainMode v) { return NameIn(kModes, v); }
const char* Name(ModelSelection v) { return NameIn(kSelections, v); }
const char* Name(LrScheduleKind v) { return NameIn(kLrSchedules, v); }
bool Parse(const std::string& w, TrainTask* out) { return ParseIn(kTasks, w, out); }
bool Parse(const std::string& w, TrainAlgorithm* out) { return ParseIn(kAlgorithms, w, out); }
bool Parse(const std::string& w, OptimizerKind* out) { return ParseIn(kOptimizers, w, out); }
bool Parse(const std::string& w, SparseOptimizerKind* out) { return ParseIn(kEmbeddingOptimizers, w, out); }
bool Parse(const std::string& w, InputAggregation* out) { return ParseIn(kAggregations, w, out); }
bool Parse(const std::string& w, HistoricalNodes* out) { return ParseIn(kHistoricalNodes, w, out); }
bool Parse(const std::string& w, NegativeDistribution* out) { return ParseIn(kDistributions, w, out); }
bool Parse(const std::string& w, TrainMode* out) { return ParseIn(kModes, w, out); }
bool Parse(const std::string& w, ModelSelection* out) { return ParseIn(kSelections, w, out); }
bool Parse(const std::string& w, LrScheduleKind* out) { return ParseIn(kLrSchedules, w, out); }
bool Parse(const std::string& w, WireDType* out) { return ParseIn(kWireDTypes, w, out); }
template <> std::string Choices<TrainTask>() { return ChoicesIn(kTasks); }
template <> std::string Choices<TrainAlgorithm>() { return ChoicesIn(kAlgorithms); }
template <> std::string Choices<OptimizerKind>() { return ChoicesIn(kOptimizers); }
template <> std::string Choices<SparseOptimizerKind>() { return ChoicesIn(kEmbeddingOptimizers); }
template <> std::string Choices<InputAggregation>() { return ChoicesIn(kAggregations); }
template <> std::string Choices<HistoricalNodes>() { return ChoicesIn(kHistoricalNodes); }
template <> std::string Choices<NegativeDistribution>() { return ChoicesIn(kDistributions); }
template <> std::string Choices<TrainMode>() { return ChoicesIn(kModes); }
template <> std::string Choices<ModelSelection>() { return ChoicesIn(kSelections); }
template <> std::string Choices<LrScheduleKind>() { return ChoicesIn(kLrSchedules); }
template <> std::string Choices<WireDType>() { return ChoicesIn(kWireDTypes); }

}  // namespace dg
