// `distgnn bench train --local-only`: steps/s of the in-process trainer
// (train-local) on a synthetic graph, and where a step's time goes.
//
//  1. pipelined: one epoch share of `--steps` batches through the real
//     pipeline (LocalBatchProvider workers sample and gather ahead of the
//     trainer) -> steps/s and the fraction of time the trainer waited.
//  2. sequential: the same number of batches, each phase timed on its own in
//     one thread: sampling (blocks), feature gathering, compute (forward,
//     backward, optimizer step). Their sum is the baseline the pipelined step
//     time is compared with (speedup = sequential / pipelined).
//
// The graph is `distgnn generate`'s (cached under $TMPDIR, keyed by its
// parameters) unless --dataset names one. The distributed comparison (launch
// of servers, samplers and trainers) is scripts/bench_train.sh. Prints a table
// and, last, one JSON line.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/sampling/batch_provider.h"
#include "common/storage/dataset.h"
#include "common/sampling/in_memory_graph.h"
#include "common/base/logging.h"
#include "roles/generate/synthetic_graph.h"
#include "bench/bench_train.h"
#include "roles/trainer/model/model_export.h"
#include "roles/trainer/loop/epoch_loop.h"
#include "roles/trainer/tasks/node_task.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

using Clock = std::chrono::steady_clock;

Result<std::string> DatasetDir(const BenchTrainOptions& o) {
  if (!o.dataset.empty()) return o.dataset;
  const char* tmp = std::getenv("TMPDIR");
  const auto& s = o.synthetic;
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/distgnn-bench-train/n" + std::to_string(s.num_nodes) + "-e" +
                    std::to_string(s.num_edges) + "-f" + std::to_string(s.feat_dim) + "-c" +
                    std::to_string(s.num_classes) + "-s" + std::to_string(s.seed);
  if (!std::filesystem::exists(dir + "/labels.npy")) {
    spdlog::info("generating {} nodes / {} edges into {}", s.num_nodes, s.num_edges, dir);
    DG_RETURN_IF_ERROR(WriteSyntheticDataset(s, dir, /*force=*/true));
  }
  return dir;
}

}  // namespace

