// HistoricalTask: node classification with historical rows of remote nodes
// (`train.historical: {layers: [k, ...], max_age_steps: K}`, train-local
// `--historical-layers`, `--historical-max-age`), a task of the epoch loop
// (roles/trainer/loop/epoch_task.h). The idea is GNNAutoScale's (Fey et al.,
// 2021) and DistGNN-MB's (2022): a row computed a few steps ago stands in for
// a node's neighbourhood below a layer.
//
// For each historical layer k (1 <= k < L), the rows entering layer k (layer
// k-1's output) of the nodes a batch only reads -- not its seeds, and on
// another machine (CvStore::Remote; in train-local every node) -- come from a
// history tensor when the step that wrote them is at most K steps before this
// one. Only the other nodes' neighbourhoods below layer k are sampled and only
// their rows pulled: that is what saves bytes.
//
// A training batch: layers L-1 .. k_top are sampled from the seeds ahead of
// the step in worker threads (they depend only on the seeds, as the node
// task's batches do). At the step, for k = k_top .. k_1: the history rows of
// V_k's candidates are read (one PULL), the others ("misses") are sampled down
// to the next historical layer (or 0) with the node task's per-layer sampling
// seeds, and the lowest nodes' features gathered. So with no hit (K = 0) the
// batch, and every number of the run, is the node task's.
// The forward runs bottom-up with the model's forward_layer: at layer k the
// misses' computed rows and the hits' stored rows (constants) make V_k's rows;
// the misses' rows, detached, are pushed with this step (PUSH overwrite).
// In a job whose input path aggregates block 0 (train.input_aggregation) and
// with a model offering forward_layer_agg, the lowest misses' block 0 is
// aggregated at the servers as the node task's is (SampleWithBlockInput), and
// layer 0 runs through forward_layer_agg. When that lowest historical layer
// is 1, V_1 is block 0's destinations: one SAMPLE_BLOCK per partition both
// answers the hits with their stored rows (the servers check the ages) and
// samples and sums the misses' block 0 (SampleBlock0WithHistory), so stored
// rows cost no round trip of their own.
//
// The store (history tensor hist_k: float32 [N, width + 2], the row, then the
// int64 step + 1 that wrote it, 0 = never) is the servers' DistTensors in a
// job, whose CHECKPOINT holds them, and a heap array in train-local, saved in
// the step directory (SaveState). With one trainer a run is deterministic and
// a resumed run bit-identical; with several, a step may or may not see the
// rows another trainer pushes in the same step.
// Evaluation and outputs are the node task's: exact, never a stored row.
// Each epoch line adds "historical": this trainer's rows looked up and hits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/sampling/batch_provider.h"
#include "roles/trainer/tasks/node_task.h"

namespace dg {

class CvStore;

class HistoricalTask : public NodeTask {
 public:
  // Loads the model (it must offer forward_layer) and creates the history
  // tensors (widths from one forward).
  static Result<std::unique_ptr<HistoricalTask>> Create(const TrainSpec& spec, const TrainHooks& hooks,
                                                        HistoricalInput input);

  int64_t kind() const override { return 3; }
  const char* name() const override { return "node classification with historical rows"; }
  Result<int64_t> BeginEpoch(int64_t epoch) override;
  Result<bool> NextBatch(bool skip, StepSplit* split) override;
  Result<BatchLoss> Loss() override;
  std::string EpochJson(const EpochStats& st) const override;
  Status SaveState(const std::string& dir) override;
  Status LoadState(const std::string& dir) override;

  // One historical layer of a batch: V_k's nodes split into the rows read
  // (hits) and the rows computed (misses), and the misses' batch below.
  struct Level {
    std::vector<int64_t> hit_pos, miss_pos, miss_ids;  // positions in V_k; the misses' ids
    Array hit_rows;                                    // float32 [hits, width]
    MiniBatch below;                                   // blocks of layers [lower level, k) for the misses
    bool aggregated = false;  // the lowest level: block 0 aggregated at the servers (below.features = x_dst)
  };

 private:
  HistoricalTask(const TrainSpec& spec, const TrainHooks& hooks, HistoricalInput input);
  MiniBatchOptions Options(int layers) const;
  Status InitHistory();
  std::string History(int k) const { return "hist_h" + std::to_string(k); }
  // Reads V_k's candidates' rows and splits V_k (the batch's seeds never hit).
  Status Lookup(int k, const std::vector<int64_t>& nodes, int64_t step, Level* level);
  // Lookup and the misses' aggregated block 0 in one set of round trips (the
  // servers check the ages): the lowest level when it is layer 1.
  Status LookupWithBlock0(const std::vector<int64_t>& nodes, int64_t step, Level* level);
  // Per node of V_k: may a stored row stand in (not a seed; remote unless nodes: all).
  std::vector<char> Candidates(const std::vector<int64_t>& nodes) const;
  Status PushRows(int k, const std::vector<int64_t>& ids, const torch::Tensor& rows, int64_t step);
  Result<torch::Tensor> LowestRows(const Level& lowest, const std::vector<int64_t>& nodes);

  CvStore* store_;
  BatchPrefetcher upper_;  // layers L-1 .. k_top of each batch, and its labels
  MiniBatch mb_;
  std::vector<Level> levels_;  // of mb_
  int64_t epoch_ = 0, batches_ = 0;
  std::vector<int64_t> sorted_seeds_;  // of mb_
  std::vector<int64_t> widths_;        // per historical layer
  int64_t lookups_ = 0, hits_ = 0;     // this epoch
  bool aggregate_ = false;             // the store aggregates block 0 and the model has forward_layer_agg
};

}  // namespace dg
