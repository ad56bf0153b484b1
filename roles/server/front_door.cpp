#include "roles/server/front_door.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

namespace dg {

FrontDoor::FrontDoor(boost::asio::io_context& io, int budget, double deadline_seconds)
    : timer_(io),
      budget_(static_cast<size_t>(std::max(1, budget))),
      deadline_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(deadline_seconds))) {}

FrontDoor::~FrontDoor() { Stop(); }

void FrontDoor::Start() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopped_ = false;
  }
  Sweep();
}

void FrontDoor::Stop() {
  std::lock_guard<std::mutex> l(mu_);
  stopped_ = true;
  timer_.cancel();
}

void FrontDoor::Arrive(const std::shared_ptr<Connection>& conn) {
  std::vector<std::shared_ptr<Connection>> evict;
  {
    std::lock_guard<std::mutex> l(mu_);
    while (waiting_.size() >= budget_) {
      if (auto c = waiting_.front().conn.lock()) evict.push_back(std::move(c));
      waiting_.pop_front();
      ++dropped_;
    }
    waiting_.push_back({conn.get(), conn, std::chrono::steady_clock::now() + deadline_});
  }
  for (auto& c : evict) {
    spdlog::debug("front door: closing {} (the oldest of {} unauthenticated connections)", c->peer(), budget_);
    c->Close(Status::ResourceExhausted("unauthenticated connections over limits.max_handshaking_connections"));
  }
}

void FrontDoor::Leave(const Connection* conn) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = std::find_if(waiting_.begin(), waiting_.end(), [conn](const Waiting& w) { return w.key == conn; });
  if (it != waiting_.end()) waiting_.erase(it);
}

size_t FrontDoor::waiting() const {
  std::lock_guard<std::mutex> l(mu_);
  return waiting_.size();
}

int64_t FrontDoor::dropped() const {
  std::lock_guard<std::mutex> l(mu_);
  return dropped_;
}

// Closes every waiting connection past its deadline, then again a tenth of the deadline later.
void FrontDoor::Sweep() {
  std::vector<std::shared_ptr<Connection>> late;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopped_) return;
    const auto now = std::chrono::steady_clock::now();
    while (!waiting_.empty() && waiting_.front().deadline <= now) {  // deadlines grow with arrival
      if (auto c = waiting_.front().conn.lock()) late.push_back(std::move(c));
      waiting_.pop_front();
      ++dropped_;
    }
    timer_.expires_after(std::max(deadline_ / 10, std::chrono::steady_clock::duration(std::chrono::milliseconds(50))));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) Sweep();
    });
  }
  for (auto& c : late)
    c->Close(Status::Timeout("no handshake within limits.handshake_timeout_seconds"));
}

}  // namespace dg
