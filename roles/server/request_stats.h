// RequestStats: per-message-type counters and latency percentiles for STATS.
// Lock-free recording (atomics); latencies go into log-spaced buckets
// (x1.25 from 1 us), so p50/p99 are accurate to about 12%. WritePrometheus
// exports the same counters and a latency histogram per message type.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "common/net/messages.h"
#include "common/net/prometheus.h"

namespace dg {

class RequestStats {
 public:
  void Record(uint16_t type, bool error, uint64_t bytes_in, uint64_t bytes_out, double seconds);
  std::vector<TypeStats> Snapshot() const;
  void WritePrometheus(PromText* out) const;

 private:
  static constexpr int kTypes = 32;     // message types 16..47 are tracked
  static constexpr int kBuckets = 96;
  struct PerType {
    std::atomic<uint64_t> requests{0}, errors{0}, bytes_in{0}, bytes_out{0}, nanos{0};
    std::array<std::atomic<uint64_t>, kBuckets> buckets{};
  };
  static double BucketUpperMs(int b);
  static double Percentile(const std::array<uint64_t, kBuckets>& h, uint64_t total, double q);
  std::array<PerType, kTypes> types_;
};

}  // namespace dg
