#include "common/sampling/edge_batch.h"

#include <algorithm>
#include <chrono>

#include "common/sampling/id_map.h"
#include "common/sampling/neighbor_sampling.h"

namespace dg {

void EdgeTable::AddCsr(int64_t first_edge, int64_t first_node, const int64_t* indptr, int64_t rows,
                       const int64_t* indices) {
  Range r;
  r.first = first_edge;
  const int64_t base = indptr[0], n = indptr[rows] - base;
  r.src.assign(indices + base, indices + base + n);
  r.dst.resize(static_cast<size_t>(n));
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) r.dst[e - base] = first_node + row;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), first_edge,
                             [](int64_t v, const Range& x) { return v < x.first; });
  ranges_.insert(it, std::move(r));
}

Status EdgeTable::Pair(int64_t gid, int64_t* src, int64_t* dst) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), gid,
                             [](int64_t v, const Range& x) { return v < x.first; });
  if (it != ranges_.begin()) {
    --it;
    const int64_t k = gid - it->first;
    if (k < static_cast<int64_t>(it->src.size())) {
      *src = it->src[k];
      *dst = it->dst[k];
      return Status::OK();
    }
  }
  return Status::InvalidArgument("edge id " + std::to_string(gid) + " is not in this process's edge table");
}

int64_t EdgeTable::num_edges() const {
  int64_t n = 0;
  for (const auto& r : ranges_) n += static_cast<int64_t>(r.src.size());
  return n;
}

std::vector<int64_t> EdgeTable::EdgeIds() const {
  std::vector<int64_t> ids;
  for (const auto& r : ranges_)
    for (size_t k = 0; k < r.src.size(); ++k) ids.push_back(r.first + static_cast<int64_t>(k));
  return ids;
}

ExcludingSource::ExcludingSource(NeighborSource* inner, std::vector<std::pair<int64_t, int64_t>> pairs)
    : inner_(inner), pairs_(std::move(pairs)) {
  std::sort(pairs_.begin(), pairs_.end());
  pairs_.erase(std::unique(pairs_.begin(), pairs_.end()), pairs_.end());
}

Status ExcludingSource::SampleNeighbors(const std::vector<int64_t>& seeds, int fanout, bool replace,
                                        uint64_t seed, SampledNeighbors* out) {
  DG_RETURN_IF_ERROR(inner_->SampleNeighbors(seeds, fanout, replace, seed, out));
  if (pairs_.empty()) return Status::OK();
  int64_t w = 0;
  for (size_t i = 0; i < seeds.size(); ++i) {
    const int64_t begin = out->indptr[i], end = out->indptr[i + 1];
    out->indptr[i] = w;
    for (int64_t e = begin; e < end; ++e) {
      const int64_t s = out->sources[e];
      if (std::binary_search(pairs_.begin(), pairs_.end(), std::make_pair(s, seeds[i]))) {
        ++dropped_;
        continue;
      }
      out->sources[w++] = s;
    }
  }
  out->indptr[seeds.size()] = w;
  out->sources.resize(static_cast<size_t>(w));
  return Status::OK();
}

