// `distgnn --role trainer --config JOB.yaml --machine M --index I`: one
// data-parallel trainer of a distributed job.
//
// Order of start-up (every step has a deadline): open the job's graph source
// (listen for this trainer's samplers, connect to every server:
// source/job_source.h) -> the learnt-row table -> the input path and the
// samplers -> gloo rendezvous with the other trainers at trainer 0
// (machines[0].host : ports.rendezvous) -> the spec's task in the epoch loop
// (run/make_task.h). With processes.samplers_per_trainer 0 the trainer
// samples in its own threads through the same mini-batch code. Rank 0 writes
// the run directory (metrics.jsonl, model.pt, checkpoint.pt, predictions in
// original node order); every trainer writes trainer-R.json (steps, epoch
// times, the fraction of training time spent waiting for batches, a parameter
// fingerprint), and tells its samplers to exit when it is done.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "roles/trainer/role/trainer_role.h"
#include "roles/job/role_args.h"
#include "common/client/feature_cache.h"
#include "common/net/message_bytes.h"
#include "common/base/logging.h"
#include "common/client/dist_node_embedding.h"
#include "common/client/partition_row_l1.h"
#include "config/default_lr.h"
#include "common/net/prometheus.h"
#include "roles/job/job_client.h"
#include "roles/trainer/inference/layerwise_inference.h"
#include "common/client/propagate.h"
#include "roles/trainer/model/model_embedding.h"
#include "roles/trainer/model/model_facts.h"
#include "roles/trainer/model/model_lr.h"
#include "roles/trainer/source/job_source.h"
#include "roles/trainer/loop/step_checkpoint.h"
#include "roles/trainer/run/make_task.h"
#include "roles/trainer/loop/train_progress.h"
#include "roles/trainer/model/node_embedding_spec.h"
#include "roles/trainer/trainer_util.h"
#include "roles/trainer/role/typed_job.h"

namespace dg {
namespace {

// What the phases of a trainer process share; members in the order they are
// made, so they are destroyed in reverse (the learnt rows before the source's client).
struct TrainerProcess {
  TrainerProcessOptions options;
  JobConfig job;
  PartitionConfig partition;
  int machine = 0, per_machine = 1, rank = 0, world = 1;
  std::string host;
  std::unique_ptr<DistGraphClient> own_client;  // --mode infer / propagate
  std::unique_ptr<JobGraphSource> source;       // --mode train
  DistGraphClient* client = nullptr;            // the one of either
  std::unique_ptr<DistNodeEmbedding> embedding;
  TrainProgress progress;
  std::unique_ptr<MetricsHttpServer> metrics;

