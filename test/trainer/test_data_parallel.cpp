// Data-parallel training: two trainers (threads, each with its own gloo process
// group over a TCPStore on 127.0.0.1) end with the parameters of one trainer
// stepping on both batches at once.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <thread>

#include "common/sampling/in_memory_graph.h"
#include "common/sampling/minibatch.h"
#include "common/storage/neighbor_sampling.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/tasks/node_task.h"
#include "test/support/test_support.h"
#include "test/trainer/random_graph.h"

namespace dg {
namespace {

TrainSpec Spec(const std::string& model, const std::string& optimizer = "adam") {
  TrainSpec s;
  s.model = model;
  s.fanouts = {5, 5};
  s.lr = 0.01;
  s.optimizer = optimizer == "sgd" ? OptimizerKind::kSgd : OptimizerKind::kAdam;
  s.momentum = optimizer == "sgd" ? 0.9 : 0;
  s.num_classes = 4;
  s.intra_op_threads = 1;
  s.quiet = true;
  return s;
}

TrainHooks Peers(int rank, int port, double timeout) {
  TrainHooks h;
  h.dp.world_size = 2;
  h.dp.rank = rank;
  h.dp.master_port = port;
  h.dp.timeout_seconds = timeout;
  return h;
}

// The node task stepped by the epoch loop on batches the test holds.
struct Stepper {
  TrainSpec spec;
  TrainHooks hooks;
  std::unique_ptr<NodeTask> task;
  std::unique_ptr<EpochLoop> loop;

  static Result<std::unique_ptr<Stepper>> Create(const TrainSpec& spec, const TrainHooks& hooks) {
    auto s = std::make_unique<Stepper>();
    s->spec = spec;
    s->hooks = hooks;
    NodeInput input;
    input.num_classes = spec.num_classes;
    DG_ASSIGN_OR_RETURN(s->task, NodeTask::Create(s->spec, s->hooks, std::move(input)));
    s->loop = std::make_unique<EpochLoop>(s->spec, s->hooks, s->task.get());
    return s;
  }
  // One optimizer step over `batches`; *count: the seeds stepped on.
  Status TrainStep(const std::vector<const MiniBatch*>& batches, int64_t* count = nullptr) {
    StepOutcome out;
    DG_RETURN_IF_ERROR(loop->Step(batches.size(), [&](size_t b) { return task->LossOf(*batches[b]); }, &out));
    if (count) *count = out.count;
    return Status::OK();
  }
  std::vector<float> ParameterVector() const { return FlattenParameters(task->model().params); }
};

}  // namespace

TEST_CASE("2 data-parallel trainers match one trainer on the concatenated batch") {
  test::TempDir dir;
  auto g = test::RandomGraph(400, 8, 4, 8, 5);
  ModelSpec spec;
  spec.in_dim = 8;
  spec.hidden = 16;
  spec.classes = 4;
  spec.dropout = 0;  // no randomness in the step
  spec.seed = 1;
  REQUIRE(ExportModel(spec, dir / "m.pt").ok());
  // A different initialisation for rank 1: the broadcast must replace it.
  spec.seed = 2;
  REQUIRE(ExportModel(spec, dir / "m_other.pt").ok());

  const int kSteps = 4;
  MiniBatchOptions mo;
  mo.fanouts = {5, 5};
  std::vector<MiniBatch> batches[2];
  for (int r = 0; r < 2; ++r)
    for (int s = 0; s < kSteps; ++s) {
      std::vector<int64_t> seeds;
      for (int i = 0; i < 32; ++i) seeds.push_back((s * 64 + r * 32 + i) % 400);
      auto mb = SampleMiniBatch(g.get(), seeds, mo, 3, 0, s * 2 + r);
      REQUIRE(mb.ok());
      batches[r].push_back(std::move(mb).value());
    }

  for (std::string optimizer : {"adam", "sgd"}) {
    INFO(optimizer);
    const int port = test::FreePort();
    std::vector<float> result[2];
    Status status[2];
    auto run = [&](int rank) {
      auto t = Stepper::Create(Spec(rank == 0 ? dir / "m.pt" : dir / "m_other.pt", optimizer), Peers(rank, port, 30));
      if (!t.ok()) {
        status[rank] = t.status();
        return;
      }
      for (int s = 0; s < kSteps; ++s) {
        status[rank] = (*t)->TrainStep({&batches[rank][s]});
        if (!status[rank].ok()) return;
      }
      result[rank] = (*t)->ParameterVector();
    };
    std::thread t0(run, 0), t1(run, 1);
    t0.join();
    t1.join();
    INFO(status[0].ToString() << " / " << status[1].ToString());
    REQUIRE(status[0].ok());
    REQUIRE(status[1].ok());

    auto ref = Stepper::Create(Spec(dir / "m.pt", optimizer), TrainHooks());
    REQUIRE(ref.ok());
    std::vector<float> before = (*ref)->ParameterVector();
    for (int s = 0; s < kSteps; ++s) {
      int64_t n = 0;
      REQUIRE((*ref)->TrainStep({&batches[0][s], &batches[1][s]}, &n).ok());
      CHECK(n == 64);
    }
    std::vector<float> want = (*ref)->ParameterVector();
    REQUIRE(result[0].size() == want.size());
    REQUIRE(result[1].size() == want.size());
    double max_diff = 0, moved = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      max_diff = std::max(max_diff, double(std::fabs(result[0][i] - want[i])));
      max_diff = std::max(max_diff, double(std::fabs(result[1][i] - want[i])));
      moved = std::max(moved, double(std::fabs(before[i] - want[i])));
    }
    CHECK(max_diff <= 1e-5);
    CHECK(moved > 1e-3);  // training did change the parameters
  }
}

TEST_CASE("a missing or silent peer is an error within the timeout, not a hang") {
  test::TempDir dir;
  ModelSpec spec;
  spec.in_dim = 8;
  spec.hidden = 8;
  spec.classes = 4;
  REQUIRE(ExportModel(spec, dir / "m.pt").ok());
  TrainHooks alone = Peers(0, test::FreePort(), 2);
  alone.dp.rendezvous_timeout_seconds = 2;
  auto start = std::chrono::steady_clock::now();
  auto t = Stepper::Create(Spec(dir / "m.pt"), alone);  // rank 1 never comes
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().message().find("rendezvous at 127.0.0.1:") != std::string::npos);
  CHECK(waited < 20);

  // Both join, then rank 1 stops taking part: rank 0's all-reduce fails.
  auto g = test::RandomGraph(100, 8, 4, 8, 5);
  MiniBatchOptions mo;
  mo.fanouts = {5, 5};
  auto mb = SampleMiniBatch(g.get(), {1, 2, 3}, mo, 0, 0, 0);
  REQUIRE(mb.ok());
  const int port = test::FreePort();
  Status st0;
  auto run0 = [&] {
    auto tr = Stepper::Create(Spec(dir / "m.pt"), Peers(0, port, 2));
    if (!tr.ok()) {
      st0 = tr.status();
      return;
    }
    st0 = (*tr)->TrainStep({&*mb});
  };
  std::thread th(run0);
  auto tr1 = Stepper::Create(Spec(dir / "m.pt"), Peers(1, port, 2));
  th.join();
  REQUIRE(tr1.ok());
  REQUIRE_FALSE(st0.ok());
  CHECK(st0.message().find("gradient all-reduce across 2 trainers failed") != std::string::npos);
}

}  // namespace dg
