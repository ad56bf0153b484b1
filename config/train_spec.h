// TrainSpec: every setting of a training run, as one typed value.
//
// It is parsed and checked once, here in config/, from either the job YAML's
// `train:` section (ParseTrainSpec, called by LoadJobConfig) or train-local's
// flags (cmd/torch/cmd_train_local.cpp fills the same value, then ValidateTrainSpec).
// Every rule lives in ValidateTrainSpec; its errors name the key or the flag the
// user wrote (TrainSpecSource). Enum-valued settings are enums from here on:
// nothing past config/ compares a setting's string.
//
// What is not a setting -- callbacks, non-owned pointers, the process's rank --
// lives beside the spec in roles/trainer (TrainHooks), never inside it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/base/negative_distribution.h"
#include "common/base/sparse_optimizer_spec.h"
#include "common/base/status.h"
#include "common/net/wire_dtype.h"

namespace dg {

enum class TrainTask { kNode, kLink };
enum class TrainAlgorithm { kSample, kControlVariate };
enum class OptimizerKind { kAdam, kSgd };
enum class InputAggregation { kAuto, kOn, kOff };
// The trainer's --mode: train: the loop; infer: layer-wise inference only;
// propagate: a propagation job's worker (`distgnn propagate`).
enum class TrainMode { kTrain, kInfer, kPropagate };
// Which epoch's parameters are the run's model (model.pt, outputs):
// val_metric: the highest validation metric (accuracy; link: ROC-AUC), ties
// broken by the lower validation loss; val_loss: the lowest validation loss.
enum class ModelSelection { kValMetric, kValLoss };
// train.lr_schedule's kind: none (lr throughout), cosine or step.
enum class LrScheduleKind { kNone, kCosine, kStep };

// The learning rate where neither the user nor config/default_lr.h's rule set one.
constexpr double kDefaultLr = 0.003;

// train.embedding: a learnable per-node input (DistEmbedding on the servers,
// NodeEmbedding in train-local), trained by a sparse optimizer.
struct EmbeddingSpec {
  int64_t dim = 0;  // 0 = no embedding
  SparseOptimizerKind optimizer = SparseOptimizerKind::kAdam;  // sparse_adam
  bool features = true;            // false: the embedding is the model's whole input
  std::string name = "embedding";  // the DistTensor's name
  bool persistent = false;         // saved to the partitions at the end, reloaded later
  // Rows start uniform in [-init_scale, init_scale) and learn at lr. Unset:
  // the default of the rows' use -- 0.1 and 0.01 (DGL's), or, for the
  // featureless types of a typed model, 0 and 0.001
  // (roles/trainer/model/model_embedding.h).
  std::optional<double> lr;
  std::optional<double> init_scale;
  // Decoupled decay of every row every step (lazily; sparse_optimizer.h).
  // Unset: 0, or what the model records (a model's relation rows,
  // model_embedding.h).
  std::optional<double> weight_decay;
  // An L2 penalty on the rows a step reads, coupled as train.weight_decay is on
  // the dense weights: l2 x row joins the row's gradient before the sparse
  // optimizer. Unset: 0, or, when the rows are a model's relation rows (its
  // layer-0 weights, model_export.h), train.weight_decay.
  std::optional<double> l2;
  bool rows_are_weights = false;  // the model's relation rows (TakeTypedModelEmbedding)

