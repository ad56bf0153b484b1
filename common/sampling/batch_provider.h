// BatchProvider: where a Trainer's mini-batches come from, epoch by epoch.
//
// The trainer calls BeginEpoch with its share of the seeds and how to cut and
// sample them, then Next() until it returns false. Batches arrive in batch-index
// order. LocalBatchProvider samples in-process from a NeighborSource with
// worker threads that run ahead of the trainer (bounded prefetch), so sampling
// and feature gathering overlap compute. The sampler role (issue 5) provides a
// remote implementation fed by MINIBATCH frames. Torch-free.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "common/sampling/minibatch.h"
#include "common/status.h"

namespace dg {

struct EpochRequest {
  int64_t epoch = 0;
  std::vector<int64_t> seeds;   // this trainer's seeds for the epoch
  int64_t batch_size = 1000;
  bool shuffle = true;          // shuffle with MixSeed(job_seed, epoch)
  std::vector<int> fanouts;     // per layer; -1 = full neighbors
  bool replace = false;
  bool labels = true;           // gather labels of the seeds
  uint64_t job_seed = 0;
  // The batches this provider makes: batch_offset, batch_offset + batch_stride,
  // ... of the epoch (a sampler's share; batch content never depends on it).
  int64_t batch_offset = 0;
  int64_t batch_stride = 1;
  // Link prediction (issue 14): seeds are training edge ids and batches are
  // link batches (common/sampling/edge_batch.h); false = node batches.
  bool link = false;
};

class BatchProvider {
 public:
  virtual ~BatchProvider() = default;
  virtual Status BeginEpoch(const EpochRequest& request) = 0;
  // The next batch of the epoch (of this provider's share); false once done.
  virtual Result<bool> Next(MiniBatch* out) = 0;
};

class LocalBatchProvider : public BatchProvider {
 public:
  // `source` must outlive the provider; `workers` sampling threads, at most
  // `prefetch` finished batches waiting.
  LocalBatchProvider(NeighborSource* source, int workers = 1, int prefetch = 4,
                     std::string feature_name = "features", std::string label_name = "labels");
  ~LocalBatchProvider() override;

  Status BeginEpoch(const EpochRequest& request) override;
  Result<bool> Next(MiniBatch* out) override;

 private:
  void Stop();
  void WorkerLoop(int worker);

  NeighborSource* source_;
  const int num_workers_, prefetch_;
  const std::string feature_name_, label_name_;
  EpochRequest request_;
  std::vector<int64_t> order_;
  int64_t num_batches_ = 0;  // in the whole epoch
  int64_t num_owned_ = 0;    // of them, made by this provider
  int64_t next_ = 0;         // position among the owned batches

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, Result<MiniBatch>> ready_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace dg
