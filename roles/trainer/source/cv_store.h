// CvStore: what the tasks that keep rows of past steps -- control variate
// (roles/trainer/tasks/cv_task.h) and historical rows
// (roles/trainer/tasks/historical_task.h) -- read and write, in-process
// (train-local) or on the graph servers.
//
//   source()       sampling and node arrays (features, labels, the propagated
//                  input), as for plain neighbour sampling
//   Remote         whether a node's data lives on another machine
//   InitHistory    a float32 [N, dim] zero tensor per layer (DistTensor
//                  INIT_TENSOR on the servers; a heap array in-process)
//   Pull / Push    rows of a history tensor (PUSH overwrite)
//   AggregateSum   per id: the sum of a history tensor over the id's full
//                  in-neighbourhood and the in-degree (PULL_AGGREGATE on the
//                  servers: partial sums where the rows live)
//   InDegrees      full in-degrees
//   SampleWithBlockInput  layers sampled with block 0 aggregated where the
//                  features live (a job whose input path aggregates; the
//                  others: aggregates() is false)
//   SampleBlock0WithHistory  the same for block 0, with a history tensor's
//                  rows read in its round trips (aggregates() only)
//   AggregateEmbedding  AggregateSum of the learnt rows (node_embedding.h), with
//                  the weight decay they owe: PULL_AGGREGATE of the servers'
//                  table, or the rows of every in-neighbour read in process
// bytes(): for DistCvStore the socket bytes of the client (frames sent and
// received, as plain sampling's bytes_per_step); for LocalCvStore the payload
// bytes the calls would move with one partition (ids sent + rows/edges/counts
// returned), a logical figure.
// Torch-free. Reads may run concurrently (the trainer issues a batch's reads
// at once); InitHistory and Push must not overlap reads of the same tensor.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/client/block_input.h"
#include "common/client/dist_graph_client.h"
#include "common/storage/node_embedding.h"
#include "common/sampling/minibatch.h"
#include "common/sampling/in_memory_graph.h"
#include "common/base/status.h"

namespace dg {

class CvStore {
 public:
  virtual ~CvStore() = default;
  virtual NeighborSource* source() = 0;
  virtual int64_t num_nodes() const = 0;
  // Whether node `id` lives on another machine's partition (train-local: every
  // node, so that historical rows are tried wherever a job could try them).
  virtual bool Remote(int64_t id) const = 0;
  virtual Status InitHistory(const std::string& name, int64_t dim) = 0;
  virtual Result<Array> Pull(const std::string& name, const std::vector<int64_t>& ids) = 0;
  virtual Status Push(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) = 0;
  virtual Result<Array> AggregateSum(const std::string& name, const std::vector<int64_t>& ids,
                                     std::vector<int64_t>* degrees) = 0;
  virtual Result<std::vector<int64_t>> InDegrees(const std::vector<int64_t>& ids) = 0;
  // `name`: the table's name on the servers (train.embedding.name).
  virtual Result<Array> AggregateEmbedding(NodeEmbedding* embedding, const std::string& name,
                                           const std::vector<int64_t>& ids, std::vector<int64_t>* degrees) = 0;
  // Samples layers fanouts.size() - 1 down to `lowest_layer` through source()
  // (SampleBlocksDownTo), counting bytes; input_nodes = the lowest block's
  // sources; no gathers.
  Result<MiniBatch> SampleLayers(const std::vector<int64_t>& seeds, const MiniBatchOptions& o, uint64_t job_seed,
                                 int64_t epoch, int64_t batch, int lowest_layer);
  // Samples and gathers through source(), counting bytes.
  Result<MiniBatch> Sample(const std::vector<int64_t>& seeds, const MiniBatchOptions& o, uint64_t job_seed,
                           int64_t epoch, int64_t batch);
  Result<Array> Gather(const std::string& name, const std::vector<int64_t>& ids);
  // Whether SampleWithBlockInput serves: the job's input path aggregates block 0.
  virtual bool aggregates() const { return false; }
  // Layers 0 .. o.fanouts.size()-1 of `seeds`' neighbourhoods, block 0
  // aggregated where the features live (common/client/block_input.h): the
  // batch's features are block 0's destinations' rows, input_neigh_mean their
  // sampled sources' means.
  virtual Result<MiniBatch> SampleWithBlockInput(const std::vector<int64_t>& /*seeds*/, const MiniBatchOptions& /*o*/,
                                                 uint64_t /*job_seed*/, int64_t /*epoch*/, int64_t /*batch*/) {
    return Status::Internal("SampleWithBlockInput: this store does not aggregate block 0");
  }
  // Block 0 of `dst` aggregated where the features live with stored rows of
  // history tensor read.ask.name in the same round trips (SampleBlock0WithHistory,
  // common/client/block_input.h): the batch covers the misses.
  virtual Result<MiniBatch> SampleBlock0WithHistory(const std::vector<int64_t>& /*dst*/,
                                                    const MiniBatchOptions& /*o*/, uint64_t /*job_seed*/,
                                                    int64_t /*epoch*/, int64_t /*batch*/,
                                                    const BlockHistoryRead& /*read*/, BlockHistoryHits* /*hits*/) {
    return Status::Internal("SampleBlock0WithHistory: this store does not aggregate block 0");
  }
  virtual int64_t bytes() const { return bytes_; }
  // A step checkpoint of the history tensors held here (files in `dir`, one
  // .npy per tensor), and its load; none for the servers' (their CHECKPOINT
  // holds them).
  virtual Status SaveHistory(const std::string& /*dir*/) { return Status::OK(); }
  virtual Status LoadHistory(const std::string& /*dir*/) { return Status::OK(); }
  // A node array served by Gather in place of source()'s (train-local's
  // in-process propagated input).
  void AddArray(const std::string& name, Array array) { extra_[name] = std::move(array); }