  bool uses_features() const { return dim == 0 || features; }
  double lr_or_default() const { return lr.value_or(0.01); }
  double init_scale_or_default() const { return init_scale.value_or(0.1); }
  double weight_decay_or_default() const { return weight_decay.value_or(0); }
  double l2_or_default(double weight_decay) const { return l2.value_or(rows_are_weights ? weight_decay : 0); }
};

// task link: training edges, negatives, evaluation negatives.
struct LinkSpec {
  int negative_k = 5;
  NegativeDistribution negative_distribution = NegativeDistribution::kUniform;
  int eval_negatives = 100;
  // Typed graphs: the predicted edge type ("src:relation:dst" or a relation
  // naming one type); "" on homogeneous graphs.
  std::string etype;
  // train-local only: the split of the input edges ("train,val,test"
  // fractions) when the dataset has no edge_split.npy, and its seed.
  std::string edge_split = "0.85,0.05,0.10";
  bool edge_split_given = false;
  uint64_t split_seed = 0;
};

// train.historical.nodes: whose stored rows a batch may read -- nodes on
// another machine only, or every node but the batch's seeds.
enum class HistoricalNodes { kRemote, kAll };

// train.historical: layer l's input rows of remote nodes read from a store on
// the servers instead of computed from their sampled neighbourhood, when
// written at most max_age_steps steps before (roles/trainer/tasks/historical_task.h).
struct HistoricalSpec {
  std::vector<int> layers;     // ascending, each in [1, layers - 1]; empty = off
  int64_t max_age_steps = 0;  // 0: no row is ever young enough (every row computed)
  HistoricalNodes nodes = HistoricalNodes::kRemote;

  bool enabled() const { return !layers.empty(); }
};

// train.lr_schedule: the learning rate of each optimizer step, from lr
// (roles/trainer/loop/lr_schedule.h has the formulas). The optional values
// are unset unless the user wrote them, so a value of another kind is refused.
struct LrScheduleSpec {
  LrScheduleKind kind = LrScheduleKind::kNone;
  std::optional<int64_t> warmup_steps;  // cosine, step: lr rises linearly over these steps (default 0)
  std::optional<double> min_lr;         // cosine: the rate it ends at (default 0)
  std::optional<int64_t> step_size;     // step: steps between decays (required)
  std::optional<double> gamma;          // step: the factor of each decay (default 0.1)

  int64_t warmup_steps_or_default() const { return warmup_steps.value_or(0); }
  double min_lr_or_default() const { return min_lr.value_or(0); }
  int64_t step_size_or_default() const { return step_size.value_or(1); }
  double gamma_or_default() const { return gamma.value_or(0.1); }
};

struct TrainSpec {
  std::string model;  // TorchScript file
  TrainTask task = TrainTask::kNode;
  TrainAlgorithm algorithm = TrainAlgorithm::kSample;
  TrainMode mode = TrainMode::kTrain;

  // Sampling: fanouts per layer, outermost last (as DGL); -1 = every neighbour.
  // control_variate samples layers - 1 of them.
  std::vector<int> fanouts{10, 25};
  std::vector<int> eval_fanouts;  // empty = full neighbours
  bool eval_full_neighbors = true;
  int64_t batch_size = 1000;
  int64_t eval_batch_size = 0;  // 0 = max(batch_size, 1024)

  // Optimization.
  int epochs = 10;
  // Unset: the front end sets it from the model and the data before the run
  // (config/default_lr.h); lr_or_default() reads it.
  std::optional<double> lr;
  double lr_or_default() const { return lr.value_or(kDefaultLr); }
  OptimizerKind optimizer = OptimizerKind::kAdam;
  double weight_decay = 0;
  double momentum = 0;  // sgd only
  // The gradients' largest global L2 norm (over every parameter, after the
  // all-reduce): larger ones are scaled down to it. 0 = no clipping.
  double grad_clip = 0;
  LrScheduleSpec lr_schedule;
  uint64_t seed = 0;

  // Evaluation and outputs.
  int eval_every = 1;
  ModelSelection select_by = ModelSelection::kValMetric;
  bool save_predictions = false;
  bool save_embeddings = false;
  bool layerwise_inference = false;

  // Recovery: step checkpoints every N steps (0 = checkpoint.pt per epoch
  // only), the newest `checkpoint_keep` kept; resume from the newest complete one.
  int64_t checkpoint_every_steps = 0;
  int checkpoint_keep = 2;
  bool resume = false;

  // Input rows: block 0 aggregated at the data, the wire dtype of feature
  // rows, the trainer's cache of remote rows (MiB, 0 = none).
  InputAggregation input_aggregation = InputAggregation::kAuto;
  WireDType feature_wire_dtype = WireDType::kFloat32;
  int64_t feature_cache_mb = 0;

