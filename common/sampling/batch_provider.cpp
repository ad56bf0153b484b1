#include "common/sampling/batch_provider.h"

namespace dg {

BatchPrefetcher::BatchPrefetcher(int workers, int prefetch)
    : num_workers_(workers < 1 ? 1 : workers), prefetch_(prefetch < 1 ? 1 : prefetch) {}

BatchPrefetcher::~BatchPrefetcher() { Stop(); }

void BatchPrefetcher::Stop() {
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

Status BatchPrefetcher::Begin(const EpochRequest& request, MakeBatch make_batch) {
  Stop();
  if (request.batch_size <= 0)
    return Status::InvalidArgument("batch size must be > 0, got " + std::to_string(request.batch_size));
  if (request.fanouts.empty()) return Status::InvalidArgument("fanouts: empty (need one per layer)");
  if (request.batch_stride < 1 || request.batch_offset < 0)
    return Status::InvalidArgument("batch share: offset must be >= 0 and stride >= 1");
  make_batch_ = std::move(make_batch);
  order_ = EpochOrder(request.seeds, request.shuffle, request.job_seed, request.epoch);
  batch_size_ = request.batch_size;
  batch_offset_ = request.batch_offset;
  batch_stride_ = request.batch_stride;
  const int64_t num_batches = NumBatches(static_cast<int64_t>(order_.size()), batch_size_);  // whole epoch
  num_owned_ = num_batches > batch_offset_ ? (num_batches - batch_offset_ + batch_stride_ - 1) / batch_stride_ : 0;
  next_ = 0;
  for (int w = 0; w < num_workers_; ++w) threads_.emplace_back([this, w] { WorkerLoop(w); });
  return Status::OK();
}

void BatchPrefetcher::WorkerLoop(int worker) {
  for (int64_t j = worker; j < num_owned_; j += num_workers_) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || j < next_ + prefetch_; });
      if (stop_) return;
    }
    const int64_t b = batch_offset_ + j * batch_stride_;
    Result<MiniBatch> mb = make_batch_(b, BatchSeeds(order_, batch_size_, b));
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.emplace(j, std::move(mb));
    }
    cv_.notify_all();
  }
}

Result<bool> BatchPrefetcher::Next(MiniBatch* out) {
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

LocalBatchProvider::LocalBatchProvider(NeighborSource* source, int workers, int prefetch,
                                       std::string feature_name, std::string label_name)
    : source_(source),
      feature_name_(std::move(feature_name)),
      label_name_(std::move(label_name)),
      batches_(workers, prefetch) {}

Status LocalBatchProvider::BeginEpoch(const EpochRequest& request) {
  MiniBatchOptions opts;
  opts.fanouts = request.fanouts;
  opts.replace = request.replace;
  opts.feature_name = feature_name_;
  opts.label_name = request.labels ? label_name_ : "";
  opts.owner_offsets = source_->owner_offsets();
  return batches_.Begin(request, [this, opts, job_seed = request.job_seed, epoch = request.epoch](
                                     int64_t b, const std::vector<int64_t>& seeds) {
    return SampleMiniBatch(source_, seeds, opts, job_seed, epoch, b);
  });
}

Result<bool> LocalBatchProvider::Next(MiniBatch* out) { return batches_.Next(out); }

}  // namespace dg
