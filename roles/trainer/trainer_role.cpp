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
#include "common/client/typed_node_rows.h"
#include "roles/trainer/step_checkpoint.h"
#include "common/io/npy.h"
#include "common/storage/partition_seeds.h"
#include "common/net/prometheus.h"
#include "roles/job/job_client.h"
#include "roles/trainer/input_choice.h"
#include "roles/trainer/layerwise_inference.h"
#include "roles/trainer/propagate.h"
#include "roles/trainer/remote_batch_provider.h"
#include "roles/trainer/trainer.h"
#include "roles/trainer/control_variate.h"
#include "roles/trainer/typed_job.h"

namespace dg {
namespace {

Result<NodeEmbeddingOptions> EmbeddingOptions(const EmbeddingConfig& ec, uint64_t seed) {
  DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo, MakeNodeEmbeddingOptions(ec.dim, ec.optimizer, ec.lr, seed));
  eo.name = ec.name;
  eo.init_scale = ec.init_scale;
  eo.persistent = ec.persistent;
  return eo;
}

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

}  // namespace

Status RunTrainerProcess(TrainerProcessOptions options) {
  const RoleArgs& args = options.role;
  const std::string& mode = options.mode;
  PropagateOptions& prop = options.propagate;
  const int threads = options.threads;
  int sampler_threads = options.sampler_threads;
  const bool resume = options.resume;
  DG_ASSIGN_OR_RETURN(JobConfig job, LoadRoleJob(args, "trainer"));
  const int M = args.machine, T = job.trainers_per_machine, K = job.samplers_per_trainer;
  const int rank = job.TrainerRank(M, args.index), world = job.num_trainers();
  SetupLogging("trainer", rank, args.log_level);
  HoldLaunchLease(args, job, "trainer");
  DG_ASSIGN_OR_RETURN(PartitionConfig partition, LoadAnyPartitionConfig(job.partition));
  if (partition.typed()) {
    DG_RETURN_IF_ERROR(CheckTypedTrainerJob(job, partition, mode));
  } else if (mode == "train") {
    DG_ASSIGN_OR_RETURN(bool typed_model, ModelIsTyped(job.train.model));
    if (typed_model)
      return Status::InvalidArgument(job.path + ": train.model " + job.train.model + " is typed (rgcn, hetero-sage) but " +
                                     partition.path + " has no node or edge types; export sage, gcn, gat or mlp");
  }
  const std::string& host = job.machines[M].host;
  if (mode == "propagate") {
    prop.machine = M;
    prop.index = args.index;
    prop.workers_per_machine = T;
    prop.total_workers = world;
    DG_RETURN_IF_ERROR(CheckPropagateOptions(prop, partition));
    DG_ASSIGN_OR_RETURN(auto client, ConnectJobClient(job, partition, kRoleTrainer, rank, M));
    return RunPropagation(client.get(), prop);
  }
  if (mode != "train" && mode != "infer")
    return Status::InvalidArgument("--mode: expected train, infer or propagate, got '" + mode + "'");
  InferenceOptions inf;
  inf.model_path = job.train.model;
  inf.out_dir = job.RunDir();
  inf.rank = rank;
  inf.world = world;
  inf.machine = M;
  inf.index = args.index;
  inf.trainers_per_machine = T;
  inf.batch_size = std::max(1024, job.train.batch_size);
  const EmbeddingConfig& ec = job.train.embedding;
  inf.input_names.clear();
  if (ec.uses_features()) inf.input_names.push_back("features");
  if (ec.dim > 0) inf.input_names.push_back(ec.name);
  if (mode == "infer") {
    DG_ASSIGN_OR_RETURN(auto client, ConnectJobClient(job, partition, kRoleTrainer, rank, M));
    inf.threads = threads > 0 ? threads : std::max(1, job.train.intra_op_threads);
    InferenceResult res;
    DG_RETURN_IF_ERROR(RunLayerwiseInference(client.get(), inf, &res));
    if (rank == 0)
      spdlog::info("layer-wise inference: val_acc {:.4f} test_acc {:.4f} ({:.2f} s); outputs in {}", res.val_acc,
                   res.test_acc, res.seconds, job.RunDir());
    return Status::OK();
  }

  // 1. Listen first, so samplers can dial while we connect to the servers.
  std::unique_ptr<RemoteBatchProvider> remote;
  if (K > 0) {
    RemoteProviderOptions ro;
    ro.host = host;
    ro.port = job.TrainerPort(M, args.index);
    ro.trainer_rank = rank;
    ro.graph_name = partition.graph_name;
    ro.token = job.token;
    ro.first_sampler_rank = M * T * K + args.index * K;
    ro.num_samplers = K;
    ro.credits = static_cast<uint32_t>(std::max(1, job.train.credits));
    ro.connection = JobConnectionOptions(job);
    ro.connect_wait_seconds = job.connect_wait_seconds;
    DG_ASSIGN_OR_RETURN(remote, RemoteBatchProvider::Listen(ro));
  }
  // 2. The servers.
  DG_ASSIGN_OR_RETURN(auto client, ConnectJobClient(job, partition, kRoleTrainer, rank, M));
  TrainerSeeds seeds;
  int64_t classes = 0;
  const bool link_task = job.train.task == "link";  // roles/trainer/link_role.h
  if (!link_task) DG_RETURN_IF_ERROR(LoadSeeds(client.get(), partition, world, rank, &seeds, &classes));
  if (rank == 0 && (job.train.save_predictions || job.train.save_embeddings)) {
    DG_ASSIGN_OR_RETURN(seeds.predict, PredictOrder(partition));
  }
  std::unique_ptr<DistNodeEmbedding> embedding;
  if (ec.dim > 0) {
    DG_ASSIGN_OR_RETURN(NodeEmbeddingOptions eo, EmbeddingOptions(ec, job.train.seed));
    DG_ASSIGN_OR_RETURN(embedding, DistNodeEmbedding::Init(client.get(), eo, rank, world));
  }
  // The cache of remote feature rows (train.feature_cache_mb): serves this
  // process's PULLs and PULL_BLOCKs of "features"; sampler processes fetch
  // their own rows and do not use it.
  std::shared_ptr<const FeatureCache> feature_cache;
  if (job.train.feature_cache_mb > 0 && !remote && ec.uses_features()) {
    const auto t0 = std::chrono::steady_clock::now();
    DG_ASSIGN_OR_RETURN(feature_cache, BuildFeatureCache(client.get(), "features", job.train.feature_cache_mb << 20));
    client->set_feature_cache(feature_cache);
    if (feature_cache)
      spdlog::info("feature cache: {} remote rows by in-degree, {:.1f} MB, filled in {:.2f} s", feature_cache->size(),
                   feature_cache->bytes() / 1048576.0,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  // Threads: this trainer's share of the machine's cores; without sampler
  // processes, in-process sampling takes half of it and torch the rest.
  const int share = std::max(1, job.CoresPerMachine(M) / T);
  if (!remote && sampler_threads <= 0) sampler_threads = std::max(1, share / 2);
  const int torch_threads = remote ? share : std::max(1, share - sampler_threads);
  // 3. The samplers (or in-process sampling threads).
  DistNeighborSource source(client.get());
  std::unique_ptr<BatchProvider> local;
  BatchProvider* provider;
  // Input rows by PULL_BLOCK (aggregated block 0, wire dtype) or by PULL.
  DG_ASSIGN_OR_RETURN(bool has_agg, ModelHasForwardAgg(job.train.model));
  DG_ASSIGN_OR_RETURN(BlockInputChoice block_input, ChooseBlockInput(job, partition, has_agg));
  if (rank == 0)
    spdlog::info("input rows: {} ({}), {} on the wire", block_input.options.aggregate ? "aggregated" : "pulled",
                 block_input.reason, job.train.feature_wire_dtype);
  if (remote) {
    remote->SetInput(BatchInput{block_input.options.aggregate, block_input.options.wire});
    DG_RETURN_IF_ERROR(remote->WaitForSamplers());
    provider = remote.get();
  } else if (block_input.use) {
    // Two batch makers at least: one's PULL_BLOCKs wait on the network while the other sums.
    local = std::make_unique<BlockInputProvider>(client.get(), &source, block_input.options,
                                                 std::max(2, sampler_threads), 4);
    provider = local.get();
  } else {
    local = std::make_unique<LocalBatchProvider>(&source, std::max(1, sampler_threads), 4,
                                                 ec.uses_features() ? "features" : "");
    provider = local.get();
  }
  // 4. The other trainers, and training.
  TrainProgress progress;
  const auto metrics_start = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(auto metrics,
                      StartRoleMetrics(args, &job, MetricsRole::kTrainer, host, [&progress, rank, metrics_start,
                                                                                 feature_cache] {
                        PromText out;
                        WriteTrainProgressMetrics(progress, rank, &out);
                        WriteMessageBytesMetrics(&out);
                        if (feature_cache) WriteFeatureCacheMetrics(*feature_cache, rank, &out);
                        AddProcessMetrics(&out, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                              metrics_start).count());
                        return out.str();
                      }));
  TrainerOptions o;
  o.progress = &progress;
  o.model_path = job.train.model;
  o.out_dir = job.RunDir();
  o.epochs = job.train.epochs;
  o.lr = job.train.lr;
  o.optimizer = job.train.optimizer;
  o.weight_decay = job.train.weight_decay;
  o.batch_size = job.train.batch_size;
  o.fanouts = job.train.fanouts;
  if (!job.train.eval_full_neighbors) o.eval_fanouts = job.train.fanouts;
  o.eval_every = job.train.eval_every;
  o.seed = job.train.seed;
  o.threads = threads > 0 ? threads
              : job.train.intra_op_threads > 0 ? job.train.intra_op_threads
                                               : torch_threads;
  o.resume = resume;
  o.checkpoint_every_steps = job.train.checkpoint_every_steps;
  o.checkpoint_keep = job.train.checkpoint_keep;
  o.server_checkpoint = [c = client.get()](bool load, int64_t step, int keep) {
    return ServerCheckpoint(c, load, step, keep);
  };
  o.save_predictions = job.train.save_predictions;
  o.save_embeddings = job.train.save_embeddings;
  o.num_classes = classes;
  o.dp.world_size = world;
  o.dp.rank = rank;
  o.dp.master_host = job.RendezvousHost();
  o.dp.master_port = job.rendezvous_port;
  o.dp.host = host;
  o.dp.timeout_seconds = job.peer_timeout_seconds;
  o.dp.rendezvous_timeout_seconds = job.rendezvous_timeout_seconds;
  o.embedding = embedding.get();
  o.use_features = ec.uses_features();
  if (!remote) o.network_bytes = [c = client.get()] { return c->network_bytes(); };  // samplers have their own
  o.epoch_fields = [feature_cache, cache_before = FeatureCacheStats(),
                    bytes_before = MessageBytesSnapshot()]() mutable {
    std::string out;
    if (feature_cache) {
      const FeatureCacheStats now = feature_cache->stats();
      out = FeatureCacheJson(now, cache_before) + ", ";
      cache_before = now;
    }
    std::vector<MessageByteCount> now = MessageBytesSnapshot();
    out += "\"message_bytes\": " + MessageBytesJson(MessageBytesSince(now, bytes_before));
    bytes_before = std::move(now);
    return out;
  };
  spdlog::info("trainer {} of {} on {}: {} train / {} val / {} test seeds, {} classes, {} {}, {} torch threads",
               rank, world, host, seeds.train.size(), seeds.val.size(), seeds.test.size(), classes,
               K > 0 ? K : sampler_threads, K > 0 ? "sampler process(es)" : "sampling thread(s)", o.threads);
  if (link_task) {
    LinkRoleContext lc;
    lc.job = &job;
    lc.partition = &partition;
    lc.source = &source;
    lc.nodes = provider;
    lc.edges = remote ? remote.get() : nullptr;
    lc.sampler_threads = std::max(1, sampler_threads);
    lc.world = world;
    lc.rank = rank;
    Status lst = RunLinkTrainerRole(lc, o);
    if (remote) remote->Shutdown(lst);
    DG_RETURN_IF_ERROR(lst);
    if (embedding && ec.persistent && rank == 0) DG_RETURN_IF_ERROR(embedding->Save());
    spdlog::info("trainer {} done; outputs in {}", rank, job.RunDir());
    return Status::OK();
  }
  if (job.train.algorithm == "control_variate") {  // samples in this process, history on the servers
    Status cv = RunControlVariateDistributed(client.get(), &source, o, job.train.cv_input, seeds);
    if (remote) remote->Shutdown(cv);
    return cv;
  }
  DG_ASSIGN_OR_RETURN(auto trainer, Trainer::Create(o));
  Status st = trainer->Fit(provider, seeds);
  if (remote) remote->Shutdown(st);
  DG_RETURN_IF_ERROR(st);
  // The last SPARSE_UPDATE returned only once every trainer's step was applied.
  if (embedding && ec.persistent && rank == 0) DG_RETURN_IF_ERROR(embedding->Save());
  if (job.train.layerwise_inference) {
    // Rank 0 has written the best-validation model.pt once everyone is here.
    DG_RETURN_IF_ERROR(client->Barrier(job.job + ":trained", static_cast<uint32_t>(world)));
    inf.model_path = job.RunDir() + "/model.pt";
    inf.threads = o.threads;
    InferenceResult res;
    DG_RETURN_IF_ERROR(RunLayerwiseInference(client.get(), inf, &res));
    if (rank == 0)
      spdlog::info("layer-wise inference: val_acc {:.4f} test_acc {:.4f} ({:.2f} s)", res.val_acc, res.test_acc,
                   res.seconds);
  }
  DG_RETURN_IF_ERROR(WriteTrainerSummary(job.RunDir() + "/trainer-" + std::to_string(rank) + ".json", rank, *trainer));
  if (feature_cache) {
    const FeatureCacheStats cs = feature_cache->stats();
    spdlog::info("feature cache: {} hits, {} misses (hit rate {:.3f}), {:.1f} MB not sent", cs.hits, cs.misses,
                 cs.hit_rate(), cs.bytes_saved / 1048576.0);
  }
  spdlog::info("{}", MessageBytesLogLine(MessageBytesSnapshot()));  // distgnn report reads it
  spdlog::info("trainer {} done; outputs in {}; peak RSS {:.1f} MB", rank, job.RunDir(),
               PeakRssBytes() / 1048576.0);
  return Status::OK();
}

}  // namespace dg
