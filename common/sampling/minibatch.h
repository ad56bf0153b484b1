// Mini-batches for GNN training: multi-layer neighbor sampling and block
// building (DGL's `to_block`), torch-free.
//
// The code is written against NeighborSource, so it runs unchanged in-process
// (InMemoryGraph: trainer threads, train-local) and over the network (the
// sampler role's client of the servers).
//
// Layer convention (as DGL): fanouts[l] is the fanout of block l; block 0 is
// the input layer, block L-1 produces the seeds. Sampling starts at the seeds
// with fanouts[L-1]. A fanout < 0 takes every in-neighbor (full blocks).
//
// Block: a CSR over destination nodes; indices point into the block's source
// nodes; the first num_dst sources are the destinations themselves, in order;
// further sources follow in order of first appearance -- grouped by owning
// partition first when MiniBatchOptions::owner_offsets is set. The sources of
// block l are the destinations of block l-1; the sources of block 0 are
// input_nodes.
//
// Determinism: the batch content depends only on (job seed, epoch, batch index,
// seeds, graph): the per-layer request seed is SamplingSeed(...) and the
// per-row seed is MixSeed(request_seed, gid) (common/storage/neighbor_sampling.h), so
// any number of samplers or threads produce identical batches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/sampling/id_buffer.h"
#include "common/base/array.h"
#include "common/base/sample_spec.h"
#include "common/base/status.h"

namespace dg {

// Sampled in-neighbors of a list of seeds: the sources of seed i are
// sources[indptr[i], indptr[i+1]) (global ids). indptr has seeds+1 entries.
struct SampledNeighbors {
  std::vector<int64_t> indptr;
  std::vector<int64_t> sources;
  std::vector<uint8_t> etypes;  // typed graphs: the edge type of each source's edge; else empty
};

// Where neighbors and node data come from.
class NeighborSource {
 public:
  virtual ~NeighborSource() = default;
  virtual int64_t num_nodes() const = 0;
  // For every seed, its in-neighbors sampled as `spec` asks (row seed =
  // MixSeed(spec.seed, gid)). spec.typed(): fanouts[t] in-edges of edge type
  // t per seed (SampleRowByType), out->etypes gets each edge's type; a graph
  // without edge types refuses it. An untyped spec on a typed graph takes
  // spec.fanout of every edge type (DGL's single fanout of a heterograph).
  virtual Status SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec,
                                 SampledNeighbors* out) = 0;
  // Rows `ids` of node array `name` (e.g. "features", "labels"), in order.
  virtual Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids) = 0;
  // The partition book's offsets when the graph is partitioned (partition p
  // owns ids [o[p], o[p+1])); empty for a graph in one piece.
  virtual std::vector<int64_t> owner_offsets() const { return {}; }

  // Typed graphs (common/sampling/typed_graph.h): the number of edge types
  // (0 = an untyped graph, which has none of what follows).
  virtual int num_edge_types() const { return 0; }
  // The node type of each id.
  virtual Status NodeTypes(const std::vector<int64_t>& ids, std::vector<int64_t>* out);
};

struct Block {
  IdBuffer indptr;   // [num_dst + 1]
  IdBuffer indices;  // [num_edges], each in [0, num_src)
  std::vector<int64_t> etypes;  // typed graphs: the edge type of each edge; else empty
  int64_t num_dst = 0;
  int64_t num_src = 0;
  int64_t num_edges() const { return static_cast<int64_t>(indices.size()); }
};

struct MiniBatch {
  int64_t epoch = 0;
  int64_t batch_index = 0;
  std::vector<int64_t> seeds;        // global ids, the output rows
  std::vector<Block> blocks;         // blocks[0] = input layer
  std::vector<int64_t> input_nodes;  // global ids of block 0's sources
  // Typed graphs: the node type of each input node (block l's sources are a
  // prefix of input_nodes, so this gives every block's source types); else empty.
  std::vector<int64_t> input_ntypes;
  Array features;                    // rows of input_nodes (empty if not gathered)
  Array labels;                      // rows of seeds (empty if not gathered)
  // Set when block 0's aggregation was done where the features live
  // (common/client/block_input.h): float32 [blocks[0].num_dst, F], the mean of
  // each destination's sampled sources; `features` then holds the rows of
  // block 0's destinations only. Empty otherwise.
  Array input_neigh_mean;
  double sample_seconds = 0;         // time spent sampling + building blocks
  double gather_seconds = 0;         // time spent gathering features and labels
  // Set by the receiver of a MINIBATCH frame: seconds from the sampler's send
  // to the frame's arrival (both on one host's monotonic clock). Not encoded.
  double transfer_seconds = 0;
  double send_time = 0;              // sampler's monotonic clock at send (encoded)
};