  const TrainSpec& spec() const { return job.train; }
};

InferenceOptions InferenceFor(const TrainerProcess& p) {
  InferenceOptions inf;
  inf.model_path = p.spec().model;
  inf.out_dir = p.job.RunDir();
  inf.rank = p.rank;
  inf.world = p.world;
  inf.machine = p.machine;
  inf.index = p.options.role.index;
  inf.trainers_per_machine = p.per_machine;
  inf.batch_size = std::max<int64_t>(1024, p.spec().batch_size);
  const EmbeddingSpec& ec = p.spec().embedding;
  inf.input_names.clear();
  if (ec.uses_features()) inf.input_names.push_back("features");
  if (ec.dim > 0) inf.input_names.push_back(ec.name);
  return inf;
}

Status RunInference(TrainerProcess* p, InferenceOptions inf, const std::string& done_note) {
  InferenceResult res;
  DG_RETURN_IF_ERROR(RunLayerwiseInference(p->client, inf, &res));
  if (p->rank == 0)
    spdlog::info("layer-wise inference: val_acc {:.4f} test_acc {:.4f} ({:.2f} s){}", res.val_acc, res.test_acc,
                 res.seconds, done_note);
  return Status::OK();
}

// Phase 0: the job, the partition, and what a typed partition or model allows.
Status LoadJob(TrainerProcess* p) {
  const RoleArgs& args = p->options.role;
  DG_ASSIGN_OR_RETURN(p->job, LoadRoleJob(args, "trainer"));
  p->machine = args.machine;
  p->per_machine = p->job.trainers_per_machine;
  p->rank = p->job.TrainerRank(p->machine, args.index);
  p->world = p->job.num_trainers();
  p->host = p->job.machines[p->machine].host;
  SetupLogging("trainer", p->rank, args.log_level);
  HoldLaunchLease(args, p->job, "trainer");
  DG_ASSIGN_OR_RETURN(p->partition, LoadAnyPartitionConfig(p->job.partition));
  const TrainMode mode = p->options.mode;
  if (p->partition.typed()) {
    DG_RETURN_IF_ERROR(CheckTypedTrainerJob(p->job, p->partition, mode));
    return TakeTypedModelEmbedding(p->job.train.model, p->job.path + ": train.embedding.dim", &p->job.train.embedding);
  }
  if (mode != TrainMode::kTrain) return Status::OK();
  DG_ASSIGN_OR_RETURN(bool typed_model, ModelIsTyped(p->spec().model));
  if (typed_model)
    return Status::InvalidArgument(p->job.path + ": train.model " + p->spec().model +
                                   " is typed (rgcn, hetero-sage) but " + p->partition.path +
                                   " has no node or edge types; export sage, gcn, gat or mlp");
  return Status::OK();
}

// --mode propagate: one worker of a propagation job.
Status RunPropagateMode(TrainerProcess* p) {
  PropagateOptions& prop = p->options.propagate;
  prop.machine = p->machine;
  prop.index = p->options.role.index;
  prop.workers_per_machine = p->per_machine;
  prop.total_workers = p->world;
  DG_RETURN_IF_ERROR(CheckPropagateOptions(prop, p->partition));
  DG_ASSIGN_OR_RETURN(p->own_client, ConnectJobClient(p->job, p->partition, kRoleTrainer, p->rank, p->machine));
  p->client = p->own_client.get();
  return RunPropagation(p->client, prop);
}

// --mode infer: layer-wise inference of train.model.
Status RunInferMode(TrainerProcess* p) {
  DG_ASSIGN_OR_RETURN(p->own_client, ConnectJobClient(p->job, p->partition, kRoleTrainer, p->rank, p->machine));
  p->client = p->own_client.get();
  InferenceOptions inf = InferenceFor(*p);
  inf.threads = p->options.threads > 0 ? p->options.threads : std::max(1, p->spec().intra_op_threads);
  return RunInference(p, inf, "; outputs in " + p->job.RunDir());
}

// Phase 1: the job's graph source (samplers listened for, servers connected),
// the learnt-row table, then the input path (which waits for the samplers).
Status Connect(TrainerProcess* p) {
  JobSourceOptions so;
  so.job = &p->job;
  so.partition = &p->partition;
  so.machine = p->machine;
  so.index = p->options.role.index;
  so.sampler_threads = p->options.sampler_threads;
  DG_ASSIGN_OR_RETURN(p->source, JobGraphSource::Open(so));
  p->client = p->source->client();
  const EmbeddingSpec& ec = p->spec().embedding;
  if (ec.dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo, NodeEmbeddingOptionsFrom(ec, p->spec().seed));
    DG_ASSIGN_OR_RETURN(p->embedding, DistNodeEmbedding::Init(p->client, eo, p->rank, p->world));
  }
  return p->source->ChooseInput();
}

// What the loop runs with: the job's spec as this process runs it (its torch
// threads, --resume, the classes of the data) and this process's hooks.
struct TrainRun {
  TrainSpec spec;
  TrainHooks hooks;
};

// Phase 2: the metrics endpoint and the loop's spec and hooks.
Result<TrainRun> BuildRun(TrainerProcess* p) {
  const auto metrics_start = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(p->metrics, StartRoleMetrics(p->options.role, &p->job, MetricsRole::kTrainer, p->host,
                                                   [progress = &p->progress, rank = p->rank, metrics_start,
                                                    cache = p->source->feature_cache()] {
                                                     PromText out;
                                                     WriteTrainProgressMetrics(*progress, rank, &out);
                                                     WriteMessageBytesMetrics(&out);
                                                     if (cache) WriteFeatureCacheMetrics(*cache, rank, &out);
                                                     AddProcessMetrics(&out, Since(metrics_start));
                                                     return out.str();
                                                   },
                                                   [progress = &p->progress]() -> std::string {
                                                     if (progress->joined) return "";
                                                     return "loading the model and joining the other trainers";
                                                   }));
  TrainRun run{p->spec(), TrainHooks()};
  TrainSpec& spec = run.spec;
  TrainHooks& hooks = run.hooks;
  DG_RETURN_IF_ERROR(TakeDefaultLr(&spec, [p] { return PartitionRowL1(p->client, p->partition, kRowL1SampleRows); }));
  spec.intra_op_threads = p->options.threads > 0 ? p->options.threads
                          : spec.intra_op_threads > 0 ? spec.intra_op_threads
                                                      : p->source->torch_threads();
  spec.resume = p->options.resume;
  hooks.progress = &p->progress;
  hooks.out_dir = p->job.RunDir();
  hooks.server_checkpoint = [c = p->client](bool load, int64_t step, int keep) {
    return ServerCheckpoint(c, load, step, keep);
  };
  hooks.server_best = [c = p->client](bool restore, int64_t step) { return ServerBest(c, restore, step); };
  hooks.dp.world_size = p->world;
  hooks.dp.rank = p->rank;
  hooks.dp.master_host = p->job.RendezvousHost();
  hooks.dp.master_port = p->job.rendezvous_port;
  hooks.dp.host = p->host;
  hooks.dp.timeout_seconds = p->job.peer_timeout_seconds;
  hooks.dp.rendezvous_timeout_seconds = p->job.rendezvous_timeout_seconds;
  if (p->job.tls.enabled) hooks.dp.ring = JobTrainerRing(p->job, p->rank);
  hooks.embedding = p->embedding.get();
  hooks.network_bytes = p->source->NetworkBytes();
  hooks.epoch_fields = [cache = p->source->feature_cache(), cache_before = FeatureCacheStats(),
                    bytes_before = MessageBytesSnapshot()]() mutable {
    std::string out;
    if (cache) {
      const FeatureCacheStats now = cache->stats();
      out = FeatureCacheJson(now, cache_before) + ", ";
      cache_before = now;
    }
    std::vector<MessageByteCount> now = MessageBytesSnapshot();
    out += "\"message_bytes\": " + MessageBytesJson(MessageBytesSince(now, bytes_before));
    bytes_before = std::move(now);
    return out;
  };
  return run;
}

// After node classification by sampling, with train.layerwise_inference:
// layer-wise inference with the best model.
Status LayerwiseInference(TrainerProcess* p, const TrainRun& run) {
  // Rank 0 has written the best-validation model.pt once everyone is here.
  DG_RETURN_IF_ERROR(p->client->Barrier(p->job.job + ":trained", static_cast<uint32_t>(p->world)));
  InferenceOptions inf = InferenceFor(*p);
  inf.model_path = p->job.RunDir() + "/model.pt";
  inf.threads = run.spec.intra_op_threads;
  return RunInference(p, inf, "");
}

// Phase 3: the task; the samplers are told to exit as soon as it ends.
Status RunTask(TrainerProcess* p, const TrainRun& run) {
  const Status st = Train(run.spec, run.hooks, p->source.get());
  p->source->Shutdown(st);
  DG_RETURN_IF_ERROR(st);
  // The last SPARSE_UPDATE returned only once every trainer's step was applied.
  if (p->embedding && p->spec().embedding.persistent && p->rank == 0) DG_RETURN_IF_ERROR(p->embedding->Save());
  const TrainSpec& spec = p->spec();
  if (spec.task == TrainTask::kNode && spec.algorithm == TrainAlgorithm::kSample && spec.layerwise_inference)
    return LayerwiseInference(p, run);
  return Status::OK();
}

void LogTrainerEnd(const TrainerProcess& p) {
  if (const auto cache = p.source->feature_cache()) {
    const FeatureCacheStats cs = cache->stats();
    spdlog::info("feature cache: {} hits, {} misses (hit rate {:.3f}), {:.1f} MB not sent", cs.hits, cs.misses,
                 cs.hit_rate(), cs.bytes_saved / 1048576.0);
  }
  if (p.spec().task != TrainTask::kLink) spdlog::info("{}", MessageBytesLogLine(MessageBytesSnapshot()));  // distgnn report reads it
  spdlog::info("trainer {} done; outputs in {}; peak RSS {:.1f} MB", p.rank, p.job.RunDir(),
               PeakRssBytes() / 1048576.0);
}

}  // namespace

Status RunTrainerProcess(TrainerProcessOptions options) {
  TrainerProcess p;
  p.options = std::move(options);
  DG_RETURN_IF_ERROR(LoadJob(&p));
  if (p.options.mode == TrainMode::kPropagate) return RunPropagateMode(&p);
  if (p.options.mode == TrainMode::kInfer) return RunInferMode(&p);
  DG_RETURN_IF_ERROR(Connect(&p));
  DG_ASSIGN_OR_RETURN(TrainRun run, BuildRun(&p));
  DG_RETURN_IF_ERROR(RunTask(&p, run));
  LogTrainerEnd(p);
  return Status::OK();
}

}  // namespace dg