Result<MiniBatch> SampleLinkBatch(NeighborSource* source, const std::vector<int64_t>& pos_src,
                                  const std::vector<int64_t>& pos_dst, const LinkBatchOptions& options,
                                  uint64_t job_seed, int64_t epoch, int64_t batch_index) {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  if (pos_src.size() != pos_dst.size()) return Status::InvalidArgument("link batch: src and dst differ in length");
  if (options.negatives < 0) return Status::InvalidArgument("negative.k must be >= 0");
  if (options.negatives > 0 && !options.sampler) return Status::InvalidArgument("link batch: no negative sampler");
  const int64_t P = static_cast<int64_t>(pos_src.size()), K = options.negatives;
  std::vector<int64_t> neg(static_cast<size_t>(P * K));
  Rng rng(SamplingSeed(job_seed, epoch, batch_index, 15));
  for (auto& v : neg) v = options.sampler->Draw(rng);
  // Seeds: distinct endpoints in order of first appearance.
  std::vector<int64_t> seeds;
  IdMap pos_of(static_cast<size_t>(2 * P + P * K));
  bool inserted = false;
  auto position = [&](int64_t gid) {
    const int64_t at = pos_of.Insert(gid, static_cast<int64_t>(seeds.size()), &inserted);
    if (inserted) seeds.push_back(gid);
    return at;
  };
  Array labels = Array::Zeros(DType::kInt64, {P * (1 + K), 3});
  int64_t* l = labels.as<int64_t>();
  std::vector<int64_t> src_pos(P);
  for (int64_t i = 0; i < P; ++i) src_pos[i] = position(pos_src[i]);
  for (int64_t i = 0; i < P; ++i) {
    l[3 * i] = src_pos[i];
    l[3 * i + 1] = position(pos_dst[i]);
    l[3 * i + 2] = 1;
  }
  for (int64_t i = 0; i < P; ++i)
    for (int64_t j = 0; j < K; ++j) {
      int64_t* row = l + 3 * (P + i * K + j);
      row[0] = src_pos[i];
      row[1] = position(neg[i * K + j]);
      row[2] = 0;
    }
  std::vector<std::pair<int64_t, int64_t>> excluded;
  if (options.exclude) {
    excluded.reserve(static_cast<size_t>(P * (options.exclude_reverse ? 2 : 1)));
    for (int64_t i = 0; i < P; ++i) {
      excluded.emplace_back(pos_src[i], pos_dst[i]);
      if (options.exclude_reverse) excluded.emplace_back(pos_dst[i], pos_src[i]);
    }
  }
  ExcludingSource filtered(source, std::move(excluded));
  MiniBatchOptions mo;
  mo.fanouts = options.fanouts;
  mo.replace = options.replace;
  mo.feature_name = options.feature_name;
  mo.label_name = "";
  DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(&filtered, seeds, mo, job_seed, epoch, batch_index));
  mb.labels = std::move(labels);
  mb.sample_seconds = std::chrono::duration<double>(Clock::now() - t0).count() - mb.gather_seconds;
  return mb;
}

LinkBatchProvider::LinkBatchProvider(NeighborSource* source, const EdgeTable* edges, LinkBatchOptions options,
                                     int workers, int prefetch)
    : source_(source),
      edges_(edges),
      options_(std::move(options)),
      num_workers_(workers < 1 ? 1 : workers),
      prefetch_(prefetch < 1 ? 1 : prefetch) {}

LinkBatchProvider::~LinkBatchProvider() { Stop(); }

void LinkBatchProvider::Stop() {
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

Status LinkBatchProvider::BeginEpoch(const EpochRequest& request) {
  Stop();
  if (request.batch_size <= 0)
    return Status::InvalidArgument("batch size must be > 0, got " + std::to_string(request.batch_size));
  if (request.fanouts.empty()) return Status::InvalidArgument("fanouts: empty (need one per layer)");
  if (request.batch_stride < 1 || request.batch_offset < 0)
    return Status::InvalidArgument("batch share: offset must be >= 0 and stride >= 1");
  request_ = request;
  order_ = EpochOrder(request.seeds, request.shuffle, request.job_seed, request.epoch);
  const int64_t nb = NumBatches(static_cast<int64_t>(order_.size()), request.batch_size);
  num_owned_ = nb > request.batch_offset ? (nb - request.batch_offset + request.batch_stride - 1) / request.batch_stride
                                         : 0;
  next_ = 0;
  for (int w = 0; w < num_workers_; ++w) threads_.emplace_back([this, w] { WorkerLoop(w); });
  return Status::OK();
}

void LinkBatchProvider::WorkerLoop(int worker) {
  LinkBatchOptions opts = options_;
  opts.fanouts = request_.fanouts;
  opts.replace = request_.replace;
  for (int64_t j = worker; j < num_owned_; j += num_workers_) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || j < next_ + prefetch_; });
      if (stop_) return;
    }
    const int64_t b = request_.batch_offset + j * request_.batch_stride;
    const std::vector<int64_t> ids = BatchSeeds(order_, request_.batch_size, b);
    std::vector<int64_t> src(ids.size()), dst(ids.size());
    Status st;
    for (size_t i = 0; i < ids.size() && st.ok(); ++i) st = edges_->Pair(ids[i], &src[i], &dst[i]);
    Result<MiniBatch> mb = st.ok() ? SampleLinkBatch(source_, src, dst, opts, request_.job_seed, request_.epoch, b)
                                   : Result<MiniBatch>(st);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.emplace(j, std::move(mb));
    }
    cv_.notify_all();
  }
}

Result<bool> LinkBatchProvider::Next(MiniBatch* out) {
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
