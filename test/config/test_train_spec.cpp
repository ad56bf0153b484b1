// TrainSpec: the spelling of every enum, the defaults, and every rule of
// ValidateTrainSpec with its message as a YAML job and as train-local's flags
// spell it.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>

#include "config/default_lr.h"
#include "config/train_spec.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

template <class E>
void RoundTrip(const std::vector<E>& values, const std::string& choices) {
  CHECK(Choices<E>() == choices);
  for (E v : values) {
    E back{};
    REQUIRE(Parse(Name(v), &back));
    CHECK(back == v);
  }
  E out = values.front();
  CHECK_FALSE(Parse("nope", &out));
  CHECK(out == values.front());
}

const char* NameOf(WireDType t) { return WireDTypeName(t); }

// A valid spec on a model file that exists.
struct Fixture {
  test::TempDir dir;
  TrainSpec spec;
  TrainSpecSource yaml, flags;
  Fixture() {
    std::ofstream(dir / "m.pt") << "x";
    spec.model = dir / "m.pt";
    yaml.kind = TrainSpecSource::kYaml;
    yaml.yaml_path = "job.yaml";
    yaml.lines = {{"train", 7}, {"train.lr", 9}, {"train.fanouts", 10}, {"train.fanouts[1]", 10}};
  }
  std::string Yaml() const { return ValidateTrainSpec(spec, yaml).message(); }
  std::string Flags() const { return ValidateTrainSpec(spec, flags).message(); }
};

}  // namespace

TEST_CASE("TrainSpec enums: Name and Parse agree, Choices lists the words", "[config][spec]") {
  RoundTrip<TrainTask>({TrainTask::kNode, TrainTask::kLink}, "node or link");
  RoundTrip<TrainAlgorithm>({TrainAlgorithm::kSample, TrainAlgorithm::kControlVariate}, "sample or control_variate");
  RoundTrip<OptimizerKind>({OptimizerKind::kAdam, OptimizerKind::kSgd}, "adam or sgd");
  RoundTrip<SparseOptimizerKind>({SparseOptimizerKind::kAdam, SparseOptimizerKind::kAdagrad},
                                    "sparse_adam or sparse_adagrad");
  RoundTrip<InputAggregation>({InputAggregation::kAuto, InputAggregation::kOn, InputAggregation::kOff},
                              "auto, on or off");
  RoundTrip<NegativeDistribution>({NegativeDistribution::kUniform, NegativeDistribution::kDegree},
                                  "uniform or degree");
  RoundTrip<TrainMode>({TrainMode::kTrain, TrainMode::kInfer, TrainMode::kPropagate}, "train, infer or propagate");
  RoundTrip<ModelSelection>({ModelSelection::kValMetric, ModelSelection::kValLoss}, "val_metric or val_loss");
  CHECK(Choices<WireDType>() == "float32, float16 or bfloat16");
  for (WireDType t : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16}) {
    WireDType back = WireDType::kFloat32;
    REQUIRE(Parse(NameOf(t), &back));
    CHECK(back == t);
  }
  CHECK(std::string(Name(OptimizerKind::kSgd)) == "sgd");
  CHECK(std::string(Name(TrainAlgorithm::kControlVariate)) == "control_variate");
}

TEST_CASE("TrainSpec defaults are the job's and they validate", "[config][spec]") {
  Fixture f;
  const TrainSpec& s = f.spec;
  CHECK(s.fanouts == std::vector<int>{10, 25});
  CHECK_FALSE(s.lr.has_value());
  CHECK(s.batch_size == 1000);
  CHECK(s.epochs == 10);
  CHECK(s.optimizer == OptimizerKind::kAdam);
  CHECK(s.task == TrainTask::kNode);
  CHECK(s.algorithm == TrainAlgorithm::kSample);
  CHECK(s.input_aggregation == InputAggregation::kAuto);
  CHECK(s.feature_wire_dtype == WireDType::kFloat32);
  CHECK(s.link.negative_k == 5);
  CHECK(s.link.eval_negatives == 100);
  CHECK(s.embedding.dim == 0);
  CHECK(s.embedding.uses_features());
  CHECK(!s.embedding.weight_decay);
  CHECK(s.checkpoint_keep == 2);
  CHECK(ValidateTrainSpec(s, f.yaml).ok());
  CHECK(ValidateTrainSpec(s, f.flags).ok());
}

