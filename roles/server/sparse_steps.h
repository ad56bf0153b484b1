// SPARSE_UPDATE steps: the contributions of the W ranks to one (tensor, step)
// wait here until the last arrives; that contribution's thread then applies
// the step once (the gradients summed in rank order) and every contributor
// gets its reply. A step still incomplete `peer_timeout_seconds` after its
// first contribution fails every waiter with Timeout naming the missing
// ranks; Close() (shutdown) fails the open ones with PeerLost.
//
// Limits: each open step holds one PendingSlots slot (limits.max_pending);
// the payload bytes parked in open steps stay under max_pending_bytes.
// Thread-safe (one lock); the step is applied and replies are sent outside it.
#pragma once

#include <boost/asio.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/net/messages.h"
#include "common/storage/partition_store.h"
#include "roles/server/pending.h"

namespace dg {

class SparseSteps {
 public:
  // Applies one complete step (PartitionStore::SparseUpdate on the server).
  using ApplyFn = std::function<Status(const std::string& name, const SparseOptimizerSpec& optimizer, uint64_t step,
                                       const std::vector<SparseGrad>& by_rank)>;
  struct Limits {
    int64_t max_pending_bytes = int64_t(1) << 30;
    double peer_timeout_seconds = 0;  // <= 0: no deadline
  };
  // Deadlines run on `io`'s threads.
  SparseSteps(boost::asio::io_context& io, Limits limits, PendingSlots* slots, ApplyFn apply);

  // Files one contribution (already checked against the tensor) that cost
  // `bytes` of payload; `reply` answers it when its step completes, expires or
  // is failed. A non-OK return refuses this contribution only (its step keeps
  // waiting) and `reply` is dropped.
  Status Contribute(SparseUpdateRequest req, int64_t bytes, DeferredReply reply);
  // Shutdown: fails every open step's waiters with PeerLost; later contributions are refused.
  void Close();
  size_t open() const;
  int64_t pending_bytes() const;

 private:
  using Key = std::pair<std::string, uint64_t>;  // (tensor, step)
  struct Step {
    uint32_t contributors = 0;
    SparseOptimizerSpec optimizer;          // of the first contribution; the rest must agree
    std::vector<SparseUpdateRequest> reqs;  // by rank (arrays borrow their frames)
    std::vector<DeferredReply> waiters;     // by rank; empty: not yet arrived
    uint32_t arrived = 0;
    uint64_t generation = 0;
    int64_t cost = 0;  // bytes charged to pending_bytes_
    std::shared_ptr<boost::asio::steady_timer> deadline;
  };
  Result<std::map<Key, Step>::iterator> OpenStep(const Key& key, const SparseUpdateRequest& req, int64_t cost);
  static Status CheckAgrees(const Step& st, const SparseUpdateRequest& req);
  void Finish(const Key& key, Step done);
  void Expire(const Key& key, uint64_t generation);

  boost::asio::io_context& io_;
  const Limits limits_;
  PendingSlots* slots_;
  ApplyFn apply_;
  mutable std::mutex mu_;
  std::map<Key, Step> open_;
  uint64_t generation_ = 0;
  int64_t pending_bytes_ = 0;
  bool closed_ = false;
};

}  // namespace dg
