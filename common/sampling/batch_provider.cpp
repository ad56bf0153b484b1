#include "common/sampling/batch_provider.h"

namespace dg {

LocalBatchProvider::LocalBatchProvider(NeighborSource* source, int workers, int prefetch,
                                       std::string feature_name, std::string label_name)
    : source_(source),
      num_workers_(workers < 1 ? 1 : workers),
      prefetch_(prefetch < 1 ? 1 : prefetch),
      feature_name_(std::move(feature_name)),
      label_name_(std::move(label_name)) {}

LocalBatchProvider::~LocalBatchProvider() { Stop(); }

void LocalBatchProvider::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  ready_.clear();
  stop_ = false;
}

Status LocalBatchProvider::BeginEpoch(const EpochRequest& request) {
  Stop();
  if (request.batch_size <= 0)
    return Status::InvalidArgument("batch size must be > 0, got " + std::to_string(request.batch_size));
  if (request.fanouts.empty()) return Status::InvalidArgument("fanouts: empty (need one per layer)");
  if (request.batch_stride < 1 || request.batch_offset < 0)
    return Status::InvalidArgument("batch share: offset must be >= 0 and stride >= 1");
  request_ = request;
  order_ = EpochOrder(request.seeds, request.shuffle, request.job_seed, request.epoch);
  num_batches_ = NumBatches(static_cast<int64_t>(order_.size()), request.batch_size);
  num_owned_ = num_batches_ > request.batch_offset
                   ? (num_batches_ - request.batch_offset + request.batch_stride - 1) / request.batch_stride
                   : 0;
  next_ = 0;
  for (int w = 0; w < num_workers_; ++w) threads_.emplace_back([this, w] { WorkerLoop(w); });
  return Status::OK();
}

// Worker w builds owned batches j = w, w + W, w + 2W, ... (epoch batch
// offset + j * stride); it waits while it would run more than `prefetch`
// batches ahead of the consumer.
void LocalBatchProvider::WorkerLoop(int worker) {
  MiniBatchOptions opts;
  opts.fanouts = request_.fanouts;
  opts.replace = request_.replace;
  opts.feature_name = feature_name_;
  opts.label_name = request_.labels ? label_name_ : "";
  for (int64_t j = worker; j < num_owned_; j += num_workers_) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || j < next_ + prefetch_; });
      if (stop_) return;
    }
    const int64_t b = request_.batch_offset + j * request_.batch_stride;
    Result<MiniBatch> mb = SampleMiniBatch(source_, BatchSeeds(order_, request_.batch_size, b),
                                           opts, request_.job_seed, request_.epoch, b);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.emplace(j, std::move(mb));
    }
    cv_.notify_all();
  }
}

Result<bool> LocalBatchProvider::Next(MiniBatch* out) {
  if (next_ >= num_owned_) return false;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return ready_.count(next_) > 0; });
  auto it = ready_.find(next_);
  Result<MiniBatch> mb = std::move(it->second);
  ready_.erase(it);
  ++next_;
  lock.unlock();
  cv_.notify_all();
  if (!mb.ok()) return mb.status();
  *out = std::move(mb).value();
  return true;
}

}  // namespace dg