TEST_CASE("TrainSpecSource names the key with its line, an override, or the flag", "[config][spec]") {
  TrainSpecSource y;
  y.kind = TrainSpecSource::kYaml;
  y.yaml_path = "job.yaml";
  y.lines = {{"train", 7}, {"train.lr", 9}};
  CHECK(y.Where("train.lr", "--lr") == "job.yaml:9: key 'train.lr'");
  CHECK(y.Where("train.cv_input", "--cv-input") == "job.yaml:7: key 'train.cv_input'");  // the parent's line
  CHECK(y.Where("other", "--x") == "job.yaml: key 'other'");
  y.overridden = {{"train.lr", "train.lr=0"}};
  CHECK(y.Where("train.lr", "--lr") == "job.yaml (--set train.lr=0): key 'train.lr'");
  CHECK(y.Name("train.lr", "--lr") == "train.lr");
  TrainSpecSource f;
  CHECK(f.Where("train.lr", "--lr") == "--lr");
  CHECK(f.Name("train.lr", "--lr") == "--lr");
  CHECK(ExpectedValue("train.epochs") == "an integer in [1, 1000000]");
  CHECK(ExpectedValue("train.fanouts[3]") == "an integer in [-1, 1000000] (-1 = all neighbors)");
  CHECK(ExpectedValue("train.lr") == "a number > 0 and <= 1000");
  CHECK(ExpectedValue("train.model") == "");
}