 protected:
  std::atomic<int64_t> bytes_{0};
  std::map<std::string, Array> extra_;
};

// train-local: the whole graph in memory; history tensors on the heap.
class LocalCvStore : public CvStore {
 public:
  explicit LocalCvStore(InMemoryGraph* graph) : graph_(graph) {}
  NeighborSource* source() override { return graph_; }
  int64_t num_nodes() const override { return graph_->num_nodes(); }
  bool Remote(int64_t /*id*/) const override { return true; }
  Status InitHistory(const std::string& name, int64_t dim) override;
  Result<Array> Pull(const std::string& name, const std::vector<int64_t>& ids) override;
  Status Push(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) override;
  Result<Array> AggregateSum(const std::string& name, const std::vector<int64_t>& ids,
                             std::vector<int64_t>* degrees) override;
  Result<std::vector<int64_t>> InDegrees(const std::vector<int64_t>& ids) override;
  Result<Array> AggregateEmbedding(NodeEmbedding* embedding, const std::string& name, const std::vector<int64_t>& ids,
                                   std::vector<int64_t>* degrees) override;
  Status SaveHistory(const std::string& dir) override;
  Status LoadHistory(const std::string& dir) override;

 private:
  Result<Array*> Find(const std::string& what, const std::string& name);
  InMemoryGraph* graph_;
  std::map<std::string, Array> history_;
};

// Distributed: DistTensors and PULL_AGGREGATE on the servers.
class DistCvStore : public CvStore {
 public:
  // block_input: the job's input path when it aggregates block 0 (null: rows are pulled).
  DistCvStore(DistGraphClient* client, NeighborSource* source, const BlockInputOptions* block_input = nullptr)
      : client_(client), source_(source), block_input_(block_input ? *block_input : BlockInputOptions()),
        aggregates_(block_input != nullptr) {}
  NeighborSource* source() override { return source_; }
  int64_t num_nodes() const override { return client_->num_nodes(); }
  bool Remote(int64_t id) const override { return !client_->is_local(client_->book().Owner(id)); }
  Status InitHistory(const std::string& name, int64_t dim) override;
  Result<Array> Pull(const std::string& name, const std::vector<int64_t>& ids) override;
  Status Push(const std::string& name, const std::vector<int64_t>& ids, const Array& rows) override;
  Result<Array> AggregateSum(const std::string& name, const std::vector<int64_t>& ids,
                             std::vector<int64_t>* degrees) override;
  Result<std::vector<int64_t>> InDegrees(const std::vector<int64_t>& ids) override;
  Result<Array> AggregateEmbedding(NodeEmbedding* embedding, const std::string& name, const std::vector<int64_t>& ids,
                                   std::vector<int64_t>* degrees) override;
  bool aggregates() const override { return aggregates_; }
  Result<MiniBatch> SampleWithBlockInput(const std::vector<int64_t>& seeds, const MiniBatchOptions& o,
                                         uint64_t job_seed, int64_t epoch, int64_t batch) override;
  Result<MiniBatch> SampleBlock0WithHistory(const std::vector<int64_t>& dst, const MiniBatchOptions& o,
                                            uint64_t job_seed, int64_t epoch, int64_t batch,
                                            const BlockHistoryRead& read, BlockHistoryHits* hits) override;
  // The real socket bytes of the client (what plain sampling reports too).
  int64_t bytes() const override { return static_cast<int64_t>(client_->network_bytes()); }

 private:
  DistGraphClient* client_;
  NeighborSource* source_;
  BlockInputOptions block_input_;
  bool aggregates_;
};

// Mean of node array `input` over each node's in-neighbours (0 without any):
// the propagated input Â X (`propagate --hops 1 --norm mean`) computed in
// process for train-local. float32 [N, F].
Result<Array> MeanOverInNeighbours(const InMemoryGraph& graph, const Array& input);

}  // namespace dg
