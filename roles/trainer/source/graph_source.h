// GraphSource: where a training run's graph lives and what each task trains
// on from it. Two implementations:
//  - the job's (source/job_source.h): the servers through a DistGraphClient,
//    batches from sampler processes or made in this trainer's threads, with
//    the input path (rows pulled, block 0 aggregated by the servers, the wire
//    dtype) chosen once when the source is opened;
//  - train-local's (source/local_source.h): a dataset directory held in memory.
// A source owns the batch providers and stores it hands out; what it hands
// out lives as long as the source. MakeTask (run/make_task.h) asks the
// source for the one input its task needs. Torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/base/status.h"
#include "common/sampling/batch_provider.h"
#include "common/sampling/negative_sampler.h"
#include "common/storage/dataset.h"

namespace dg {

class CvStore;
class LayerTables;
class NeighborSource;

// Rank 0 with save_predictions / save_embeddings: the nodes of the output
// files, in row order (original node order; inference/node_outputs.h).
// Homogeneous: `predict` is every node and gives both files. Typed: `predict`
// is the target type's nodes (predictions.npy), `embed` every type's nodes,
// type after type, and `embed_types` each type's name and node count (its
// rows go to embeddings/<name>.npy).
struct NodeOutputRows {
  std::vector<int64_t> predict, embed;
  std::vector<std::pair<std::string, int64_t>> embed_types;
  bool typed() const { return !embed_types.empty(); }
};

// Node classification by sampling: node batches and this trainer's seeds.
struct NodeInput {
  BatchProvider* batches = nullptr;
  std::vector<int64_t> train, val, test;  // this trainer's shares
  NodeOutputRows outputs;
  int64_t num_classes = 0;  // 1 + the largest label of a labelled node, or the given count
  // Layer-wise evaluation (NodeTask::ChooseLayerwise says when): the graph
  // its full-neighbour blocks and the seeds' labels come from, the tables
  // each layer's rows go to (source/layer_tables.h), the graph's node and
  // edge counts and layer 0's node array ("" = the learnt rows alone). Null
  // source: node batches only.
  NeighborSource* layerwise_source = nullptr;
  LayerTables* layer_tables = nullptr;
  int64_t num_nodes = 0, num_edges = 0;
  std::string feature_name = "features";
};

// What the link task knows of the graph besides its settings.
struct LinkOptions {
  int64_t num_nodes = 0;  // the graph's nodes
  // Evaluation negatives are drawn from [negative_first, negative_first +
  // negative_count) (negative_count 0 = every node; on a typed graph: the
  // destination type's global ids).
  int64_t negative_first = 0;
  int64_t negative_count = 0;
  // Non-empty: evaluation negatives are uniform over these ranges instead (a
  // typed partition's destination type, one (first, count) per part).
  IdRanges negative_ranges;
  // Layer-wise evaluation: with full-neighbor evaluation (eval_fanouts empty), a
  // model with forward_layer, a source and layer tables, every node's
  // embedding is computed first, one layer at a time over full-neighbor blocks
  // (each trainer an even cut of the ids) into the tables
  // (source/layer_tables.h: DistTensors in a job), and pairs are scored
  // from the rows of the nodes involved. Null = node batches of the nodes
  // involved. A typed model (typed contract, docs/models.md) always takes node
  // batches: its forward_layer starts from hidden rows that only its forward
  // computes.
  NeighborSource* layerwise_source = nullptr;
  LayerTables* layer_tables = nullptr;

  // InvalidArgument when the graph has no nodes or a negatives' range leaves it.
  Status Check() const;
  std::string feature_name = "features";  // layer 0 input ("" = the embedding alone)
};

// Link prediction: batches of training edges, node batches for evaluation
// embeddings, and the held-out edges.
struct LinkInput {
  BatchProvider* edges = nullptr;
  BatchProvider* nodes = nullptr;
  std::vector<int64_t> train;  // this trainer's training edge ids
  EdgeList val, test;          // this trainer's share of the held-out edges
  // Rank 0 with save_embeddings: the nodes of the embeddings (`predict`, or
  // `embed` on a typed graph).
  NodeOutputRows outputs;
  LinkOptions link;
};

// Control variate: the store the trainer samples and keeps history in.
struct CvInput {
  CvStore* store = nullptr;
  BatchProvider* batches = nullptr;       // training batches of the fanouts (features and labels gathered)
  std::vector<int64_t> train, val, test;  // this trainer's shares
  std::vector<int64_t> predict;           // as NodeOutputRows::predict (save_predictions)
  std::string input;  // the store's node array of propagated input (cv_input)
};

// Historical rows: node classification's input, and the store the trainer
// samples through (sampling in this process) and keeps the rows in.
struct HistoricalInput {
  NodeInput nodes;  // evaluation and outputs, as the node task's
  CvStore* store = nullptr;
  int sampler_threads = 1;  // threads sampling the layers above the historical ones
};

class GraphSource {
 public:
  virtual ~GraphSource() = default;
  virtual Result<NodeInput> Nodes() = 0;
  virtual Result<LinkInput> Links() = 0;
  virtual Result<CvInput> ControlVariate() = 0;
  virtual Result<HistoricalInput> Historical() = 0;
  // Bytes this trainer's input moved so far (each epoch line's
  // bytes_per_step); null when the bytes are not this process's to count.
  virtual std::function<uint64_t()> NetworkBytes() = 0;
};

}  // namespace dg
