#include "roles/server/request_stats.h"

#include <cmath>

#include "common/net/protocol.h"

namespace dg {

double RequestStats::BucketUpperMs(int b) { return 1e-3 * std::pow(1.25, b + 1); }

void RequestStats::Record(uint16_t type, bool error, uint64_t bytes_in, uint64_t bytes_out, double seconds) {
  int t = static_cast<int>(type) - 16;
  if (t < 0 || t >= kTypes) return;
  PerType& p = types_[t];
  p.requests.fetch_add(1, std::memory_order_relaxed);
  if (error) p.errors.fetch_add(1, std::memory_order_relaxed);
  p.bytes_in.fetch_add(bytes_in, std::memory_order_relaxed);
  p.bytes_out.fetch_add(bytes_out, std::memory_order_relaxed);
  p.nanos.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
  double us = seconds * 1e6;
  int b = us <= 1 ? 0 : static_cast<int>(std::log(us) / std::log(1.25));
  if (b >= kBuckets) b = kBuckets - 1;
  if (b < 0) b = 0;
  p.buckets[b].fetch_add(1, std::memory_order_relaxed);
}

double RequestStats::Percentile(const std::array<uint64_t, kBuckets>& h, uint64_t total, double q) {
  if (total == 0) return 0;
  uint64_t want = static_cast<uint64_t>(std::ceil(q * total));
  uint64_t acc = 0;
  for (int b = 0; b < kBuckets; ++b) {
    acc += h[b];
    if (acc >= want) return BucketUpperMs(b);
  }
  return BucketUpperMs(kBuckets - 1);
}

std::vector<TypeStats> RequestStats::Snapshot() const {
  std::vector<TypeStats> out;
  for (int t = 0; t < kTypes; ++t) {
    const PerType& p = types_[t];
    uint64_t n = p.requests.load();
    if (n == 0) continue;
    TypeStats s;
    s.type = MsgTypeName(static_cast<uint16_t>(t + 16));
    s.requests = n;
    s.errors = p.errors.load();
    s.bytes_in = p.bytes_in.load();
    s.bytes_out = p.bytes_out.load();
    std::array<uint64_t, kBuckets> h;
    uint64_t total = 0;
    for (int b = 0; b < kBuckets; ++b) total += (h[b] = p.buckets[b].load());
    s.p50_ms = Percentile(h, total, 0.5);
    s.p99_ms = Percentile(h, total, 0.99);
    out.push_back(std::move(s));
  }
  return out;
}

void RequestStats::WritePrometheus(PromText* out) const {
  // Exported bucket bounds (seconds); each takes the fine buckets that end at or below it.
  static const double kBounds[] = {1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3,
                                   1e-2, 2.5e-2, 5e-2, 0.1,  0.25,   0.5,  1,    2.5,    5, 10};
  for (int t = 0; t < kTypes; ++t) {
    const PerType& p = types_[t];
    const uint64_t n = p.requests.load();
    if (n == 0) continue;
    const PromText::Labels type{{"type", MsgTypeName(static_cast<uint16_t>(t + 16))}};
    out->Counter("distgnn_server_requests_total", "Requests answered, per message type.", double(n), type);
    out->Counter("distgnn_server_request_errors_total", "Requests answered with ERROR, per message type.",
                 double(p.errors.load()), type);
    out->Counter("distgnn_server_received_bytes_total", "Request bytes received, per message type.",
                 double(p.bytes_in.load()), type);
    out->Counter("distgnn_server_sent_bytes_total", "Reply bytes sent, per message type.", double(p.bytes_out.load()),
                 type);
    std::vector<std::pair<double, uint64_t>> buckets;
    uint64_t acc = 0, total = 0;
    int b = 0;
    std::array<uint64_t, kBuckets> h;
    for (int i = 0; i < kBuckets; ++i) total += (h[i] = p.buckets[i].load());
    for (double bound : kBounds) {
      while (b < kBuckets && BucketUpperMs(b) * 1e-3 <= bound * (1 + 1e-9)) acc += h[b++];
      buckets.emplace_back(bound, acc);
    }
    out->Histogram("distgnn_server_request_duration_seconds",
                   "Request latency from decode to reply, per message type (bucket bounds approximate to 25%).",
                   type, buckets, p.nanos.load() * 1e-9, total);
  }
}

}  // namespace dg
