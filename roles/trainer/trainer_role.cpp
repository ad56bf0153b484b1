// `distgnn --role trainer --config JOB.yaml --machine M --index I`: one
// data-parallel trainer of a distributed job.
//
// Order of start-up (every step has a deadline): listen for this trainer's
// samplers (ports.trainer + M * trainers + I) -> connect to every server ->
// wait for the samplers -> gloo rendezvous with the other trainers at trainer
// 0 (machines[0].host : ports.rendezvous) -> train. Train nodes (split == 0)
// are cut as DGL's node_split(force_even=True), so every trainer runs the same
// number of steps; val/test nodes are cut evenly and accuracies all-reduced.
// With processes.samplers_per_trainer 0 the trainer samples in its own threads
// through the same mini-batch code. Rank 0 writes the run directory
// (metrics.jsonl, model.pt, checkpoint.pt, predictions in original node order);
// every trainer writes trainer-R.json (steps, epoch times, the fraction of
// training time spent waiting for batches, a parameter fingerprint), and
// tells its samplers to exit when it is done.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "roles/trainer/link_role.h"
#include "roles/trainer/trainer_role.h"
#include "roles/job/role_args.h"
#include "common/client/dist_neighbor_source.h"
#include "common/client/feature_cache.h"
#include "common/net/message_bytes.h"
#include "common/base/logging.h"
#include "common/client/dist_node_embedding.h"
#include "common/client/partition_row_l1.h"
#include "common/client/typed_node_rows.h"
#include "roles/trainer/step_checkpoint.h"
#include "common/io/npy.h"
#include "common/storage/partition_seeds.h"
#include "common/net/prometheus.h"
#include "roles/job/job_client.h"
#include "roles/trainer/input_choice.h"
#include "roles/trainer/inference/layerwise_inference.h"
#include "common/client/propagate.h"
#include "roles/trainer/remote_batch_provider.h"
#include "roles/trainer/trainer.h"
#include "roles/trainer/control_variate.h"
#include "config/default_lr.h"
#include "roles/trainer/model/model_embedding.h"
#include "roles/trainer/model/model_lr.h"
#include "roles/trainer/node_embedding_spec.h"
#include "roles/trainer/trainer_util.h"
#include "roles/trainer/typed_job.h"