  // Machinery.
  int intra_op_threads = 0;  // 0 = cores / trainers on the machine
  int credits = 4;           // batches a sampler may send ahead
  int sampler_threads = 1;   // in-process batch makers (train-local)
  int log_every = 20;        // steps between progress lines
  bool quiet = false;

  // Node data names.
  std::string features = "features";
  std::string labels = "labels";
  int64_t num_classes = 0;  // 0 = from the data

  EmbeddingSpec embedding;
  LinkSpec link;
  std::string cv_input;  // control_variate: the propagated input array
  HistoricalSpec historical;

  // train-local's dataset (unused by jobs).
  std::string dataset_dir;
  bool undirected = false;
  bool normalize_features = false;
  bool merge_types = false;
};

// Where a spec's settings came from, so an error names what the user wrote:
// the YAML file and `train.<key>`, or train-local's `--<flag>`.
struct TrainSpecSource {
  enum Kind { kYaml, kFlags } kind = kFlags;
  std::string yaml_path;  // kYaml
  // kYaml: the line (1-based) of each key the file wrote ("train.lr",
  // "train.fanouts[1]", "train"), and the `--set` text of the keys an
  // override set ({"train.lr", "train.lr=0"}), so errors point at them.
  std::map<std::string, int> lines;
  std::map<std::string, std::string> overridden;
  // The name the user wrote for a setting: "train.lr" or "--lr".
  std::string Name(const std::string& yaml_key, const std::string& flag) const;
  // Where an error about a setting starts: "FILE:LINE: key 'train.lr'",
  // "FILE (--set train.lr=0): key 'train.lr'", or "--lr".
  std::string Where(const std::string& yaml_key, const std::string& flag) const;
};

// Every rule on a spec, in one place (ranges, combinations, files that must
// exist). InvalidArgument naming the key or flag of the first broken rule.
Status ValidateTrainSpec(const TrainSpec& spec, const TrainSpecSource& source);

// What a numeric setting takes, as its range rule states it: "an integer in
// [1, 1000000]", "a number > 0 and <= 1000" (yaml_key may carry an index,
// "train.fanouts[2]"); "" for a key with no numeric rule. The YAML parser
// names it when a value is no number at all.
std::string ExpectedValue(const std::string& yaml_key);

// The spelling of each enum value, as the YAML and flags take it and as
// run.json and metrics record it; Parse* returns false on an unknown word.
const char* Name(TrainTask v);
const char* Name(TrainAlgorithm v);
const char* Name(OptimizerKind v);
const char* Name(SparseOptimizerKind v);
const char* Name(InputAggregation v);
const char* Name(HistoricalNodes v);
const char* Name(NegativeDistribution v);
const char* Name(TrainMode v);
const char* Name(ModelSelection v);
const char* Name(LrScheduleKind v);
bool Parse(const std::string& word, TrainTask* out);
bool Parse(const std::string& word, TrainAlgorithm* out);
bool Parse(const std::string& word, OptimizerKind* out);
bool Parse(const std::string& word, SparseOptimizerKind* out);
bool Parse(const std::string& word, InputAggregation* out);
bool Parse(const std::string& word, HistoricalNodes* out);
bool Parse(const std::string& word, NegativeDistribution* out);
bool Parse(const std::string& word, TrainMode* out);
bool Parse(const std::string& word, ModelSelection* out);
bool Parse(const std::string& word, LrScheduleKind* out);
bool Parse(const std::string& word, WireDType* out);
// The words Parse takes for an enum, for messages: "adam or sgd".
template <class E>
std::string Choices();
template <> std::string Choices<TrainTask>();
template <> std::string Choices<TrainAlgorithm>();
template <> std::string Choices<OptimizerKind>();
template <> std::string Choices<SparseOptimizerKind>();
template <> std::string Choices<InputAggregation>();
template <> std::string Choices<HistoricalNodes>();
template <> std::string Choices<NegativeDistribution>();
template <> std::string Choices<TrainMode>();
template <> std::string Choices<ModelSelection>();
template <> std::string Choices<LrScheduleKind>();
template <> std::string Choices<WireDType>();

}  // namespace dg