// What a batch maker asks for: the sampling of every layer (the
// LayeredSampleSpec it passes whole: fanouts per layer, -1 = all neighbors;
// typed graphs: etype_fanouts[l][t], empty = fanouts[l] for every edge type)
// and what it gathers.
struct MiniBatchOptions : LayeredSampleSpec {
  std::string feature_name = "features";  // "" = do not gather
  std::string label_name = "labels";      // "" = do not gather
  // Partition offsets (NeighborSource::owner_offsets). With two or more
  // partitions, each block's sources after its destinations are grouped by
  // owner (first-appearance order within a group), so one partition's rows
  // of the features fill a few contiguous ranges of the batch and a PULL
  // reply is received straight into place. Empty = no grouping.
  std::vector<int64_t> owner_offsets;
};

// The request seed of one layer of one batch:
// MixSeed(MixSeed(job_seed, epoch), batch_index * 16 + layer).
uint64_t SamplingSeed(uint64_t job_seed, int64_t epoch, int64_t batch_index, int layer);

// Builds one block from destination ids and their sampled sources (to_block).
// *src_nodes receives the block's source node ids (dst first). num_nodes (the
// graph's, when known) lets ids below it relabel through a dense per-thread
// table instead of a hash map; the result is the same. owner_offsets: as
// MiniBatchOptions::owner_offsets (null or fewer than 3 entries: no grouping).
Block BuildBlock(const std::vector<int64_t>& dst_nodes, const SampledNeighbors& sampled,
                 std::vector<int64_t>* src_nodes, int64_t num_nodes = 0,
                 const std::vector<int64_t>* owner_offsets = nullptr);

// The batch's epoch, index and seeds, and its blocks sampled from the seeds'
// layer down to `lowest_layer` (0: all of them); *frontier receives the
// source nodes of the lowest block sampled. SampleMiniBatch is this with
// lowest_layer 0 plus the gathers; the block-input path samples block 0 elsewhere.
Status SampleBlocksDownTo(NeighborSource* source, const std::vector<int64_t>& seeds, const MiniBatchOptions& options,
                          uint64_t job_seed, int64_t epoch, int64_t batch_index, int lowest_layer, MiniBatch* mb,
                          std::vector<int64_t>* frontier);

// Samples every layer for `seeds` and gathers features and labels.
Result<MiniBatch> SampleMiniBatch(NeighborSource* source, const std::vector<int64_t>& seeds,
                                  const MiniBatchOptions& options, uint64_t job_seed,
                                  int64_t epoch, int64_t batch_index);

// The seed order of an epoch: a Fisher-Yates shuffle seeded by
// MixSeed(job_seed, epoch) (identity if shuffle is false).
std::vector<int64_t> EpochOrder(const std::vector<int64_t>& seeds, bool shuffle,
                                uint64_t job_seed, int64_t epoch);
int64_t NumBatches(int64_t num_seeds, int64_t batch_size);
// Seeds of batch `index` of an epoch order (the last batch may be short).
std::vector<int64_t> BatchSeeds(const std::vector<int64_t>& order, int64_t batch_size,
                                int64_t index);

// DGL node_split(force_even=True): `sorted_ids` (sorted global ids, so nodes of
// partition p precede those of p+1) cut into `num_trainers` contiguous chunks of
// equal size floor(n / num_trainers); trainer r takes chunk r, which lies in its
// own partition first. The <= num_trainers-1 left-over ids are dropped so every
// trainer runs the same number of steps. With even=false the remainder is
// spread over the first chunks (for evaluation, where counts need not match).
std::vector<int64_t> NodeSplit(const std::vector<int64_t>& sorted_ids, int num_trainers, int rank,
                               bool even);

}  // namespace dg
