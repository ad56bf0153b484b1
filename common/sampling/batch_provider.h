// BatchProvider: where a Trainer's mini-batches come from, epoch by epoch.
//
// The trainer calls BeginEpoch with its share of the seeds and how to cut and
// sample them, then Next() until it returns false. Batches arrive in batch-index
// order. LocalBatchProvider samples in-process from a NeighborSource with
// worker threads that run ahead of the trainer (bounded prefetch), so sampling
// and feature gathering overlap compute. The sampler role provides a
// remote implementation fed by MINIBATCH frames. BatchPrefetcher is the
// worker-thread plumbing of the in-process providers (LocalBatchProvider,
// LinkBatchProvider in edge_batch.h). Torch-free.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "common/sampling/minibatch.h"
#include "common/base/status.h"

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
  // Link prediction: seeds are training edge ids and batches are
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

// An in-process provider's epochs: Begin stops the running epoch (joins its
// workers, drops its unread batches), checks the request (batch size > 0,
// fanouts given, offset >= 0, stride >= 1), orders its seeds (EpochOrder) and
// starts `workers` threads. Of the batches this provider makes, j = 0, 1, ...
// (epoch batch offset + j * stride), worker w makes j = w, w + W, ... by
// calling make_batch(epoch batch index, its seeds), waiting while it would
// run more than `prefetch` batches ahead of the consumer; make_batch runs on
// several threads at once. Next hands the batches (or make_batch's error) out
// in order, false once done. Begin and Next are for one consumer thread.
class BatchPrefetcher {
 public:
  using MakeBatch = std::function<Result<MiniBatch>(int64_t batch_index, const std::vector<int64_t>& seeds)>;

  // workers and prefetch below 1 count as 1.
  BatchPrefetcher(int workers, int prefetch);
  ~BatchPrefetcher();

  Status Begin(const EpochRequest& request, MakeBatch make_batch);
  Result<bool> Next(MiniBatch* out);

 private:
  void Stop();
  void WorkerLoop(int worker);

  const int num_workers_, prefetch_;
  MakeBatch make_batch_;
  std::vector<int64_t> order_;
  int64_t batch_size_ = 0, batch_offset_ = 0, batch_stride_ = 1;
  int64_t num_owned_ = 0;  // batches of the epoch made by this provider
  int64_t next_ = 0;       // position among the owned batches

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, Result<MiniBatch>> ready_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

class LocalBatchProvider : public BatchProvider {
 public:
  // `source` must outlive the provider; `workers` sampling threads, at most
  // `prefetch` finished batches waiting.
  LocalBatchProvider(NeighborSource* source, int workers = 1, int prefetch = 4,
                     std::string feature_name = "features", std::string label_name = "labels");

  Status BeginEpoch(const EpochRequest& request) override;
  Result<bool> Next(MiniBatch* out) override;

 private:
  NeighborSource* source_;
  const std::string feature_name_, label_name_;
  BatchPrefetcher batches_;  // last: destroyed (its workers joined) first
};

}  // namespace dg
