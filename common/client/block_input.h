// The input rows of a mini-batch fetched with PULL_BLOCK (common/net/pull_block.h)
// instead of PULL: fewer bytes on the wire.
//
// With `aggregate` (a model whose first layer is a mean over the sampled
// in-neighbours and offers forward_agg; docs/models.md), FillBlockInput asks
// every partition for the rows of block 0's destinations it owns and, per
// destination, the sum of the sampled sources it owns; the trainer adds the
// partials and divides by the sampled degree. The batch then carries
//   features          float32 [num_dst0, F]  block 0's destination rows
//   input_neigh_mean  float32 [num_dst0, F]  mean of each one's sampled sources
//                                            (0 for a destination without any)
// and the bytes per batch are about (destinations + remote destinations) x F
// instead of (remote sources) x F. Without `aggregate`, features are the
// rows of every input node, as a PULL gives them, in the wire dtype.
// Machine-local partitions are read from the mmap (no wire, float32).
// Rows travel in `wire` (float32 / float16 / bfloat16); sums are float32
// on the server and rounded once. On a typed partition "features" are
// PullTypedNodeRows' (common/client/typed_node_rows.h) in `wire`; with
// `aggregate` (a typed model's forward_agg) block 0 keeps its sources and
// edges, the relations of TypedAggregatedRelations are summed per
// destination where their sources' "<type>/features" rows live (PULL_BLOCK
// addressed from the type's first id on each partition; SAMPLE_BLOCK is not
// used), and the batch carries
//   features          float32 [num_src0, F_max]  the rows of block 0's
//                     destinations and of the other relations' sources
//                     (zero rows for sources reached by aggregated relations alone)
//   input_neigh_mean  float32 [G, F_max]  relation by relation (ascending),
//                     one row per destination with at least one edge of it
//                     (ascending): the mean of those sources' rows, padded
// Trainer threads and sampler processes (roles/sampler/sampler.h)
// both make their node batches with MakeNodeBatchMaker. Torch-free.
#pragma once

#include <memory>
#include <string>

#include "common/client/dist_graph_client.h"
#include "common/net/pull_block.h"
#include "common/net/wire_dtype.h"
#include "common/sampling/batch_provider.h"
#include "common/sampling/minibatch.h"
#include "common/sampling/minibatch_codec.h"

