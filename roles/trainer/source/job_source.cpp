// JobGraphSource (job_source.h): what each task trains on from the servers.
#include "roles/trainer/source/job_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "common/client/block_input.h"
#include "common/client/typed_node_rows.h"
#include "common/io/npy.h"
#include "common/sampling/link_partition.h"
#include "common/storage/link_split.h"
#include "common/storage/partition_seeds.h"
#include "roles/job/job_client.h"
#include "roles/trainer/source/cv_store.h"
#include "roles/trainer/source/layer_tables.h"
#include "roles/trainer/source/input_choice.h"
#include "roles/trainer/model/model_facts.h"

namespace dg {

constexpr int kPrefetch = 4;  // batches made ahead of the step

JobGraphSource::JobGraphSource(const JobSourceOptions& options) : o_(options) {}
JobGraphSource::~JobGraphSource() = default;

Result<std::unique_ptr<JobGraphSource>> JobGraphSource::Open(const JobSourceOptions& options) {
  std::unique_ptr<JobGraphSource> s(new JobGraphSource(options));
  const JobConfig& job = *options.job;
  const int per_machine = job.trainers_per_machine, K = job.samplers_per_trainer;
  s->rank_ = job.TrainerRank(options.machine, options.index);
  s->world_ = job.num_trainers();
  s->samplers_ = K;
  if (K > 0) {
    RemoteProviderOptions ro;
    ro.host = job.machines[options.machine].host;
    ro.port = job.TrainerPort(options.machine, options.index);
    ro.trainer_rank = s->rank_;
    ro.graph_name = options.partition->graph_name;
    ro.token = job.token;
    ro.first_sampler_rank = options.machine * per_machine * K + options.index * K;
    ro.num_samplers = K;
    ro.credits = static_cast<uint32_t>(std::max(1, job.train.credits));
    ro.connection = JobConnectionOptions(job);
    ro.connect_wait_seconds = job.connect_wait_seconds;
    DG_ASSIGN_OR_RETURN(s->remote_, RemoteBatchProvider::Listen(ro));
  }
  DG_ASSIGN_OR_RETURN(s->client_,
                      ConnectJobClient(job, *options.partition, kRoleTrainer, s->rank_, options.machine));
  return s;
}

Status JobGraphSource::ChooseInput() {
  const JobConfig& job = *o_.job;
  const int share = std::max(1, job.CoresPerMachine(o_.machine) / job.trainers_per_machine);
  sampler_threads_ = o_.sampler_threads;
  if (!remote_ && sampler_threads_ <= 0) sampler_threads_ = std::max(1, share / 2);
  torch_threads_ = remote_ ? share : std::max(1, share - sampler_threads_);
  if (spec().feature_cache_mb > 0 && !remote_ && spec().embedding.uses_features()) {
    const auto t0 = std::chrono::steady_clock::now();
    DG_ASSIGN_OR_RETURN(feature_cache_, BuildFeatureCache(client_.get(), "features", spec().feature_cache_mb << 20));
    client_->set_feature_cache(feature_cache_);
    if (feature_cache_)
      spdlog::info("feature cache: {} remote rows by in-degree, {:.1f} MB, filled in {:.2f} s", feature_cache_->size(),
                   feature_cache_->bytes() / 1048576.0,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  neighbors_ = std::make_unique<DistNeighborSource>(client_.get());
  DG_ASSIGN_OR_RETURN(bool has_agg, ModelHasForwardAgg(spec().model));
  DG_ASSIGN_OR_RETURN(BlockInputChoice block_input, ChooseBlockInput(job, *o_.partition, has_agg));
  if (block_input.options.aggregate && o_.partition->typed()) {
    DG_ASSIGN_OR_RETURN(std::vector<int64_t> relations, ModelAggRelations(spec().model));
    DG_RETURN_IF_ERROR(CheckTypedAggRelations(job, *o_.partition, relations));
  }
  if (rank_ == 0)
    spdlog::info("input rows: {} ({}), {} on the wire", block_input.options.aggregate ? "aggregated" : "pulled",
                 block_input.reason, WireDTypeName(spec().feature_wire_dtype));
  if (remote_) {  // the samplers make the batches as the choice says (the EPOCH carries it)
    remote_->SetInput(BatchInput{block_input.options.aggregate, block_input.options.wire});
    DG_RETURN_IF_ERROR(remote_->WaitForSamplers());
    nodes_ = remote_.get();
    return Status::OK();
  }
  block_input_ = block_input.options;
  aggregates_ = block_input.options.aggregate && !o_.partition->typed();
  const BatchInput input{block_input.options.aggregate, block_input.options.wire};
  local_ = MakeNodeBatchMaker(client_.get(), neighbors_.get(), input,
                              spec().embedding.uses_features() ? "features" : "", sampler_threads_, kPrefetch);
  nodes_ = local_.get();
  return Status::OK();
}

void JobGraphSource::Shutdown(const Status& why) {
  if (remote_) remote_->Shutdown(why);
}

std::function<uint64_t()> JobGraphSource::NetworkBytes() {
  // Sampler processes count their own bytes; control variate's reads are this trainer's.
  if (remote_ && spec().algorithm != TrainAlgorithm::kControlVariate) return nullptr;
  return [c = client_.get()] { return c->network_bytes(); };
}

// This trainer's seeds and the number of classes, read through the client;
// nothing O(num_nodes) is read (per-part id files and num_classes).
Result<NodeInput> JobGraphSource::Seeds() {
  const PartitionConfig& pc = *o_.partition;
  const std::string prefix = pc.typed() ? pc.target + "/" : "";
  for (const char* name : {"split", "labels"})
    if (!pc.node_data.count(prefix + name))
      return Status::InvalidArgument(pc.path + ": the partition has no node array '" + prefix + name +
                                     "' (partition a dataset with split.npy and labels.npy)");
  DG_RETURN_IF_ERROR(RequirePartSeeds(pc));
  int64_t total_train = 0;
  for (const PartInfo& p : pc.parts) total_train += p.num_train;
  if (total_train < world_)
    return Status::InvalidArgument(pc.path + ": " + std::to_string(total_train) +
                                   " training nodes (split == 0) for " + std::to_string(world_) + " trainers");
  DistGraphClient* client = client_.get();
  auto pull = [&](int64_t begin, int64_t end) {
    std::vector<int64_t> ids(static_cast<size_t>(end - begin));
    for (int64_t i = begin; i < end; ++i) ids[i - begin] = i;
    return pc.typed() ? PullTypedNodeRows(client, "split", ids) : client->Pull("split", ids);
  };
  NodeInput in;
  DG_ASSIGN_OR_RETURN(in.train, PartSeedSlice(pc, 0, world_, rank_, /*even=*/true, pull));
  DG_ASSIGN_OR_RETURN(in.val, PartSeedSlice(pc, 1, world_, rank_, /*even=*/false, pull));
  DG_ASSIGN_OR_RETURN(in.test, PartSeedSlice(pc, 2, world_, rank_, /*even=*/false, pull));
  in.num_classes = pc.num_classes;
  return in;
}

// Row j of predictions.npy / embeddings.npy is original node j: its new
// global id (rank 0, when either is asked for; else none).
Result<std::vector<int64_t>> JobGraphSource::PredictOrder() const {
  if (rank_ != 0 || !(spec().save_predictions || spec().save_embeddings)) return std::vector<int64_t>();
  const PartitionConfig& pc = *o_.partition;
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

// The nodes of the output files (rank 0). A typed partition's: the target
// type's nodes for predictions.npy and every type's for embeddings/<type>.npy,
// each type in its original type-local order (type_nids/<type>.npy holds
// their global ids).
Result<NodeOutputRows> JobGraphSource::OutputRows() const {
  NodeOutputRows rows;
  if (rank_ != 0 || !(spec().save_predictions || spec().save_embeddings)) return rows;
  const PartitionConfig& pc = *o_.partition;
  if (!pc.typed()) {
    DG_ASSIGN_OR_RETURN(rows.predict, PredictOrder());
    return rows;
  }
  const int target = pc.NodeTypeId(pc.target);
  for (int t = 0; t < pc.num_node_types(); ++t) {
    const int64_t n = pc.num_nodes_per_type[t];
    rows.embed_types.emplace_back(pc.node_types[t], n);
    const bool predict = spec().save_predictions && t == target;
    if (!predict && !spec().save_embeddings) continue;
    const std::string path = pc.TypeNidsPath(t);
    DG_ASSIGN_OR_RETURN(Array gids, NpyLoad(path));
    if (gids.dtype != DType::kInt64 || gids.numel() != n)
      return Status::Corruption(path + ": expected int64 [" + std::to_string(n) + "]");
    const int64_t* g = gids.as<int64_t>();
    if (predict) rows.predict.assign(g, g + n);
    if (spec().save_embeddings) rows.embed.insert(rows.embed.end(), g, g + n);
  }
  return rows;
}

Result<NodeInput> JobGraphSource::Nodes() {
  DG_ASSIGN_OR_RETURN(NodeInput in, Seeds());
  DG_ASSIGN_OR_RETURN(in.outputs, OutputRows());
  in.batches = nodes_;
  const PartitionConfig& pc = *o_.partition;
  if (!pc.typed()) {  // full-neighbour evaluation of every node, layer by layer
    in.layerwise_source = neighbors_.get();
    layer_tables_ = MakeDistLayerTables(client_.get(), world_);
    in.layer_tables = layer_tables_.get();
    in.num_nodes = pc.num_nodes;
    in.num_edges = pc.num_edges;
    in.feature_name = spec().embedding.uses_features() ? "features" : "";
  }
  spdlog::info("trainer {} of {} on {}: {} train / {} val / {} test seeds, {} classes, {} {}", rank_, world_,
               o_.job->machines[o_.machine].host, in.train.size(), in.val.size(), in.test.size(), in.num_classes,
               samplers_ > 0 ? samplers_ : sampler_threads_,
               samplers_ > 0 ? "sampler process(es)" : "sampling thread(s)");
  return in;
}

Result<CvInput> JobGraphSource::ControlVariate() {
  const PartitionConfig& pc = *o_.partition;
  const std::string& cv_input = spec().cv_input;
  if (spec().embedding.uses_features() && !pc.node_data.count(cv_input))
    return Status::InvalidArgument("train.cv_input: '" + cv_input + "' is not a node array of " + pc.path +
                                   " (run `distgnn propagate --config JOB.yaml --input features --hops 1 --norm mean "
                                   "--output NAME` first and name NAME_1)");
  DG_ASSIGN_OR_RETURN(NodeInput seeds, Seeds());
  cv_store_ = std::make_unique<DistCvStore>(client_.get(), neighbors_.get());
  CvInput in;
  in.store = cv_store_.get();
  in.batches = nodes_;
  in.train = std::move(seeds.train);
  in.val = std::move(seeds.val);
  in.test = std::move(seeds.test);
  DG_ASSIGN_OR_RETURN(in.predict, PredictOrder());
  in.input = cv_input;
  spdlog::info("trainer {} of {}: control variate on {} train seeds, batches from {} {}", rank_, world_,
               in.train.size(), samplers_ > 0 ? samplers_ : sampler_threads_,
               samplers_ > 0 ? "sampler process(es)" : "sampling thread(s)");
  return in;
}

Result<HistoricalInput> JobGraphSource::Historical() {
  if (samplers_ > 0)
    return Status::InvalidArgument(
        "train.historical: the job has " + std::to_string(samplers_) +
        " sampler process(es) per trainer, but historical rows decide at each step which neighbourhoods to "
        "sample, so the trainers sample: give the machines no samplers");
  HistoricalInput in;
  DG_ASSIGN_OR_RETURN(in.nodes, Nodes());
  cv_store_ = std::make_unique<DistCvStore>(client_.get(), neighbors_.get(), aggregates_ ? &block_input_ : nullptr);
  in.store = cv_store_.get();
  in.sampler_threads = sampler_threads_;
  return in;
}

// This trainer's training edges and how their batches are made.
Status JobGraphSource::LinkEdges(LinkInput* in, LinkBatchOptions* lo) {
  const PartitionConfig& pc = *o_.partition;
  DG_ASSIGN_OR_RETURN(LinkSplitInfo info, ReadLinkSplitInfo(pc.base_dir));
  if (!info.present)
    return Status::InvalidArgument("train.task link: partition " + pc.path +
                                   " has no edge split (no link_split.json); partition it with --edge-split 0.85,0.05,0.10");
  if (!pc.typed()) {
    DG_RETURN_IF_ERROR(TrainEdgeShare(pc, world_, rank_, &table_, &in->train));
    return SetLinkBatchOptions(pc, info, spec().link.negative_distribution, lo);
  }
  // One edge type: its edges, negatives of its destination type (link_partition.h).
  DG_ASSIGN_OR_RETURN(PartitionTypedLink typed, TypedTrainEdgeShare(pc, info, world_, rank_, &table_, &in->train));
  DG_RETURN_IF_ERROR(SetTypedLinkBatchOptions(typed, spec().link.negative_distribution, lo));
  in->link.negative_ranges = typed.dst_ranges;
  if (rank_ == 0)
    spdlog::info("link prediction on {} ({} training edges; {} held out of message passing); negatives from its "
                 "{} destination nodes",
                 info.etype, table_.num_edges(),
                 info.reverse_etype.empty() ? "val/test" : "val/test and their " + info.reverse_etype + " copies",
                 typed.dst_count);
  return Status::OK();
}

Result<LinkInput> JobGraphSource::Links() {
  const PartitionConfig& pc = *o_.partition;
  LinkInput in;
  LinkBatchOptions lo;
  DG_RETURN_IF_ERROR(LinkEdges(&in, &lo));
  DG_ASSIGN_OR_RETURN(in.outputs, OutputRows());
  DG_RETURN_IF_ERROR(HeldOutShare(pc, "val", world_, rank_, &in.val));
  DG_RETURN_IF_ERROR(HeldOutShare(pc, "test", world_, rank_, &in.test));
  lo.feature_name = spec().embedding.uses_features() ? "features" : "";
  lo.negatives = spec().link.negative_k;
  in.edges = remote_.get();
  if (!remote_) {
    local_edges_ = std::make_unique<LinkBatchProvider>(neighbors_.get(), &table_, lo, std::max(1, sampler_threads_),
                                                       kPrefetch);
    in.edges = local_edges_.get();
  }
  in.nodes = nodes_;
  in.link.layerwise_source = neighbors_.get();  // full-neighbor evaluation: every node's embedding, layer by layer
  layer_tables_ = MakeDistLayerTables(client_.get(), world_);
  in.link.layer_tables = layer_tables_.get();
  in.link.feature_name = lo.feature_name;
  in.link.num_nodes = pc.num_nodes;
  spdlog::info("trainer {} of {}: link prediction on {} train edges ({} val / {} test held out here), {} {} negatives",
               rank_, world_, in.train.size(), in.val.src.size(), in.test.src.size(), lo.negatives,
               Name(spec().link.negative_distribution));
  return in;
}

}  // namespace dg
