// The job's GraphSource: one trainer's view of a distributed job's graph --
// the servers through a DistGraphClient, and batches from this trainer's
// sampler processes or made in its own threads.
//
// Open: listen for this trainer's samplers (ports.trainer + M * trainers + I;
// so they can dial while the trainer connects), then connect to every server.
// ChooseInput: the cache of remote feature rows (train.feature_cache_mb;
// sampler processes fetch their own rows and do not use it) and the input
// path, chosen once here for every batch of the run (roles/trainer/source/input_choice.h):
// the samplers (the EPOCH carries the choice), in-process batch makers pulling
// block input (PULL_BLOCK: aggregated block 0, wire dtype), or in-process
// batch makers pulling rows; then wait for the samplers. Threads: this
// trainer's share of the machine's cores; sampling in-process takes half of
// it and torch the rest.
//
// Seeds: train nodes (split == 0) are cut as DGL's node_split(force_even=True),
// so every trainer runs the same number of steps; val/test nodes are cut
// evenly (a typed partition: its target type's "<target>/split" and
// "<target>/labels"). Link prediction needs a partition made with
// --edge-split (link_split.json): training edges TrainEdgeShare
// (common/sampling/link_partition.h; a typed partition split on one edge type:
// TypedTrainEdgeShare, negatives of its destination type), val/test
// HeldOutShare. Control variate keeps its history in DistTensors on the
// servers (DistCvStore); train.cv_input must be a node array of the partition.
// Historical rows live in DistTensors too and are sampled in this trainer's
// threads (a job with sampler processes is refused); their lowest block 0 is
// aggregated at the servers when the input path aggregates.
// Rank 0's predictions and embeddings are in original node order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/base/status.h"
#include "common/client/block_input.h"
#include "common/client/dist_graph_client.h"
#include "common/client/dist_neighbor_source.h"
#include "common/client/feature_cache.h"
#include "common/sampling/edge_batch.h"
#include "common/storage/partition.h"
#include "config/job_config.h"
#include "roles/trainer/source/remote_batch_provider.h"
#include "roles/trainer/source/graph_source.h"

namespace dg {

class CvStore;

struct JobSourceOptions {
  const JobConfig* job = nullptr;  // outlives the source
  const PartitionConfig* partition = nullptr;
  int machine = 0, index = 0;      // this trainer: machine M, index I on it
  int sampler_threads = 0;         // without sampler processes; 0 = half this trainer's share of the cores
};

class JobGraphSource : public GraphSource {
 public:
  static Result<std::unique_ptr<JobGraphSource>> Open(const JobSourceOptions& options);
  ~JobGraphSource() override;

  DistGraphClient* client() const { return client_.get(); }
  Status ChooseInput();
  // Torch's threads: this trainer's share of the cores less its sampling threads.
  int torch_threads() const { return torch_threads_; }
  int sampler_threads() const { return sampler_threads_; }
  std::shared_ptr<const FeatureCache> feature_cache() const { return feature_cache_; }
  // Tells the sampler processes (if any) that the trainer is done.
  void Shutdown(const Status& why);

  Result<NodeInput> Nodes() override;
  Result<LinkInput> Links() override;
  Result<CvInput> ControlVariate() override;
  Result<HistoricalInput> Historical() override;
  std::function<uint64_t()> NetworkBytes() override;

 private:
  explicit JobGraphSource(const JobSourceOptions& options);
  const TrainSpec& spec() const { return o_.job->train; }
  Result<NodeInput> Seeds();
  Result<std::vector<int64_t>> PredictOrder() const;
  Result<NodeOutputRows> OutputRows() const;
  Status LinkEdges(LinkInput* in, LinkBatchOptions* batches);

  JobSourceOptions o_;
  int rank_ = 0, world_ = 1, samplers_ = 0;
  int sampler_threads_ = 0, torch_threads_ = 1;
  // In the order they are made, so destroyed in reverse (providers before the client).
  std::unique_ptr<RemoteBatchProvider> remote_;  // sampler processes; null = sample in-process
  std::unique_ptr<DistGraphClient> client_;
  std::shared_ptr<const FeatureCache> feature_cache_;
  std::unique_ptr<DistNeighborSource> neighbors_;
  std::unique_ptr<BatchProvider> local_;  // in-process node batches
  BatchProvider* nodes_ = nullptr;        // remote_ or local_
  BlockInputOptions block_input_;         // the input path ChooseInput took
  bool aggregates_ = false;               // ... and whether it aggregates block 0
  EdgeTable table_;
  std::unique_ptr<BatchProvider> local_edges_;
  std::unique_ptr<CvStore> cv_store_;
  std::unique_ptr<LayerTables> layer_tables_;  // layer-wise evaluation
};

}  // namespace dg