Status BenchTrain(const BenchTrainOptions& o) {
  SetupLogging("bench-train", 0);
  if (o.batch_size <= 0 || o.steps <= 0) return Status::InvalidArgument("--batch-size and --steps must be > 0");
  DG_ASSIGN_OR_RETURN(std::string dir, DatasetDir(o));
  DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(dir, EdgeListOptions()));
  DG_ASSIGN_OR_RETURN(auto graph, InMemoryGraph::FromDataset(ds));
  ds = Dataset();
  DG_ASSIGN_OR_RETURN(Array features, graph->NodeData("features"));
  DG_ASSIGN_OR_RETURN(Array labels, graph->NodeData("labels"));
  int64_t classes = 0;
  for (int64_t i = 0; i < labels.rows(); ++i) classes = std::max(classes, labels.as<int64_t>()[i] + 1);

  ModelSpec spec;
  spec.in_dim = features.shape.at(1);
  spec.hidden = o.hidden;
  spec.classes = classes;
  spec.layers = static_cast<int>(o.fanouts.size());
  const std::string model = std::filesystem::temp_directory_path() /
                            ("distgnn-bench-sage-" + std::to_string(getpid()) + ".pt");
  DG_RETURN_IF_ERROR(ExportModel(spec, model));
  TrainSpec ts;
  ts.model = model;
  ts.batch_size = o.batch_size;
  ts.fanouts = o.fanouts;
  ts.num_classes = classes;
  ts.quiet = true;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ts.intra_op_threads = o.threads > 0 ? o.threads : std::max(1, cores - o.sampler_threads);
  const TrainHooks hooks;
  // The node task on the seeds below, stepped by the epoch loop (its epochs and single steps).
  NodeInput input;
  input.num_classes = classes;
  LocalBatchProvider provider(graph.get(), o.sampler_threads, 4);
  input.batches = &provider;

  // The first steps * batch_size nodes of a fixed shuffle are the seeds.
  std::vector<int64_t> all(graph->num_nodes());
  for (int64_t i = 0; i < graph->num_nodes(); ++i) all[i] = i;
  std::vector<int64_t> order = EpochOrder(all, true, 7, 0);
  const int64_t n = std::min<int64_t>(graph->num_nodes(), o.steps * o.batch_size);
  input.train.assign(order.begin(), order.begin() + n);
  std::sort(input.train.begin(), input.train.end());
  const std::vector<int64_t> seeds = input.train;
  const int64_t steps = NumBatches(n, o.batch_size);
  auto task = NodeTask::Create(ts, hooks, std::move(input));
  std::filesystem::remove(model);
  if (!task.ok()) return task.status();
  EpochLoop loop(ts, hooks, task->get());

  // 1. Pipelined (what train-local does).
  DG_ASSIGN_OR_RETURN(EpochStats warm, loop.TrainEpoch(1));  // warm-up
  (void)warm;
  DG_ASSIGN_OR_RETURN(EpochStats pipe, loop.TrainEpoch(2));

  // 2. Sequential, each phase timed.
  MiniBatchOptions sample_only;
  sample_only.fanouts = o.fanouts;
  sample_only.feature_name = "";
  sample_only.label_name = "";
  std::vector<int64_t> epoch_order = EpochOrder(seeds, true, 0, 3);
  double sample_s = 0, gather_s = 0, compute_s = 0;
  StepSplit split;  // forward / backward / optimizer of the sequential steps
  int64_t input_nodes = 0;
  for (int64_t b = 0; b < steps; ++b) {
    auto t0 = Clock::now();
    DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(graph.get(), BatchSeeds(epoch_order, o.batch_size, b),
                                                      sample_only, 0, 3, b));
    sample_s += Since(t0);
    input_nodes += static_cast<int64_t>(mb.input_nodes.size());
    t0 = Clock::now();
    DG_ASSIGN_OR_RETURN(mb.features, graph->Gather("features", mb.input_nodes));
    DG_ASSIGN_OR_RETURN(mb.labels, graph->Gather("labels", mb.seeds));
    gather_s += Since(t0);
    t0 = Clock::now();
    StepOutcome out;
    DG_RETURN_IF_ERROR(loop.Step(1, [&](size_t) { return (*task)->LossOf(mb); }, &out));
    split.Add(out.split);
    compute_s += Since(t0);
  }
  const double seq_step = (sample_s + gather_s + compute_s) / steps;
  const double pipe_step = pipe.seconds / pipe.steps;

  std::printf("graph %s: %lld nodes, %lld edges, %lld-dim features, %lld classes\n", dir.c_str(),
              (long long)graph->num_nodes(), (long long)graph->num_edges(), (long long)spec.in_dim,
              (long long)classes);
  std::printf("SAGE hidden %lld, fanouts", (long long)o.hidden);
  for (int f : o.fanouts) std::printf(" %d", f);
  std::printf(", batch %lld, %lld steps, %d torch threads, %d sampler threads\n", (long long)o.batch_size,
              (long long)steps, ts.intra_op_threads, o.sampler_threads);
  std::printf("%.0f input nodes per step (%.1f MB of features)\n", double(input_nodes) / steps,
              double(input_nodes) / steps * spec.in_dim * 4 / 1e6);
  std::printf("%-34s %10s %10s\n", "", "ms/step", "share");
  std::printf("%-34s %10.1f %10.2f\n", "sequential: sampling", 1e3 * sample_s / steps, sample_s / steps / seq_step);
  std::printf("%-34s %10.1f %10.2f\n", "sequential: feature gathering", 1e3 * gather_s / steps,
              gather_s / steps / seq_step);
  std::printf("%-34s %10.1f %10.2f\n", "sequential: compute", 1e3 * compute_s / steps, compute_s / steps / seq_step);
  for (auto [name, v] : {std::pair<const char*, double>{"  of which forward (+ loss)", split.forward},
                         {"  of which backward", split.backward},
                         {"  of which optimizer", split.optimizer}})
    std::printf("%-34s %10.1f %10.2f\n", name, 1e3 * v / steps, v / steps / seq_step);
  std::printf("%-34s %10.1f %10s\n", "sequential: total", 1e3 * seq_step, "1.00");
  std::printf("%-34s %10.1f %10.2f  (waiting for batches: %.2f)\n", "pipelined (train-local)", 1e3 * pipe_step,
              pipe_step / seq_step, pipe.wait_seconds / pipe.seconds);
  std::printf(
      "{\"steps_per_s\": %.3f, \"step_ms\": %.2f, \"sequential_step_ms\": %.2f, \"speedup_over_sequential\": %.3f, "
      "\"wait_fraction\": %.4f, \"sample_fraction\": %.4f, \"gather_fraction\": %.4f, \"compute_fraction\": %.4f, "
      "\"sample_ms\": %.2f, \"gather_ms\": %.2f, \"compute_ms\": %.2f, \"nodes\": %lld, \"edges\": %lld, "
      "\"steps\": %lld, \"input_nodes_per_step\": %.0f, \"forward_ms\": %.2f, \"backward_ms\": %.2f, "
      "\"optimizer_ms\": %.2f, \"pipelined_step_ms\": %s}\n",
      1.0 / pipe_step, 1e3 * pipe_step, 1e3 * seq_step, seq_step / pipe_step, pipe.wait_seconds / pipe.seconds,
      sample_s / steps / seq_step, gather_s / steps / seq_step, compute_s / steps / seq_step, 1e3 * sample_s / steps,
      1e3 * gather_s / steps, 1e3 * compute_s / steps, (long long)graph->num_nodes(), (long long)graph->num_edges(),
      (long long)steps, double(input_nodes) / steps, 1e3 * split.forward / steps, 1e3 * split.backward / steps,
      1e3 * split.optimizer / steps, pipe.split.PerStepJson(pipe.steps).c_str());
  return Status::OK();
}

}  // namespace dg