TEST_CASE("ValidateTrainSpec: every rule, named as the YAML and as the flags spell it", "[config][spec]") {
  struct Case {
    std::string what;
    std::function<void(TrainSpec*)> edit;
    std::string yaml, flags;  // a part of each message
  };
  const std::vector<Case> cases = {
      {"missing model", [](TrainSpec* s) { s->model.clear(); }, "key 'train.model': missing", "--model: missing"},
      {"model file", [](TrainSpec* s) { s->model += ".none"; },
       "does not exist (paths are relative to the config file)", "--model: model file '"},
      {"empty fanouts", [](TrainSpec* s) { s->fanouts.clear(); }, "key 'train.fanouts': expected a non-empty list",
       "--fanouts: expected a non-empty list"},
      {"fanout 0", [](TrainSpec* s) { s->fanouts = {5, 0}; },
       "job.yaml:10: key 'train.fanouts[1]': expected a fanout >= 1 or -1 (all neighbors), got 0",
       "--fanouts: expected a fanout >= 1 or -1 (all neighbors), got 0"},
      {"fanout -2", [](TrainSpec* s) { s->fanouts = {-2}; },
       "key 'train.fanouts[0]': expected an integer in [-1, 1000000] (-1 = all neighbors), got -2",
       "--fanouts: expected an integer in [-1, 1000000]"},
      {"eval fanouts", [](TrainSpec* s) { s->eval_fanouts = {0}; }, "train.eval_fanouts[0]",
       "--eval-fanouts: expected a fanout >= 1 or -1"},
      {"batch size", [](TrainSpec* s) { s->batch_size = 0; },
       "key 'train.batch_size': expected an integer in [1, 100000000], got 0",
       "--batch-size: expected an integer in [1, 100000000], got 0"},
      {"epochs", [](TrainSpec* s) { s->epochs = 0; }, "key 'train.epochs': expected an integer in [1, 1000000], got 0",
       "--epochs: expected an integer in [1, 1000000], got 0"},
      {"lr", [](TrainSpec* s) { s->lr = 0; }, "job.yaml:9: key 'train.lr': expected a number > 0 and <= 1000, got 0",
       "--lr: expected a number > 0 and <= 1000, got 0"},
      {"weight decay", [](TrainSpec* s) { s->weight_decay = -1; }, "key 'train.weight_decay': expected a number >= 0",
       "--weight-decay: expected a number >= 0"},
      {"momentum range", [](TrainSpec* s) { s->optimizer = OptimizerKind::kSgd, s->momentum = 2; },
       "key 'train.momentum': expected a number >= 0 and <= 1, got 2", "--momentum: expected a number >= 0 and <= 1"},
      {"momentum with adam", [](TrainSpec* s) { s->momentum = 0.9; },
       "key 'train.momentum': goes with train.optimizer sgd", "--momentum: goes with --optimizer sgd"},
      {"eval every", [](TrainSpec* s) { s->eval_every = -1; }, "key 'train.eval_every': expected an integer in [0",
       "--eval-every: expected an integer in [0"},
      {"checkpoint steps", [](TrainSpec* s) { s->checkpoint_every_steps = -1; },
       "key 'train.checkpoint_every_steps': expected an integer in [0", "--checkpoint-every-steps: expected"},
      {"checkpoint keep", [](TrainSpec* s) { s->checkpoint_keep = 0; },
       "key 'train.checkpoint_keep': expected an integer in [1, 1000], got 0", "--checkpoint-keep: expected"},
      {"cache", [](TrainSpec* s) { s->feature_cache_mb = -1; }, "key 'train.feature_cache_mb'", "--feature-cache-mb"},
      {"threads", [](TrainSpec* s) { s->intra_op_threads = -1; }, "key 'train.intra_op_threads'", "--threads:"},
      {"credits", [](TrainSpec* s) { s->credits = 0; }, "key 'train.credits': expected an integer in [1, 1024]",
       "--credits"},
      {"sampler threads", [](TrainSpec* s) { s->sampler_threads = 0; }, "train.sampler_threads",
       "--sampler-threads: expected an integer in [1, 1024], got 0"},
      {"classes", [](TrainSpec* s) { s->num_classes = -1; }, "train.num_classes", "--classes: expected"},
      {"embedding dim", [](TrainSpec* s) { s->embedding.dim = -1; }, "key 'train.embedding.dim'",
       "--embedding-dim: expected an integer in [0, 1048576], got -1"},
      {"embedding lr", [](TrainSpec* s) { s->embedding.lr = 0; }, "key 'train.embedding.lr': expected a number > 0",
       "--embedding-lr: expected a number > 0"},
      {"embedding scale", [](TrainSpec* s) { s->embedding.init_scale = -1; },
       "key 'train.embedding.init_scale': expected a number >= 0", "--embedding-init-scale"},
      {"embedding weight decay", [](TrainSpec* s) { s->embedding.weight_decay = -0.5; },
       "key 'train.embedding.weight_decay': expected a number >= 0 and <= 1000, got -0.5",
       "--embedding-weight-decay: expected a number >= 0 and <= 1000, got -0.5"},
      {"embedding decay factor", [](TrainSpec* s) { s->embedding.lr = 0.5, s->embedding.weight_decay = 4; },
       "key 'train.embedding.weight_decay': times train.embedding.lr must be < 1, got 2",
       "--embedding-weight-decay: times --embedding-lr must be < 1, got 2"},
      {"embedding name", [](TrainSpec* s) { s->embedding.name = "a/b"; },
       "key 'train.embedding.name': expected letters, digits", "expected letters, digits, '_' or '-', got 'a/b'"},
      {"no features, no embedding", [](TrainSpec* s) { s->embedding.features = false; },
       "key 'train.embedding.features': needs train.embedding.dim > 0",
       "--no-features: needs --embedding-dim > 0 (the model needs some input)"},
      {"negative k", [](TrainSpec* s) { s->link.negative_k = 0; },
       "key 'train.negative.k': expected an integer in [1, 100000], got 0", "--negatives: expected an integer in [1"},
      {"eval negatives", [](TrainSpec* s) { s->link.eval_negatives = 0; }, "key 'train.eval_negatives'",
       "--eval-negatives: expected"},
      {"link etype without link", [](TrainSpec* s) { s->link.etype = "a:r:b"; },
       "key 'train.link_etype': goes with train.task link", "--link-etype: goes with --task link"},
      {"link outputs", [](TrainSpec* s) { s->task = TrainTask::kLink, s->save_predictions = true; },
       "key 'train.task': link does not support train.save_predictions or train.layerwise_inference (class "
       "outputs; link prediction writes embeddings with train.save_embeddings)",
       "--task: link does not support --save-predictions or layer-wise inference"},
      {"control variate link",
       [](TrainSpec* s) { s->algorithm = TrainAlgorithm::kControlVariate, s->task = TrainTask::kLink; },
       "key 'train.algorithm': control_variate trains node classification; train.task link samples",
       "--algorithm: control_variate trains node classification; --task link samples"},
      {"control variate every neighbour",
       [](TrainSpec* s) { s->algorithm = TrainAlgorithm::kControlVariate, s->cv_input = "h_1", s->fanouts = {2, -1}; },
       "key 'train.fanouts[1]': -1 (every neighbour) is not a fanout of train.algorithm control_variate",
       "--fanouts: -1 (every neighbour) is not a fanout of --algorithm control_variate"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Fixture f;
    c.edit(&f.spec);
    const std::string y = f.Yaml(), fl = f.Flags();
    INFO(y);
    INFO(fl);
    CHECK(y.find(c.yaml) != std::string::npos);
    CHECK(y.rfind("job.yaml", 0) == 0);
    CHECK(fl.find(c.flags) != std::string::npos);
    CHECK(fl.find("train.") == std::string::npos);
  }
}

TEST_CASE("ValidateTrainSpec: control_variate needs cv_input in a job, not in train-local", "[config][spec]") {
  Fixture f;
  f.spec.algorithm = TrainAlgorithm::kControlVariate;
  f.spec.fanouts = {2};
  CHECK(f.Yaml().find("job.yaml:7: key 'train.cv_input': missing: train.algorithm control_variate needs the "
                      "propagated input") == 0);
  CHECK(ValidateTrainSpec(f.spec, f.flags).ok());  // train-local computes the mean of the features
  f.spec.cv_input = "h_1";
  CHECK(ValidateTrainSpec(f.spec, f.yaml).ok());
  f.spec.resume = true;  // control variate resumes as every task does
  CHECK(ValidateTrainSpec(f.spec, f.yaml).ok());
  CHECK(ValidateTrainSpec(f.spec, f.flags).ok());
  f.spec.resume = false;
  // Learnt rows as the whole input: nothing to propagate, so no cv_input.
  f.spec.cv_input.clear();
  f.spec.embedding.dim = 8;
  f.spec.embedding.features = false;
  f.spec.fanouts = {2, 2};
  CHECK(ValidateTrainSpec(f.spec, f.yaml).ok());
  f.spec.embedding.features = true;  // features beside them still need their mean
  CHECK(f.Yaml().find("key 'train.cv_input': missing") != std::string::npos);
  f.spec.embedding = EmbeddingSpec();
  f.spec.fanouts = {2};
  f.spec.cv_input = "h_1";
  f.spec.algorithm = TrainAlgorithm::kSample;
  f.spec.task = TrainTask::kLink;
  f.spec.link.edge_split = "0.5,0.4";  // train-local's own split of the edges
  CHECK(f.Flags().find("--edge-split") != std::string::npos);
  f.spec.optimizer = OptimizerKind::kSgd;
  f.spec.momentum = 0.9;
  f.spec.fanouts = {-1};
  CHECK(ValidateTrainSpec(f.spec, f.yaml).ok());
}


TEST_CASE("ValidateTrainSpec: grad_clip and lr_schedule as train-local's flags name them", "[config][spec]") {
  Fixture f;
  f.spec.grad_clip = -0.5;
  CHECK(f.Flags() == "--grad-clip: expected a number >= 0 and <= 1e+09 (0 = no clipping), got -0.5");
  f.spec.grad_clip = 1;
  f.spec.lr_schedule.kind = LrScheduleKind::kStep;
  CHECK(f.Flags().find("--lr-step-size: missing: --lr-schedule step needs the optimizer steps between decays") == 0);
  f.spec.lr_schedule.step_size = 10;
  CHECK(f.Flags().empty());
  f.spec.lr_schedule.min_lr = 0.001;
  CHECK(f.Flags() == "--min-lr: goes with --lr-schedule cosine (it is step)");
  f.spec.lr_schedule.kind = LrScheduleKind::kCosine;
  CHECK(f.Flags() == "--lr-step-size: goes with --lr-schedule step (it is cosine)");
  f.spec.lr_schedule.step_size.reset();
  CHECK(f.Flags().empty());
  f.spec.lr = 0.0005;
  CHECK(f.Flags() == "--min-lr: must be <= --lr (0.0005), got 0.001");
  f.spec.lr_schedule = LrScheduleSpec();
  f.spec.lr_schedule.warmup_steps = 4;
  CHECK(f.Flags() == "--warmup-steps: goes with --lr-schedule cosine or step (it is none)");
  RoundTrip<LrScheduleKind>({LrScheduleKind::kNone, LrScheduleKind::kCosine, LrScheduleKind::kStep},
                            "none, cosine or step");
}

TEST_CASE("The default learning rate: 0.01 for sage and rgcn node models on sparse rows, else 0.003",
          "[config][spec]") {
  CHECK(DefaultLearningRate(TrainTask::kNode, "sage", 18.2) == 0.01);
  CHECK(DefaultLearningRate(TrainTask::kNode, "rgcn", 64.0) == 0.01);
  CHECK(DefaultLearningRate(TrainTask::kNode, "sage", 259.0) == kDefaultLr);  // dense rows
  CHECK(DefaultLearningRate(TrainTask::kNode, "rgcn", std::nullopt) == kDefaultLr);  // learnt rows alone
  CHECK(DefaultLearningRate(TrainTask::kNode, "gcn", 18.2) == kDefaultLr);
  CHECK(DefaultLearningRate(TrainTask::kNode, "gat", 18.2) == kDefaultLr);
  CHECK(DefaultLearningRate(TrainTask::kNode, "", 18.2) == kDefaultLr);  // a model that records no arch
  CHECK(DefaultLearningRate(TrainTask::kLink, "sage", 18.2) == kDefaultLr);
  CHECK(DescribeDefaultLearningRate(TrainTask::kNode, "sage", 18.17) ==
        "lr 0.01 (the default for sage on feature rows of mean L1 size 18.2 <= 64; docs/models.md)");
  CHECK(DescribeDefaultLearningRate(TrainTask::kNode, "sage", 258.8) ==
        "lr 0.003 (the default for sage on feature rows of mean L1 size 258.8 > 64; docs/models.md)");
  CHECK(DescribeDefaultLearningRate(TrainTask::kLink, "sage", 18.17) ==
        "lr 0.003 (the default for sage link models; docs/models.md)");
  CHECK(DescribeDefaultLearningRate(TrainTask::kNode, "rgcn", std::nullopt) ==
        "lr 0.003 (the default for rgcn without feature rows; docs/models.md)");
}

}  // namespace dg