namespace dg {

struct BlockInputOptions {
  std::string feature_name = "features";
  bool aggregate = true;
  WireDType wire = WireDType::kFloat32;
  int64_t max_dst_per_request = 4096;  // destinations (or rows) per PULL_BLOCK / SAMPLE_BLOCK
  // With aggregate: block 0 is sampled where its destinations live
  // (SampleBlockInput), so its source ids never travel. Same edges, same
  // input as SampleMiniBatch + FillBlockInput.
  bool sample_at_owner = true;
};

// Fills mb->features (and input_neigh_mean with aggregate) from mb's blocks
// and input_nodes. The partition of every node must address its nodes with
// int32 offsets (< 2^31 nodes per partition).
Status FillBlockInput(DistGraphClient* client, const BlockInputOptions& options, MiniBatch* mb);

// SampleMiniBatch for blocks 1.. and labels, then block 0 sampled and summed
// where its destinations live: SAMPLE_BLOCK to each remote owner (machine-
// local destinations from the mmap), the sources a destination's owner does
// not hold summed where they live (mmap or PULL_BLOCK). Block 0's edges are
// the ones SampleMiniBatch samples (same request seed per layer, row seeds by
// node), and the input equals FillBlockInput's (with two partitions bit for
// bit: every destination's partials add up in the same order). The batch's
// block 0 then carries the sampled degrees only: num_src = num_dst,
// input_nodes = its destinations, each edge pointing at its destination.
// Needs o.aggregate's model (forward_agg reads block 0's degrees, if anything).
Result<MiniBatch> SampleBlockInput(DistGraphClient* client, NeighborSource* source, const BlockInputOptions& o,
                                   const std::vector<int64_t>& seeds, const MiniBatchOptions& options,
                                   uint64_t job_seed, int64_t epoch, int64_t batch_index);

// Stored rows read in block 0's round trip (SAMPLE_BLOCK with a history,
// common/net/pull_block.h; HistoricalTask): the destinations flagged in
// `candidate` whose row in ask.name (float32 [N, width + 2], on each
// partition's mutable-tensor server) was written at most ask.max_age steps
// before ask.step are answered with that row and not sampled.
struct BlockHistoryRead {
  SampleBlockHistory ask;
  int64_t width = 0;
  std::vector<char> candidate;  // per destination
};
struct BlockHistoryHits {
  std::vector<int64_t> hit_pos;   // positions in the destinations, ascending
  std::vector<int64_t> miss_pos;  // positions in the destinations, in the batch's row order
  Array rows;                     // float32 [hits, width], in hit_pos order
};

// Block 0 of `dst` (options.fanouts = {layer 0's}) sampled and summed where
// the destinations live, as SampleBlockInput's, with stored rows in the same
// round trips: the batch covers the misses only (input_nodes and seeds =
// dst[miss_pos], features, input_neigh_mean and block 0 as SampleBlockInput's
// for them, in that order: machine-local ones first, then each partition's
// as its answers come in send order). A miss's edges are the ones
// SampleBlockInput samples for it. The feature cache is not used.
// Candidates on a machine-local partition have their stored rows read from
// its server (a PULL while the SAMPLE_BLOCKs are out); local misses are
// sampled from the mmap.
Result<MiniBatch> SampleBlock0WithHistory(DistGraphClient* client, const BlockInputOptions& o,
                                          const std::vector<int64_t>& dst, const MiniBatchOptions& options,
                                          uint64_t job_seed, int64_t epoch, int64_t batch_index,
                                          const BlockHistoryRead& history, BlockHistoryHits* hits);

// One batch of `seeds` with block input, as BlockInputProvider makes it:
// SampleBlockInput when block 0 is aggregated where its destinations live
// (homogeneous, o.sample_at_owner), else SampleMiniBatch then FillBlockInput.
// options.feature_name must be empty (the block input fills features).
Result<MiniBatch> SampleWithBlockInput(DistGraphClient* client, NeighborSource* source, const BlockInputOptions& o,
                                       const std::vector<int64_t>& seeds, const MiniBatchOptions& options,
                                       uint64_t job_seed, int64_t epoch, int64_t batch_index);

// Samples in-process (like LocalBatchProvider) and fills the input with
// FillBlockInput. `client` and `source` must outlive it.
class BlockInputProvider : public BatchProvider {
 public:
  BlockInputProvider(DistGraphClient* client, NeighborSource* source, BlockInputOptions options, int workers,
                     int prefetch = 4, std::string label_name = "labels");
  Status BeginEpoch(const EpochRequest& request) override;
  Result<bool> Next(MiniBatch* out) override;

 private:
  DistGraphClient* client_;
  NeighborSource* source_;
  const BlockInputOptions options_;
  const std::string label_name_;
  BatchPrefetcher batches_;  // last: destroyed (its workers joined) first
};

// A typed partition's relations whose source type has float32 features
// ("<type>/features"): the ones a typed block 0 aggregates, in edge type order.
std::vector<int> TypedAggregatedRelations(const PartitionConfig& config);

// Whether PULL_BLOCK can serve this partitioning (every part < 2^31 nodes and
// the feature array float32 [N, F]); the error says why not.
Status CheckBlockInput(const PartitionConfig& config, const std::string& feature_name);

// The node batch maker of an input path, for the trainer's own threads and
// for its sampler processes alike (the path is the trainer's choice,
// roles/trainer/source/input_choice.h): BlockInputProvider when `input`
// pulls blocks and `feature_name` names rows to read (two batch makers at
// least: one's PULL_BLOCKs wait on the network while the other sums), else
// LocalBatchProvider (rows pulled). `client` and `source` must outlive it.
std::unique_ptr<BatchProvider> MakeNodeBatchMaker(DistGraphClient* client, NeighborSource* source,
                                                  const BatchInput& input, const std::string& feature_name,
                                                  int workers, int prefetch);

}  // namespace dg
