#include "roles/server/fair_scheduler.h"

#include <algorithm>

namespace dg {

void FairScheduler::Push(const void* client, Job job, std::function<bool()> ready) {
  std::lock_guard<std::mutex> l(mu_);
  Client& c = clients_[client];
  if (!c.ready) c.ready = std::move(ready);
  if (c.jobs.empty()) order_.push_back(client);
  c.jobs.push_back(std::move(job));
  ++queued_;
  ++tokens_;  // the caller posts one token per Push
}

int64_t FairScheduler::queued() const {
  std::lock_guard<std::mutex> l(mu_);
  return queued_;
}

bool FairScheduler::Pop(const void** client, Job* job) {
  std::lock_guard<std::mutex> l(mu_);
  --tokens_;
  for (size_t tries = order_.size(); tries > 0; --tries) {
    const void* key = order_.front();
    order_.pop_front();
    Client& c = clients_[key];
    if (c.running >= cap_ || (c.ready && !c.ready())) {
      order_.push_back(key);  // at its cap or not ready: keep its turn for later
      continue;
    }
    *job = std::move(c.jobs.front());
    c.jobs.pop_front();
    --queued_;
    ++c.running;
    if (!c.jobs.empty()) order_.push_back(key);
    *client = key;
    return true;
  }
  return false;
}

bool FairScheduler::Done(const void* client) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = clients_.find(client);
  if (it != clients_.end()) {
    --it->second.running;
    if (it->second.running == 0 && it->second.jobs.empty()) clients_.erase(it);
  }
  if (queued_ > tokens_) {
    ++tokens_;
    return true;
  }
  return false;
}

bool FairScheduler::Wake() {
  std::lock_guard<std::mutex> l(mu_);
  if (queued_ > tokens_) {
    ++tokens_;
    return true;
  }
  return false;
}

bool FairScheduler::TakeAndRun() {
  const void* client = nullptr;
  Job job;
  if (!Pop(&client, &job)) return false;
  job();
  return Done(client);
}

}  // namespace dg
