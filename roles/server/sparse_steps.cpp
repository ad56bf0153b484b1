#include "roles/server/sparse_steps.h"

#include <spdlog/spdlog.h>

#include <cstdio>

namespace dg {
namespace {

std::string StepName(const std::string& name, uint64_t step) {
  return "SPARSE_UPDATE '" + name + "' step " + std::to_string(step);
}

}  // namespace

SparseSteps::SparseSteps(boost::asio::io_context& io, Limits limits, PendingSlots* slots, ApplyFn apply)
    : io_(io), limits_(limits), slots_(slots), apply_(std::move(apply)) {}

// A new step for `key` (under mu_), with its deadline; the cost of opening it
// is already in `cost`.
Result<std::map<SparseSteps::Key, SparseSteps::Step>::iterator> SparseSteps::OpenStep(
    const Key& key, const SparseUpdateRequest& req, int64_t cost) {
  const std::string where = StepName(key.first, key.second);
  if (req.contributors > 1 && pending_bytes_ + cost > limits_.max_pending_bytes)
    return Status::ResourceExhausted(where + ": " + std::to_string(pending_bytes_) +
                                     " bytes of contributions already wait here; this one would exceed the limit of " +
                                     std::to_string(limits_.max_pending_bytes) + " (limits.max_pending_bytes)");
  if (!slots_->TryTake())
    return Status::ResourceExhausted(where + ": " + std::to_string(slots_->max()) +
                                     " barriers and sparse steps are already waiting here (limits.max_pending)");
  Step st;
  st.contributors = req.contributors;
  st.optimizer = req.optimizer;
  st.reqs.resize(req.contributors);
  st.waiters.resize(req.contributors);
  st.generation = ++generation_;
  if (req.contributors > 1 && limits_.peer_timeout_seconds > 0) {
    st.deadline = std::make_shared<boost::asio::steady_timer>(io_);
    st.deadline->expires_after(std::chrono::microseconds(int64_t(limits_.peer_timeout_seconds * 1e6)));
    st.deadline->async_wait([this, key, gen = st.generation](const boost::system::error_code& ec) {
      if (!ec) Expire(key, gen);
    });
  }
  return open_.emplace(key, std::move(st)).first;
}

Status SparseSteps::CheckAgrees(const Step& st, const SparseUpdateRequest& req) {
  const std::string where = StepName(req.name, req.step);
  if (req.contributors != st.contributors)
    return Status::InvalidArgument(where + ": " + std::to_string(req.contributors) +
                                   " contributors, but this step's first contribution said " +
                                   std::to_string(st.contributors));
  if (!req.optimizer.SameAs(st.optimizer))
    return Status::InvalidArgument(where + ": optimizer " + req.optimizer.ToString() + " differs from " +
                                   st.optimizer.ToString() + " of this step's first contribution");
  if (st.waiters[req.rank])
    return Status::InvalidArgument(where + ": rank " + std::to_string(req.rank) + " already contributed to this step");
  return Status::OK();
}

Status SparseSteps::Contribute(SparseUpdateRequest req, int64_t bytes, DeferredReply reply) {
  const Key key(req.name, req.step);
  Step done;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return Status::PeerLost("server is shutting down");
    auto it = open_.find(key);
    // Parking this contribution costs its payload, plus the step's per-rank
    // slots when it opens the step.
    const int64_t cost = bytes + (it == open_.end() ? int64_t(req.contributors) * 256 : 0);
    if (it == open_.end()) {
      DG_ASSIGN_OR_RETURN(it, OpenStep(key, req, cost));
    } else if (req.contributors > 1 && pending_bytes_ + cost > limits_.max_pending_bytes) {
      return Status::ResourceExhausted(StepName(req.name, req.step) + ": " + std::to_string(pending_bytes_) +
                                       " bytes of contributions already wait here; this one would exceed the limit of " +
                                       std::to_string(limits_.max_pending_bytes) + " (limits.max_pending_bytes)");
    }
    Step& st = it->second;
    DG_RETURN_IF_ERROR(CheckAgrees(st, req));
    const uint32_t rank = req.rank;
    st.waiters[rank] = std::move(reply);
    st.cost += cost;
    pending_bytes_ += cost;
    st.reqs[rank] = std::move(req);
    if (++st.arrived < st.contributors) return Status::OK();  // answered later
    pending_bytes_ -= st.cost;
    done = std::move(st);
    open_.erase(it);
    slots_->Give();
  }
  Finish(key, std::move(done));
  return Status::OK();
}

// The last contribution arrived: apply the step on this thread, answer every contributor.
void SparseSteps::Finish(const Key& key, Step done) {
  if (done.deadline) done.deadline->cancel();
  std::vector<SparseGrad> grads;
  grads.reserve(done.reqs.size());
  for (const SparseUpdateRequest& r : done.reqs) grads.push_back(SparseGrad{r.ids, r.grads});  // rank order
  Status applied = apply_(key.first, done.optimizer, key.second, grads);
  if (!applied.ok()) spdlog::warn("{}: {}", StepName(key.first, key.second), applied.message());
  for (const DeferredReply& w : done.waiters) w(applied);
}

// The deadline of an incomplete step passed: fail its waiting contributors.
void SparseSteps::Expire(const Key& key, uint64_t generation) {
  Step st;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = open_.find(key);
    if (it == open_.end() || it->second.generation != generation) return;
    pending_bytes_ -= it->second.cost;
    st = std::move(it->second);
    open_.erase(it);
    slots_->Give();
  }
  std::string missing;
  for (uint32_t r = 0; r < st.contributors; ++r)
    if (!st.waiters[r]) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%g", limits_.peer_timeout_seconds);
  Status err = Status::Timeout(StepName(key.first, key.second) + ": only " + std::to_string(st.arrived) + " of " +
                               std::to_string(st.contributors) + " contributors arrived within " + secs +
                               " s (missing ranks " + missing + ")");
  spdlog::warn("{}", err.message());
  for (const DeferredReply& w : st.waiters)
    if (w) w(err);
}

void SparseSteps::Close() {
  std::map<Key, Step> open;
  {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    open.swap(open_);
    pending_bytes_ = 0;
    slots_->Give(static_cast<int64_t>(open.size()));
  }
  for (auto& [key, st] : open) {
    if (st.deadline) st.deadline->cancel();
    Status err = Status::PeerLost("server shut down before " + StepName(key.first, key.second) + " completed (" +
                                  std::to_string(st.arrived) + " of " + std::to_string(st.contributors) +
                                  " contributors arrived)");
    for (const DeferredReply& w : st.waiters)
      if (w) w(err);
  }
}

size_t SparseSteps::open() const {
  std::lock_guard<std::mutex> l(mu_);
  return open_.size();
}

int64_t SparseSteps::pending_bytes() const {
  std::lock_guard<std::mutex> l(mu_);
  return pending_bytes_;
}

}  // namespace dg
