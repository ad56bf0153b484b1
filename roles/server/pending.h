// What the server's deferred replies share: the reply callback a waiting
// request is answered through, and the limit on how many barriers and sparse
// steps may wait at once (limits.max_pending), shared by Barriers
// (barriers.h) and SparseSteps (sparse_steps.h), each under its own lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "common/base/status.h"

namespace dg {

// Answers one waiting request: OK = its (empty) response, else its ERROR.
using DeferredReply = std::function<void(const Status&)>;

// A count of open waits with a ceiling: TryTake succeeds while fewer than
// `max` are taken. Lock-free; callers take one slot per barrier or step they
// open and give it back when it completes, expires or fails.
class PendingSlots {
 public:
  explicit PendingSlots(int64_t max) : max_(max) {}
  bool TryTake() {
    int64_t n = used_.load();
    do {
      if (n >= max_) return false;
    } while (!used_.compare_exchange_weak(n, n + 1));
    return true;
  }
  void Give(int64_t n = 1) { used_ -= n; }
  int64_t max() const { return max_; }
  int64_t used() const { return used_.load(); }

 private:
  const int64_t max_;
  std::atomic<int64_t> used_{0};
};

}  // namespace dg
