#include "common/client/feature_cache.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/client/dist_graph_client.h"

namespace dg {

FeatureCache::FeatureCache(std::string name, int64_t num_nodes, std::vector<int64_t> ids, Array rows)
    : name_(std::move(name)),
      ids_(std::move(ids)),
      rows_(std::move(rows)),
      cols_(rows_.shape.size() == 2 ? rows_.shape[1] : 0),
      present_(static_cast<size_t>(BitmapBytes(num_nodes) / 8), 0) {
  for (int64_t id : ids_) present_[id >> 6] |= uint64_t(1) << (id & 63);
}

const float* FeatureCache::Find(int64_t id) const {
  if (id < 0 || (id >> 6) >= static_cast<int64_t>(present_.size()) || !((present_[id >> 6] >> (id & 63)) & 1))
    return nullptr;
  auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it == ids_.end() || *it != id) return nullptr;
  return rows_.as<float>() + (it - ids_.begin()) * cols_;
}

FeatureCacheStats FeatureCache::stats() const {
  FeatureCacheStats s;
  s.rows = size();
  s.bytes = bytes();
  s.hits = hits_.load(std::memory_order_relaxed);
  s.misses = misses_.load(std::memory_order_relaxed);
  s.bytes_saved = bytes_saved_.load(std::memory_order_relaxed);
  return s;
}

Result<std::shared_ptr<const FeatureCache>> BuildFeatureCache(DistGraphClient* client, const std::string& name,
                                                              int64_t budget_bytes) {
  const PartitionConfig& config = client->config();
  auto info = config.node_data.find(name);
  if (info == config.node_data.end() || info->second.dtype != DType::kFloat32 || info->second.shape.size() != 2)
    return Status::InvalidArgument("train.feature_cache_mb: " + config.path + " has no float32 [N, F] node array '" +
                                   name + "' to cache");
  const int64_t F = info->second.shape[1];
  const int64_t fit = FeatureCache::RowsThatFit(budget_bytes, F, config.num_nodes);
  std::vector<int64_t> remote;
  for (int p = 0; p < config.num_parts && fit > 0; ++p) {
    if (client->is_local(p)) continue;
    for (int64_t v = config.node_map[p]; v < config.node_map[p + 1]; ++v) remote.push_back(v);
  }
  if (fit <= 0 || remote.empty()) return std::shared_ptr<const FeatureCache>();
  std::vector<int64_t> deg;  // in requests of at most 1M ids
  for (size_t a = 0; a < remote.size(); a += size_t(1) << 20) {
    const size_t b = std::min(remote.size(), a + (size_t(1) << 20));
    DG_ASSIGN_OR_RETURN(std::vector<int64_t> d,
                        client->InDegrees(std::vector<int64_t>(remote.begin() + a, remote.begin() + b)));
    deg.insert(deg.end(), d.begin(), d.end());
  }
  std::vector<int64_t> order(remote.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  const size_t k = static_cast<size_t>(std::min<int64_t>(fit, static_cast<int64_t>(remote.size())));
  // Largest degree first; ties by smaller id (remote is in id order).
  std::nth_element(order.begin(), order.begin() + (k - 1), order.end(), [&](int64_t a, int64_t b) {
    return deg[a] != deg[b] ? deg[a] > deg[b] : a < b;
  });
  std::vector<int64_t> ids(k);
  for (size_t i = 0; i < k; ++i) ids[i] = remote[order[i]];
  std::sort(ids.begin(), ids.end());
  DG_ASSIGN_OR_RETURN(Array rows, client->PullUncached(name, ids.data(), ids.size()));
  return std::make_shared<const FeatureCache>(name, config.num_nodes, std::move(ids), std::move(rows));
}

std::string FeatureCacheJson(const FeatureCacheStats& now, const FeatureCacheStats& before) {
  FeatureCacheStats d = now;
  d.hits -= before.hits;
  d.misses -= before.misses;
  d.bytes_saved -= before.bytes_saved;
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "\"feature_cache\": {\"rows\": %lld, \"mb\": %.3f, \"hits\": %llu, \"misses\": %llu, "
                "\"hit_rate\": %.6f, \"bytes_saved\": %llu}",
                static_cast<long long>(d.rows), d.bytes / 1048576.0, static_cast<unsigned long long>(d.hits),
                static_cast<unsigned long long>(d.misses), d.hit_rate(),
                static_cast<unsigned long long>(d.bytes_saved));
  return buf;
}

void WriteFeatureCacheMetrics(const FeatureCache& cache, int rank, PromText* out) {
  const FeatureCacheStats s = cache.stats();
  const PromText::Labels r{{"rank", std::to_string(rank)}};
  out->Gauge("distgnn_trainer_feature_cache_rows", "Remote feature rows held by the trainer's cache.", double(s.rows), r);
  out->Gauge("distgnn_trainer_feature_cache_bytes", "Memory of the trainer's feature cache.", double(s.bytes), r);
  out->Counter("distgnn_trainer_feature_cache_hits_total",
               "Remote rows and per-partition partial sums served by the feature cache.", double(s.hits), r);
  out->Counter("distgnn_trainer_feature_cache_misses_total",
               "Remote rows and per-partition partial sums that still travelled.", double(s.misses), r);
  out->Counter("distgnn_trainer_feature_cache_saved_bytes_total", "Feature bytes the cache kept off the wire.",
               double(s.bytes_saved), r);
}

Result<Array> PullThroughCache(const FeatureCache& cache, DistGraphClient* client, const int64_t* ids, size_t n) {
  const PartitionBook& book = client->book();
  const int64_t N = client->num_nodes(), F = cache.cols();
  std::vector<int64_t> miss_ids;
  std::vector<size_t> miss_pos;
  std::vector<std::pair<size_t, const float*>> hits;
  uint64_t remote_misses = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t id = ids[i];
    const bool remote = id >= 0 && id < N && !client->is_local(book.Owner(id));
    const float* row = remote ? cache.Find(id) : nullptr;
    if (row) {
      hits.emplace_back(i, row);
      continue;
    }
    remote_misses += remote;
    miss_ids.push_back(id);
    miss_pos.push_back(i);
  }
  cache.Count(hits.size(), remote_misses, hits.size() * static_cast<uint64_t>(F) * 4);
  if (hits.empty()) return client->PullUncached(cache.name(), ids, n);
  DG_ASSIGN_OR_RETURN(Array fetched, client->PullUncached(cache.name(), miss_ids.data(), miss_ids.size()));
  DG_ASSIGN_OR_RETURN(Array out, Array::TryUninitialized(DType::kFloat32, {static_cast<int64_t>(n), F},
                                                         "PULL '" + cache.name() + "'"));
  float* o = out.as<float>();
  const size_t rb = static_cast<size_t>(F) * 4;
  for (const auto& h : hits) std::memcpy(o + h.first * F, h.second, rb);
  const float* f = fetched.as<float>();
  for (size_t j = 0; j < miss_pos.size(); ++j) std::memcpy(o + miss_pos[j] * F, f + j * F, rb);
  return out;
}

}  // namespace dg