namespace dg {
namespace {

// Seeds of this trainer and the number of classes (1 + the largest label of a
// labelled node), read through the client.
// A typed partition's are its target type's "<target>/split" and "<target>/labels".
Status LoadSeeds(DistGraphClient* client, const PartitionConfig& pc, int world, int rank,
                 TrainerSeeds* seeds, int64_t* classes) {
  const std::string prefix = pc.typed() ? pc.target + "/" : "";
  for (const char* name : {"split", "labels"})
    if (!pc.node_data.count(prefix + name))
      return Status::InvalidArgument(pc.path + ": the partition has no node array '" + prefix + name +
                                     "' (partition a dataset with split.npy and labels.npy)");
  // Per-part id files and num_classes: nothing O(num_nodes) is read.
  DG_RETURN_IF_ERROR(RequirePartSeeds(pc));
  int64_t total_train = 0;
  for (const PartInfo& p : pc.parts) total_train += p.num_train;
  if (total_train < world)
    return Status::InvalidArgument(pc.path + ": " + std::to_string(total_train) +
                                   " training nodes (split == 0) for " + std::to_string(world) + " trainers");
  auto pull = [&](int64_t begin, int64_t end) {
    std::vector<int64_t> ids(static_cast<size_t>(end - begin));
    for (int64_t i = begin; i < end; ++i) ids[i - begin] = i;
    return pc.typed() ? PullTypedNodeRows(client, "split", ids) : client->Pull("split", ids);
  };
  DG_ASSIGN_OR_RETURN(seeds->train, PartSeedSlice(pc, 0, world, rank, /*even=*/true, pull));
  DG_ASSIGN_OR_RETURN(seeds->val, PartSeedSlice(pc, 1, world, rank, /*even=*/false, pull));
  DG_ASSIGN_OR_RETURN(seeds->test, PartSeedSlice(pc, 2, world, rank, /*even=*/false, pull));
  *classes = pc.num_classes;
  return Status::OK();
}

// Row j of predictions.npy is original node j: predict[j] = its new global id.
Result<std::vector<int64_t>> PredictOrder(const PartitionConfig& pc) {
  const std::string path = pc.base_dir + "/" + pc.orig_nids;
  DG_ASSIGN_OR_RETURN(Array orig, NpyLoad(path));
  if (orig.dtype != DType::kInt64 || orig.rows() != pc.num_nodes)
    return Status::Corruption(path + ": expected int64 [" + std::to_string(pc.num_nodes) + "]");
  std::vector<int64_t> order(static_cast<size_t>(pc.num_nodes), -1);
  for (int64_t g = 0; g < pc.num_nodes; ++g) {
    const int64_t o = orig.as<int64_t>()[g];
    if (o < 0 || o >= pc.num_nodes || order[o] != -1)
      return Status::Corruption(path + ": not a permutation of 0.." + std::to_string(pc.num_nodes - 1));
    order[o] = g;
  }
  return order;
}

Status WriteTrainerSummary(const std::string& path, int rank, const Trainer& trainer) {
  int64_t steps = 0;
  double seconds = 0, wait = 0;
  std::string per_epoch, epoch_seconds;
  StepSplit split;
  for (const auto& e : trainer.history()) {
    split.Add(e.split);
    steps += e.steps;
    seconds += e.seconds;
    wait += e.wait_seconds;
    per_epoch += (per_epoch.empty() ? "" : ", ") + std::to_string(e.steps);
    epoch_seconds += (epoch_seconds.empty() ? "" : ", ") + std::to_string(e.seconds);
  }
  // FNV-1a over the parameter bytes: equal fingerprints = identical parameters.
  std::vector<float> params = trainer.ParameterVector();
  uint64_t h = 1469598103934665603ull;
  double sum = 0;
  const auto* bytes = reinterpret_cast<const uint8_t*>(params.data());
  for (size_t i = 0; i < params.size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  for (float p : params) sum += p;
  std::ofstream f(path + ".tmp");
  f << "{\"rank\": " << rank << ", \"steps\": " << steps << ", \"steps_per_epoch\": [" << per_epoch
    << "], \"epoch_seconds\": [" << epoch_seconds << "], \"wait_fraction\": " << (seconds > 0 ? wait / seconds : 0)
    << ", \"step_ms\": " << split.PerStepJson(steps) << ", \"num_params\": " << params.size() << ", \"param_sum\": " << sum << ", \"param_fingerprint\": \""
    << std::hex << h << std::dec << "\"}\n";
  f.close();
  if (!f) return Status::IOError("write " + path + " failed");
  std::filesystem::rename(path + ".tmp", path);
  return Status::OK();
}

// What the phases of a trainer process share; members in the order they are
// made, so they are destroyed in reverse (providers before the client).
struct TrainerProcess {
  TrainerProcessOptions options;
  JobConfig job;
  PartitionConfig partition;
  int machine = 0, per_machine = 1, samplers = 0, rank = 0, world = 1;
  std::string host;
  std::unique_ptr<RemoteBatchProvider> remote;  // sampler processes; null = sample in-process
  std::unique_ptr<DistGraphClient> client;
  TrainerSeeds seeds;
  int64_t classes = 0;
  std::unique_ptr<DistNodeEmbedding> embedding;
  std::shared_ptr<const FeatureCache> feature_cache;
  int sampler_threads = 0, torch_threads = 1;
  std::unique_ptr<DistNeighborSource> source;
  std::unique_ptr<BatchProvider> local;
  BatchProvider* provider = nullptr;
  TrainProgress progress;
  std::unique_ptr<MetricsHttpServer> metrics;

  const TrainSpec& spec() const { return job.train; }
  bool link() const { return spec().task == TrainTask::kLink; }
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
  DG_RETURN_IF_ERROR(RunLayerwiseInference(p->client.get(), inf, &res));
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
  p->samplers = p->job.samplers_per_trainer;
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
  DG_ASSIGN_OR_RETURN(p->client, ConnectJobClient(p->job, p->partition, kRoleTrainer, p->rank, p->machine));
  return RunPropagation(p->client.get(), prop);
}

// --mode infer: layer-wise inference of train.model.
Status RunInferMode(TrainerProcess* p) {
  DG_ASSIGN_OR_RETURN(p->client, ConnectJobClient(p->job, p->partition, kRoleTrainer, p->rank, p->machine));
  InferenceOptions inf = InferenceFor(*p);
  inf.threads = p->options.threads > 0 ? p->options.threads : std::max(1, p->spec().intra_op_threads);
  return RunInference(p, inf, "; outputs in " + p->job.RunDir());
}

// Phase 1: listen for this trainer's samplers (so they can dial while we
// connect), connect to the servers, read the seeds, set up the embedding and
// the cache of remote feature rows (train.feature_cache_mb; sampler processes
// fetch their own rows and do not use it).
Status Connect(TrainerProcess* p) {
  const JobConfig& job = p->job;
  const int index = p->options.role.index, K = p->samplers;
  if (K > 0) {
    RemoteProviderOptions ro;
    ro.host = p->host;
    ro.port = job.TrainerPort(p->machine, index);
    ro.trainer_rank = p->rank;
    ro.graph_name = p->partition.graph_name;
    ro.token = job.token;
    ro.first_sampler_rank = p->machine * p->per_machine * K + index * K;
    ro.num_samplers = K;
    ro.credits = static_cast<uint32_t>(std::max(1, p->spec().credits));
    ro.connection = JobConnectionOptions(job);
    ro.connect_wait_seconds = job.connect_wait_seconds;
    DG_ASSIGN_OR_RETURN(p->remote, RemoteBatchProvider::Listen(ro));
  }
  DG_ASSIGN_OR_RETURN(p->client, ConnectJobClient(job, p->partition, kRoleTrainer, p->rank, p->machine));
  DG_RETURN_IF_ERROR(TakeDefaultLr(&p->job.train, [p] {
    return PartitionRowL1(p->client.get(), p->partition, kRowL1SampleRows);
  }));
  if (!p->link()) DG_RETURN_IF_ERROR(LoadSeeds(p->client.get(), p->partition, p->world, p->rank, &p->seeds, &p->classes));
  if (p->rank == 0 && (p->spec().save_predictions || p->spec().save_embeddings)) {
    DG_ASSIGN_OR_RETURN(p->seeds.predict, PredictOrder(p->partition));
  }
  const EmbeddingSpec& ec = p->spec().embedding;
  if (ec.dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo, NodeEmbeddingOptionsFrom(ec, p->spec().seed));
    DG_ASSIGN_OR_RETURN(p->embedding, DistNodeEmbedding::Init(p->client.get(), eo, p->rank, p->world));
  }
  if (p->spec().feature_cache_mb > 0 && !p->remote && ec.uses_features()) {
    const auto t0 = std::chrono::steady_clock::now();
    DG_ASSIGN_OR_RETURN(p->feature_cache,
                        BuildFeatureCache(p->client.get(), "features", p->spec().feature_cache_mb << 20));
    p->client->set_feature_cache(p->feature_cache);
    if (p->feature_cache)
      spdlog::info("feature cache: {} remote rows by in-degree, {:.1f} MB, filled in {:.2f} s",
                   p->feature_cache->size(), p->feature_cache->bytes() / 1048576.0,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return Status::OK();
}

// Phase 2: where batches come from -- the samplers, in-process batch makers
// pulling block input (PULL_BLOCK: aggregated block 0, wire dtype), or
// in-process batch makers pulling rows. Threads: this trainer's share of the
// machine's cores; sampling in-process takes half of it and torch the rest.
Status ChooseBatchSource(TrainerProcess* p) {
  const int share = std::max(1, p->job.CoresPerMachine(p->machine) / p->per_machine);
  p->sampler_threads = p->options.sampler_threads;
  if (!p->remote && p->sampler_threads <= 0) p->sampler_threads = std::max(1, share / 2);
  p->torch_threads = p->remote ? share : std::max(1, share - p->sampler_threads);
  p->source = std::make_unique<DistNeighborSource>(p->client.get());
  DG_ASSIGN_OR_RETURN(bool has_agg, ModelHasForwardAgg(p->spec().model));
  DG_ASSIGN_OR_RETURN(BlockInputChoice block_input, ChooseBlockInput(p->job, p->partition, has_agg));
  if (p->rank == 0)
    spdlog::info("input rows: {} ({}), {} on the wire", block_input.options.aggregate ? "aggregated" : "pulled",
                 block_input.reason, WireDTypeName(p->spec().feature_wire_dtype));
  if (p->remote) {  // the samplers make the batches as the choice says (the EPOCH carries it)
    p->remote->SetInput(BatchInput{block_input.options.aggregate, block_input.options.wire});
    DG_RETURN_IF_ERROR(p->remote->WaitForSamplers());
    p->provider = p->remote.get();
    return Status::OK();
  }
  if (block_input.use) {
    // Two batch makers at least: one's PULL_BLOCKs wait on the network while the other sums.
    p->local = std::make_unique<BlockInputProvider>(p->client.get(), p->source.get(), block_input.options,
                                                    std::max(2, p->sampler_threads), 4);
  } else {
    p->local = std::make_unique<LocalBatchProvider>(p->source.get(), std::max(1, p->sampler_threads), 4,
                                                    p->spec().embedding.uses_features() ? "features" : "");
  }
  p->provider = p->local.get();
  return Status::OK();
}

// What the loop runs with: the job's spec as this process runs it (its torch
// threads, --resume, the classes of the data) and this process's hooks.
struct TrainRun {
  TrainSpec spec;
  TrainHooks hooks;
};

// Phase 3: the metrics endpoint and the loop's spec and hooks.
Result<TrainRun> BuildRun(TrainerProcess* p) {
  const auto metrics_start = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(p->metrics, StartRoleMetrics(p->options.role, &p->job, MetricsRole::kTrainer, p->host,
                                                   [progress = &p->progress, rank = p->rank, metrics_start,
                                                    cache = p->feature_cache] {
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
  spec.intra_op_threads = p->options.threads > 0 ? p->options.threads
                          : spec.intra_op_threads > 0 ? spec.intra_op_threads
                                                      : p->torch_threads;
  spec.resume = p->options.resume;
  spec.num_classes = p->classes;
  hooks.progress = &p->progress;
  hooks.out_dir = p->job.RunDir();
  hooks.server_checkpoint = [c = p->client.get()](bool load, int64_t step, int keep) {
    return ServerCheckpoint(c, load, step, keep);
  };
  hooks.dp.world_size = p->world;
  hooks.dp.rank = p->rank;
  hooks.dp.master_host = p->job.RendezvousHost();
  hooks.dp.master_port = p->job.rendezvous_port;
  hooks.dp.host = p->host;
  hooks.dp.timeout_seconds = p->job.peer_timeout_seconds;
  hooks.dp.rendezvous_timeout_seconds = p->job.rendezvous_timeout_seconds;
  if (p->job.tls.enabled) hooks.dp.ring = JobTrainerRing(p->job, p->rank);
  hooks.embedding = p->embedding.get();
  if (!p->remote) hooks.network_bytes = [c = p->client.get()] { return c->network_bytes(); };  // samplers have their own
  hooks.epoch_fields = [cache = p->feature_cache, cache_before = FeatureCacheStats(),
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

Status RunLinkTask(TrainerProcess* p, const TrainRun& run) {
  LinkRoleContext lc;
  lc.partition = &p->partition;
  lc.source = p->source.get();
  lc.nodes = p->provider;
  lc.edges = p->remote ? p->remote.get() : nullptr;
  lc.sampler_threads = std::max(1, p->sampler_threads);
  lc.world = p->world;
  lc.rank = p->rank;
  lc.predict = &p->seeds.predict;
  return RunLinkTrainerRole(lc, run.spec, run.hooks);
}

// After node classification by sampling: layer-wise inference with the best
// model, and this trainer's summary.
Status NodeOutputs(TrainerProcess* p, const TrainRun& run, const Trainer& trainer) {
  if (p->spec().layerwise_inference) {
    // Rank 0 has written the best-validation model.pt once everyone is here.
    DG_RETURN_IF_ERROR(p->client->Barrier(p->job.job + ":trained", static_cast<uint32_t>(p->world)));
    InferenceOptions inf = InferenceFor(*p);
    inf.model_path = p->job.RunDir() + "/model.pt";
    inf.threads = run.spec.intra_op_threads;
    DG_RETURN_IF_ERROR(RunInference(p, inf, ""));
  }
  return WriteTrainerSummary(p->job.RunDir() + "/trainer-" + std::to_string(p->rank) + ".json", p->rank, trainer);
}

// Phase 4: the task; the samplers are told to exit as soon as it ends.
Status RunTask(TrainerProcess* p, const TrainRun& run) {
  spdlog::info("trainer {} of {} on {}: {} train / {} val / {} test seeds, {} classes, {} {}, {} torch threads",
               p->rank, p->world, p->host, p->seeds.train.size(), p->seeds.val.size(), p->seeds.test.size(),
               p->classes, p->samplers > 0 ? p->samplers : p->sampler_threads,
               p->samplers > 0 ? "sampler process(es)" : "sampling thread(s)", run.spec.intra_op_threads);
  std::unique_ptr<Trainer> trainer;
  Status st;
  if (p->link()) {
    st = RunLinkTask(p, run);
  } else if (p->spec().algorithm == TrainAlgorithm::kControlVariate) {  // history on the servers
    st = RunControlVariateDistributed(p->client.get(), p->source.get(), run.spec, run.hooks, p->seeds);
  } else {
    auto created = Trainer::Create(run.spec, run.hooks);
    st = created.ok() ? (trainer = std::move(*created))->Fit(p->provider, p->seeds) : created.status();
  }
  if (p->remote) p->remote->Shutdown(st);
  DG_RETURN_IF_ERROR(st);
  // The last SPARSE_UPDATE returned only once every trainer's step was applied.
  if (p->embedding && p->spec().embedding.persistent && p->rank == 0) DG_RETURN_IF_ERROR(p->embedding->Save());
  return trainer ? NodeOutputs(p, run, *trainer) : Status::OK();
}

void LogTrainerEnd(const TrainerProcess& p) {
  if (p.feature_cache) {
    const FeatureCacheStats cs = p.feature_cache->stats();
    spdlog::info("feature cache: {} hits, {} misses (hit rate {:.3f}), {:.1f} MB not sent", cs.hits, cs.misses,
                 cs.hit_rate(), cs.bytes_saved / 1048576.0);
  }
  if (!p.link()) spdlog::info("{}", MessageBytesLogLine(MessageBytesSnapshot()));  // distgnn report reads it
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
  DG_RETURN_IF_ERROR(ChooseBatchSource(&p));
  DG_ASSIGN_OR_RETURN(TrainRun run, BuildRun(&p));
  DG_RETURN_IF_ERROR(RunTask(&p, run));
  LogTrainerEnd(p);
  return Status::OK();
}

}  // namespace dg
