// The epoch loop (roles/trainer/loop/epoch_loop.h) driven by a task of this
// test's own: least squares on a linear model, batches that depend only on
// the epoch and their index. Checked: the step checkpoints' cadence and
// contents, a run that fails after a step checkpoint and resumes ending
// bit-identical to the run never stopped, the learning rate of every step
// under a cosine and a step schedule (before and after the resume) against
// the formula computed here, gradient clipping against the norm computed
// by hand, a SIGTERM stop (a step checkpoint at the step it came in, then a
// resume ending bit-identical), the model kept under both select_by rules,
// and every run's trainer-0.json.
#include "test/support/torch_catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/base/stop_request.h"
#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/loop/lr_schedule.h"
#include "roles/trainer/loop/train_step.h"
#include "roles/trainer/loop/trainer_setup.h"
#include "test/support/test_support.h"

namespace dg {
namespace {

constexpr int64_t kDim = 4, kRows = 8;

// A model of one parameter vector w [kDim], zeros at the start.
void MakeModel(const TrainSpec& spec, ModelState* m) {
  m->module = torch::jit::Module("FakeLinear");
  m->module.register_parameter("w", torch::zeros({kDim}), false);
  for (const auto& p : m->module.named_parameters(true)) {
    m->names.push_back(p.name);
    m->params.push_back(p.value);
    p.value.set_requires_grad(true);
  }
  m->optimizer = MakeOptimizer(spec, m->params);
}

// Least squares: batch b of epoch e is X [kRows, kDim], y [kRows] from
// sines of (e, b); loss = mean((X w - y)^2). It records the learning rate
// each trained batch saw, and fails (as a killed process would stop) before
// training batch number `fail_at` (counted over the run, from 0; -1 = never);
// with `stop_at`, SIGTERM's flag is raised during that batch's forward. With
// `script`, epoch e's evaluation is script[e - 1] (validation metric, loss);
// the parameters at each evaluation are kept in `evaluated`.
class FakeTask : public EpochTask {
 public:
  FakeTask(const TrainSpec& spec, int64_t steps_per_epoch, int64_t fail_at = -1, int64_t stop_at = -1,
           std::vector<std::pair<double, double>> script = {})
      : script_(std::move(script)), steps_(steps_per_epoch), fail_at_(fail_at), stop_at_(stop_at) {
    MakeModel(spec, &m_);
  }

  ModelState& model() override { return m_; }
  int64_t kind() const override { return 7; }
  const char* name() const override { return "fake"; }
  const char* metric() const override { return "score"; }
  Result<int64_t> BeginEpoch(int64_t epoch) override {
    epoch_ = epoch;
    batch_ = 0;
    return steps_;
  }
  Result<bool> NextBatch(bool skip, StepSplit*) override {
    if (batch_ >= steps_) return false;
    current_ = batch_++;
    if (!skip && trained_++ == fail_at_) return Status::Internal("stopped by the test");
    return true;
  }
  Result<BatchLoss> Loss() override {
    if (static_cast<int64_t>(lrs.size()) == stop_at_) RequestStop();
    lrs.push_back(m_.optimizer->param_groups()[0].options().get_lr());
    const double base = static_cast<double>(epoch_ * 31 + current_ * 7);
    torch::Tensor x = torch::sin(torch::arange(kRows * kDim, torch::kFloat32).reshape({kRows, kDim}) + base);
    torch::Tensor y = torch::cos(torch::arange(kRows, torch::kFloat32) * 0.5 + base);
    BatchLoss out;
    out.loss = (x.matmul(m_.params[0]) - y).pow(2).mean();
    out.count = kRows;
    return out;
  }
  Result<Evaluation> Evaluate(int64_t epoch) override {
    evaluated.push_back(FlattenParameters(m_.params));
    Evaluation e;
    e.val = -m_.params[0].detach().norm().item<double>();
    e.val_loss = -e.val;
    if (epoch <= static_cast<int64_t>(script_.size())) {
      e.val = script_[epoch - 1].first;
      e.val_loss = script_[epoch - 1].second;
    }
    e.test = e.val;
    return e;
  }
  std::string EpochJson(const EpochStats&) const override { return ""; }

  std::vector<double> lrs;                   // per trained batch
  std::vector<std::vector<float>> evaluated;  // the parameters at each evaluation

