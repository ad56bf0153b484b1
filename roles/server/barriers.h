// Named barriers (BARRIER): a barrier of W participants answers all W once
// the W-th has arrived; a participant count that disagrees with the first
// arrival's is refused. Each open barrier holds one PendingSlots slot.
// Thread-safe (one lock); replies are sent outside it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "roles/server/pending.h"

namespace dg {

class Barriers {
 public:
  explicit Barriers(PendingSlots* slots) : slots_(slots) {}
  // Counts one arrival at `name`; the last of `participants` answers every
  // waiter (this one too). An error refuses this arrival only.
  Status Arrive(const std::string& name, uint32_t participants, DeferredReply reply);
  // Shutdown: fails every waiter with PeerLost; later arrivals are refused.
  void Close();
  size_t open() const;

 private:
  struct Barrier {
    uint32_t participants = 0;
    std::vector<DeferredReply> waiters;
  };
  PendingSlots* slots_;
  mutable std::mutex mu_;
  std::map<std::string, Barrier> open_;
  bool closed_ = false;
};

}  // namespace dg
