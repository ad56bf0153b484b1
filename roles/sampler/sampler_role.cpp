// `distgnn --role sampler --config JOB.yaml --machine M --index I`: serve one
// trainer with mini-batches.
//
// Sampler I of machine M serves trainer I / samplers_per_trainer of that
// machine; its global rank (the HELLO rank the trainer checks) is
// M * trainers * samplers_per_trainer + I. It reaches every server of the job
// (its own machine's partition through the mmap) and dials its trainer; its
// /readyz says ready once it has both.
#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

#include "roles/job/role_args.h"
#include "roles/job/stop_deadline.h"
#include "common/client/dist_neighbor_source.h"
#include "common/client/feature_cache.h"
#include "common/base/logging.h"
#include "common/net/prometheus.h"
#include "roles/job/job_client.h"
#include "roles/sampler/sampler.h"
#include "roles/sampler/link_sampler.h"
#include "roles/sampler/sampler_role.h"

namespace dg {
Status RunSamplerProcess(const SamplerProcessOptions& options) {
  const RoleArgs& args = options.role;
  const int workers = options.threads;
  DG_ASSIGN_OR_RETURN(JobConfig job, LoadRoleJob(args, MetricsRole::kSampler));
  const int M = args.machine, K = job.samplers_per_trainer;
  if (K <= 0)
    return Status::InvalidArgument(job.path + ": processes.samplers_per_trainer is 0 (trainers sample in their own threads); no samplers to run");
  const int rank = M * job.num_samplers_per_machine() + args.index;
  const int trainer_index = args.index / K;
  const int trainer_rank = job.TrainerRank(M, trainer_index);
  SetupLogging("sampler", rank, args.log_level);
  HoldLaunchLease(args, job, "sampler");

  // Typed partitions too: the trainer checks what a typed job may ask (roles/trainer/role/typed_job.h).
  DG_ASSIGN_OR_RETURN(PartitionConfig partition, LoadAnyPartitionConfig(job.partition));
  DG_ASSIGN_OR_RETURN(auto client, ConnectJobClient(job, partition, kRoleSampler, rank, M));
  // The cache of remote feature rows (train.feature_cache_mb): the sampler
  // fetches its trainer's input rows, so it holds the cache (its PULLs and
  // PULL_BLOCKs of "features" read it, as a trainer's do without samplers).
  std::shared_ptr<const FeatureCache> feature_cache;
  if (job.train.feature_cache_mb > 0 && job.train.embedding.uses_features()) {
    DG_ASSIGN_OR_RETURN(feature_cache, BuildFeatureCache(client.get(), "features", job.train.feature_cache_mb << 20));
    client->set_feature_cache(feature_cache);
    if (feature_cache)
      spdlog::info("feature cache: {} remote rows by in-degree, {:.1f} MB", feature_cache->size(),
                   feature_cache->bytes() / 1048576.0);
  }
  DistNeighborSource source(client.get());

  SamplerOptions o;
  o.trainer_host = job.machines[M].host;
  o.trainer_port = job.TrainerPort(M, trainer_index);
  o.trainer_name = "trainer " + std::to_string(trainer_rank) + " (" + o.trainer_host + ":" +
                   std::to_string(o.trainer_port) + ")";
  o.hello.role = kRoleSampler;
  o.hello.rank = rank;
  o.hello.graph_name = partition.graph_name;
  o.hello.token = job.token;
  o.connection = JobConnectionOptions(job);
  o.connect_wait_seconds = job.connect_wait_seconds;
  o.workers = workers > 0 ? workers : std::max(1, job.CoresPerMachine(M) / job.num_samplers_per_machine());
  o.prefetch = 2;
  if (!job.train.embedding.uses_features()) o.feature_name = "";
  spdlog::info("sampler {} of machine {} for {}; {} partitions, {} nodes", args.index, M, o.trainer_name,
               partition.num_parts, partition.num_nodes);
  SamplerCounters counters;
  o.counters = &counters;
  o.client = client.get();  // input rows by PULL_BLOCK when the trainer's EPOCH asks for them
  const auto started = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(auto metrics, StartRoleMetrics(args, &job, MetricsRole::kSampler, job.machines[M].host, [&] {
    PromText out;
    const PromText::Labels r{{"rank", std::to_string(rank)}, {"trainer", std::to_string(trainer_rank)}};
    out.Gauge("distgnn_sampler_epoch", "Epoch being produced.", double(counters.epoch.load()), r);
    out.Counter("distgnn_sampler_batches_total", "MINIBATCH frames sent.", double(counters.batches.load()), r);
    out.Counter("distgnn_sampler_seeds_total", "Seed nodes in the batches sent.", double(counters.seeds.load()), r);
    out.Counter("distgnn_sampler_sent_bytes_total", "MINIBATCH payload bytes sent.", double(counters.bytes_sent.load()), r);
    out.Gauge("distgnn_sampler_credits", "Credits left from the trainer.", double(counters.credits.load()), r);
    out.Counter("distgnn_sampler_sample_seconds_total", "Seconds spent sampling and building blocks (all workers).",
                counters.sample_seconds.load(), r);
    out.Counter("distgnn_sampler_gather_seconds_total", "Seconds spent gathering features and labels (all workers).",
                counters.gather_seconds.load(), r);
    AddProcessMetrics(&out, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    return out.str();
  }, [&counters, waiting = "connected to every server; waiting for " + o.trainer_name] {
    return counters.connected ? std::string() : waiting;
  }));
  // Link prediction: link batches of this sampler's trainer's edges.
  std::unique_ptr<LinkSamplerState> link;
  if (job.train.task == TrainTask::kLink) {
    DG_ASSIGN_OR_RETURN(link, MakeLinkSamplerState(job, partition, &source, trainer_rank, o.workers, o.prefetch));
    o.link_provider = link->provider.get();
  }
  Sampler sampler(&source, o);
  Status st;
  {
    StopDeadline stop(o.trainer_name, job.stop_seconds);
    st = sampler.Run();
  }
  if (feature_cache) {
    const FeatureCacheStats cs = feature_cache->stats();
    spdlog::info("feature cache: {} hits, {} misses (hit rate {:.3f}), {:.1f} MB not sent", cs.hits, cs.misses,
                 cs.hit_rate(), cs.bytes_saved / 1048576.0);
  }
  spdlog::info("peak RSS {:.1f} MB", PeakRssBytes() / 1048576.0);
  return st;
}

}  // namespace dg