 private:
  ModelState m_;
  std::vector<std::pair<double, double>> script_;
  int64_t steps_, fail_at_, stop_at_;
  int64_t epoch_ = 0, batch_ = 0, current_ = 0, trained_ = 0;
};

TrainSpec Spec(const LrScheduleSpec& schedule, double grad_clip) {
  TrainSpec s;
  s.epochs = 3;
  s.lr = 0.05;
  s.optimizer = OptimizerKind::kAdam;
  s.checkpoint_every_steps = 3;
  s.checkpoint_keep = 100;
  s.lr_schedule = schedule;
  s.grad_clip = grad_clip;
  s.quiet = true;
  s.model = "fake";
  return s;
}

struct Run {
  Status status;
  std::vector<double> lrs;
  std::vector<float> params;
};

Run RunLoop(const TrainSpec& spec, const std::string& dir, int64_t fail_at = -1, int64_t stop_at = -1) {
  TrainHooks hooks;
  hooks.out_dir = dir;
  std::filesystem::create_directories(dir);
  FakeTask task(spec, 5, fail_at, stop_at);
  EpochLoop loop(spec, hooks, &task);
  Run r;
  r.status = loop.Run();
  r.lrs = task.lrs;
  r.params = FlattenParameters(task.model().params);
  return r;
}

torch::Tensor ReadKey(const std::string& path, const std::string& key) {
  torch::serialize::InputArchive ar;
  ar.load_from(path);
  torch::Tensor t;
  ar.read(key, t);
  return t;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string Fingerprint(const std::string& summary) {
  const std::string text = ReadFile(summary), key = "\"param_fingerprint\": \"";
  const size_t at = text.find(key);
  if (at == std::string::npos) return "";
  return text.substr(at + key.size(), text.find('"', at + key.size()) - at - key.size());
}

std::vector<float> ModelFileParameters(const std::string& path) {
  torch::jit::Module m = torch::jit::load(path);
  std::vector<torch::Tensor> params;
  for (const auto& p : m.named_parameters(true)) params.push_back(p.value);
  return FlattenParameters(params);
}

}  // namespace

TEST_CASE("ScheduledLr: warm-up, cosine and step against the formulas", "[loop]") {
  LrScheduleSpec none;
  CHECK(ScheduledLr(none, 0.1, 7, 100) == 0.1);
  LrScheduleSpec cos;
  cos.kind = LrScheduleKind::kCosine;
  cos.warmup_steps = 4;
  cos.min_lr = 0.01;
  CHECK(ScheduledLr(cos, 0.1, 0, 104) == Approx(0.1 * 1 / 4));
  CHECK(ScheduledLr(cos, 0.1, 3, 104) == Approx(0.1));
  CHECK(ScheduledLr(cos, 0.1, 4, 104) == Approx(0.1));                                 // p = 0
  CHECK(ScheduledLr(cos, 0.1, 54, 104) == Approx(0.01 + 0.09 * 0.5));                  // p = 1/2
  CHECK(ScheduledLr(cos, 0.1, 29, 104) == Approx(0.01 + 0.09 * 0.5 * (1 + std::sqrt(0.5))));  // p = 1/4
  CHECK(ScheduledLr(cos, 0.1, 500, 104) == Approx(0.01));                              // past the end
  LrScheduleSpec step;
  step.kind = LrScheduleKind::kStep;
  step.step_size = 10;
  step.gamma = 0.5;
  CHECK(ScheduledLr(step, 0.1, 9, 0) == Approx(0.1));
  CHECK(ScheduledLr(step, 0.1, 10, 0) == Approx(0.05));
  CHECK(ScheduledLr(step, 0.1, 35, 0) == Approx(0.0125));
}

TEST_CASE("EpochLoop with a task of its own: step checkpoints every 3 steps hold the position and the schedule",
          "[loop][checkpoint]") {
  test::TempDir dir;
  LrScheduleSpec cos;
  cos.kind = LrScheduleKind::kCosine;
  cos.warmup_steps = 2;
  cos.min_lr = 0.001;
  const Run r = RunLoop(Spec(cos, 0), dir / "run");
  REQUIRE(r.status.ok());
  REQUIRE(r.lrs.size() == 15);  // 3 epochs of 5 steps
  for (int64_t step : {3, 6, 9, 12, 15}) {
    INFO("step " << step);
    const std::string d = dir / ("run/checkpoints/step-" + std::to_string(step));
    REQUIRE(std::filesystem::exists(d + "/manifest.json"));
    const std::string manifest = ReadFile(d + "/manifest.json");
    const int64_t epoch = (step - 1) / 5 + 1, batch = step - (epoch - 1) * 5;
    CHECK(manifest.find("\"epoch\": " + std::to_string(epoch) + ", \"batch\": " + std::to_string(batch)) !=
          std::string::npos);
    CHECK(ReadKey(d + "/trainer.pt", "optimizer_steps").item<int64_t>() == step);
    // The rate the next step takes.
    CHECK(ReadKey(d + "/trainer.pt", "lr").item<double>() == Approx(ScheduledLr(cos, 0.05, step, 15)));
  }
  for (int64_t step : {1, 2, 4, 5, 7})
    CHECK_FALSE(std::filesystem::exists(dir / ("run/checkpoints/step-" + std::to_string(step))));
  CHECK(ReadKey(dir / "run/checkpoint.pt", "optimizer_steps").item<int64_t>() == 15);
  CHECK(std::filesystem::exists(dir / "run/model.pt"));
}

TEST_CASE("EpochLoop with a task of its own: a run that fails after a step checkpoint resumes bit-identical, the "
          "learning rate schedule continuing where it was",
          "[loop][checkpoint]") {
  LrScheduleSpec cos;
  cos.kind = LrScheduleKind::kCosine;
  cos.warmup_steps = 3;
  cos.min_lr = 0.002;
  LrScheduleSpec step;
  step.kind = LrScheduleKind::kStep;
  step.warmup_steps = 2;
  step.step_size = 4;
  step.gamma = 0.5;
  for (const LrScheduleSpec& schedule : {cos, step}) {
    for (double clip : {0.0, 0.5}) {
      INFO("schedule " << Name(schedule.kind) << ", grad_clip " << clip);
      test::TempDir dir;
      const TrainSpec spec = Spec(schedule, clip);
      const Run full = RunLoop(spec, dir / "full");
      REQUIRE(full.status.ok());
      REQUIRE(full.lrs.size() == 15);
      for (int64_t t = 0; t < 15; ++t) CHECK(full.lrs[t] == Approx(ScheduledLr(schedule, 0.05, t, 15)));
      // Fails before step 9 (epoch 2, batch 4): the newest step checkpoint is step 6.
      const Run failed = RunLoop(spec, dir / "cut", 8);
      REQUIRE_FALSE(failed.status.ok());
      REQUIRE(failed.lrs.size() == 8);
      TrainSpec again = spec;
      again.resume = true;
      const Run resumed = RunLoop(again, dir / "cut");
      REQUIRE(resumed.status.ok());
      REQUIRE(resumed.lrs.size() == 9);  // steps 7 .. 15
      for (size_t i = 0; i < resumed.lrs.size(); ++i) CHECK(resumed.lrs[i] == full.lrs[6 + i]);
      CHECK(resumed.params == full.params);
      CHECK(ReadFile(dir / "full/metrics.jsonl").size() > 0);
    }
  }
}

TEST_CASE("EpochLoop with a task of its own: SIGTERM during a step stops after it with a step checkpoint, and "
          "--resume ends bit-identical to the run never stopped",
          "[loop][checkpoint]") {
  LrScheduleSpec cos;
  cos.kind = LrScheduleKind::kCosine;
  cos.warmup_steps = 2;
  TrainSpec spec = Spec(cos, 0);
  spec.checkpoint_every_steps = 0;  // the only step checkpoint is the stop's
  for (int64_t stop_at : {6, 9}) {  // mid-epoch (epoch 2, batch 2); an epoch's last step (epoch 2, batch 5)
    INFO("SIGTERM during step " << stop_at + 1);
    test::TempDir dir;
    const Run full = RunLoop(spec, dir / "full");
    REQUIRE(full.status.ok());
    const Run stopped = RunLoop(spec, dir / "cut", -1, stop_at);
    ClearStopRequest();
    REQUIRE(stopped.status.code() == Status::Code::kStopped);
    const std::string step = "step-" + std::to_string(stop_at + 1);
    CHECK(stopped.status.message().find("SIGTERM: stopped after step " + std::to_string(stop_at + 1)) !=
          std::string::npos);
    CHECK(stopped.status.message().find(step) != std::string::npos);
    REQUIRE(stopped.lrs.size() == static_cast<size_t>(stop_at + 1));
    REQUIRE(std::filesystem::exists(dir / ("cut/checkpoints/" + step + "/manifest.json")));
    TrainSpec again = spec;
    again.resume = true;
    const Run resumed = RunLoop(again, dir / "cut");
    REQUIRE(resumed.status.ok());
    REQUIRE(resumed.lrs.size() == static_cast<size_t>(15 - stop_at - 1));
    for (size_t i = 0; i < resumed.lrs.size(); ++i) CHECK(resumed.lrs[i] == full.lrs[stop_at + 1 + i]);
    CHECK(resumed.params == full.params);
    // trainer-0.json: the resumed run counts its own steps, and ends on the same parameters.
    CHECK(ReadFile(dir / "full/trainer-0.json").find("\"steps\": 15,") != std::string::npos);
    CHECK(Fingerprint(dir / "cut/trainer-0.json") == Fingerprint(dir / "full/trainer-0.json"));
    CHECK(Fingerprint(dir / "full/trainer-0.json").size() > 4);
  }
}

TEST_CASE("EpochLoop with a task of its own: the model kept is the best validation metric's (ties to the lower "
          "loss) or the lowest validation loss's",
          "[loop]") {
  // Epoch: (val metric, val loss). val_metric: epoch 3 (ties epoch 2 with a lower loss); val_loss: epoch 4.
  const std::vector<std::pair<double, double>> script{{0.5, 0.9}, {0.8, 0.7}, {0.8, 0.6}, {0.7, 0.5}};
  for (ModelSelection by : {ModelSelection::kValMetric, ModelSelection::kValLoss}) {
    INFO("select_by " << Name(by));
    test::TempDir dir;
    TrainSpec spec = Spec(LrScheduleSpec(), 0);
    spec.epochs = 4;
    spec.select_by = by;
    TrainHooks hooks;
    hooks.out_dir = dir / "run";
    std::filesystem::create_directories(hooks.out_dir);
    FakeTask task(spec, 5, -1, -1, script);
    EpochLoop loop(spec, hooks, &task);
    REQUIRE(loop.Run().ok());
    REQUIRE(task.evaluated.size() == 4);
    const int64_t best = by == ModelSelection::kValMetric ? 3 : 4;
    const std::string metrics = ReadFile(dir / "run/metrics.jsonl");
    CHECK(metrics.find("\"best_epoch\": " + std::to_string(best)) != std::string::npos);
    CHECK(ModelFileParameters(dir / "run/model.pt") == task.evaluated[best - 1]);
    CHECK(FlattenParameters(task.model().params) == task.evaluated[3]);  // the last parameters are put back
    CHECK(std::filesystem::exists(dir / "run/trainer-0.json"));
  }
}

TEST_CASE("grad_clip scales the gradients to the global L2 norm given, computed by hand", "[loop]") {
  // loss = w . c with c = (3, 4, 0, 12): the gradient is c, its norm 13. SGD
  // with lr 1 from w = 0 leaves w = -c * min(1, clip / (13 + 1e-6)).
  const std::vector<float> c{3, 4, 0, 12};
  for (double clip : {1.0, 6.5, 13.5, 0.0}) {
    INFO("grad_clip " << clip);
    TrainSpec spec;
    spec.lr = 1;
    spec.optimizer = OptimizerKind::kSgd;
    spec.grad_clip = clip;
    TrainHooks hooks;
    ModelState m;
    MakeModel(spec, &m);
    TrainingStep step(spec, hooks, &m);
    torch::Tensor ct = torch::tensor(c);
    StepOutcome out;
    REQUIRE(step
                .Run(1,
                     [&](size_t) -> Result<BatchLoss> {
                       BatchLoss l;
                       l.loss = m.params[0].dot(ct);
                       return l;
                     },
                     &out)
                .ok());
    const double scale = clip > 0 ? std::min(1.0, clip / (13.0 + 1e-6)) : 1.0;
    const std::vector<float> w = FlattenParameters(m.params);
    double norm = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      CHECK(w[i] == Approx(-c[i] * scale).epsilon(1e-6).margin(1e-7));
      norm += double(w[i]) * w[i];
    }
    if (clip > 0) CHECK(std::sqrt(norm) <= clip * (1 + 1e-6));
  }
}

}  // namespace dg
