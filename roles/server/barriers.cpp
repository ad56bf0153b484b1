#include "roles/server/barriers.h"

namespace dg {

Status Barriers::Arrive(const std::string& name, uint32_t participants, DeferredReply reply) {
  std::vector<DeferredReply> release;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return Status::PeerLost("server is shutting down");
    auto it = open_.find(name);
    if (it == open_.end()) {
      if (!slots_->TryTake())
        return Status::ResourceExhausted("BARRIER '" + name + "': " + std::to_string(slots_->max()) +
                                         " barriers and sparse steps are already waiting here (limits.max_pending)");
      it = open_.emplace(name, Barrier{participants, {}}).first;
    }
    Barrier& b = it->second;
    if (b.participants != participants)
      return Status::InvalidArgument("BARRIER '" + name + "': " + std::to_string(participants) +
                                     " participants, but others use " + std::to_string(b.participants));
    b.waiters.push_back(std::move(reply));
    if (b.waiters.size() < b.participants) return Status::OK();
    release.swap(b.waiters);
    open_.erase(it);
    slots_->Give();
  }
  for (auto& w : release) w(Status::OK());
  return Status::OK();
}

void Barriers::Close() {
  std::map<std::string, Barrier> open;
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    open.swap(open_);
    slots_->Give(static_cast<int64_t>(open.size()));
  }
  for (auto& [name, b] : open)
    for (auto& w : b.waiters) w(Status::PeerLost("server shut down before barrier '" + name + "' completed"));
}

size_t Barriers::open() const {
  std::lock_guard<std::mutex> l(mu_);
  return open_.size();
}

}  // namespace dg
