// FeatureCache: a trainer's read-only copy of the remote rows of one float32
// [N, F] node array that its batches read most (train.feature_cache_mb),
// keyed by global node id.
//
// BuildFeatureCache chooses the rows once, at start: the nodes of the
// partitions this process does not map locally with the largest in-degree
// (IN_DEGREES; ties by smaller id), as many as the budget holds, fetched in
// float32 with one PULL. Nothing is evicted or replaced: partition data does
// not change during a job, so a cached row is bit for bit the row a server
// sends, and lookups need no lock. Only partition data is cached (the array
// named at build time); mutable tensors (DistEmbedding, CV history) never.
//
// Size: rows x (F x 4 + 8) bytes (the rows and their sorted ids) plus one
// bit per node of the graph (which ids are held: a miss costs one load)
// <= budget.
// Counters are relaxed atomics: hits (remote rows or per-partition partial
// sums served here), misses (remote rows that still travelled) and the
// bytes that did not travel. Thread-safe: any number of readers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/array.h"
#include "common/base/status.h"
#include "common/net/prometheus.h"

namespace dg {

class DistGraphClient;

struct FeatureCacheStats {
  int64_t rows = 0;   // rows held
  int64_t bytes = 0;  // their memory (rows and ids)
  uint64_t hits = 0, misses = 0, bytes_saved = 0;
  double hit_rate() const { return hits + misses == 0 ? 0.0 : double(hits) / double(hits + misses); }
};

class FeatureCache {
 public:
  // ids: sorted, unique global ids in [0, num_nodes); rows: float32
  // [ids.size(), F] in that order.
  FeatureCache(std::string name, int64_t num_nodes, std::vector<int64_t> ids, Array rows);

  // Rows of F float32 values that fit `budget_bytes` with their ids and the
  // bitmap of num_nodes bits.
  static int64_t RowsThatFit(int64_t budget_bytes, int64_t F, int64_t num_nodes) {
    return std::max<int64_t>(0, budget_bytes - BitmapBytes(num_nodes)) / (F * 4 + 8);
  }
  static int64_t BitmapBytes(int64_t num_nodes) { return (num_nodes + 63) / 64 * 8; }

  const std::string& name() const { return name_; }
  int64_t cols() const { return cols_; }
  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  int64_t bytes() const { return size() * (cols_ * 4 + 8) + static_cast<int64_t>(present_.size()) * 8; }
  // The row of global id `id` (cols() floats), or null when not cached.
  // Does not count: callers count what they served with Count().
  const float* Find(int64_t id) const;
  void Count(uint64_t hits, uint64_t misses, uint64_t bytes_saved) const {
    hits_.fetch_add(hits, std::memory_order_relaxed);
    misses_.fetch_add(misses, std::memory_order_relaxed);
    bytes_saved_.fetch_add(bytes_saved, std::memory_order_relaxed);
  }
  FeatureCacheStats stats() const;

 private:
  const std::string name_;
  const std::vector<int64_t> ids_;
  const Array rows_;
  const int64_t cols_;
  std::vector<uint64_t> present_;  // bit id: id is in ids_
  mutable std::atomic<uint64_t> hits_{0}, misses_{0}, bytes_saved_{0};
};

// The cache of array `name` (float32 [N, F] partition data) for `client`
// within budget_bytes: the highest in-degree nodes of its remote partitions
// (every remote node's degree is read once, 16 bytes per node on the wire).
// Null when the budget holds no row or nothing is remote.
Result<std::shared_ptr<const FeatureCache>> BuildFeatureCache(DistGraphClient* client, const std::string& name,
                                                              int64_t budget_bytes);

// "feature_cache": {"rows", "mb", "hits", "misses", "hit_rate", "bytes_saved"}
// of the counts between `before` and `now` (a metrics.jsonl epoch field).
std::string FeatureCacheJson(const FeatureCacheStats& now, const FeatureCacheStats& before);

// distgnn_trainer_feature_cache_{rows,bytes} gauges and
// _{hits,misses,saved_bytes}_total counters, labelled with the trainer rank.
void WriteFeatureCacheMetrics(const FeatureCache& cache, int rank, PromText* out);

// Pull of `name` through the cache: cached remote rows are copied, the rest
// fetched with client->PullUncached; counts hits and remote misses.
Result<Array> PullThroughCache(const FeatureCache& cache, DistGraphClient* client, const int64_t* ids, size_t n);

}  // namespace dg
