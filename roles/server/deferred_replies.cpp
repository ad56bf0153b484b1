// GraphServer's deferred replies: a BARRIER is answered when its last
// participant arrives, a SPARSE_UPDATE step when its last contributor's
// gradients are in (then applied once); both fail with a clear error when a
// contributor does not come within peer_timeout_seconds or the server shuts
// down. graph_server.cpp owns the connections and dispatches to these.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>

#include "roles/server/graph_server.h"
#include "roles/server/server_session.h"

namespace dg {
namespace {

constexpr size_t kMaxBarrierName = 256;
constexpr uint32_t kMaxBarrierParticipants = 65536;

}  // namespace

void GraphServer::OnBarrier(const std::shared_ptr<Session>& s, const Frame& f) {
  auto req = DecodeBarrier(f);
  if (!req.ok()) {
    stats_.Record(f.header.type, true, f.size, 0, 0);
    Reject(s, f.header.request_id, f.header.type, req.status());
    return;
  }
  Status bad;
  if (req->name.size() > kMaxBarrierName) {
    bad = Status::InvalidArgument("BARRIER: name of " + std::to_string(req->name.size()) + " bytes (at most " +
                                  std::to_string(kMaxBarrierName) + ")");
  } else if (req->participants > kMaxBarrierParticipants) {
    bad = Status::InvalidArgument("BARRIER '" + req->name + "': " + std::to_string(req->participants) +
                                  " participants (at most " + std::to_string(kMaxBarrierParticipants) + ")");
  }
  if (!bad.ok()) {
    stats_.Record(f.header.type, true, f.size, 0, 0);
    Reject(s, f.header.request_id, f.header.type, bad);
    return;
  }
  std::vector<BarrierWaiter> release;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!barriers_.count(req->name) &&
        static_cast<int64_t>(barriers_.size() + sparse_steps_.size()) >= options_.limits.max_pending) {
      Reject(s, f.header.request_id, f.header.type,
             Status::ResourceExhausted("BARRIER '" + req->name + "': " + std::to_string(options_.limits.max_pending) +
                                       " barriers and sparse steps are already waiting here (limits.max_pending)"));
      return;
    }
    BarrierState& b = barriers_[req->name];
    if (b.waiters.empty()) b.participants = req->participants;
    if (b.participants != req->participants) {
      Status st = Status::InvalidArgument("BARRIER '" + req->name + "': " + std::to_string(req->participants) +
                                          " participants, but others use " + std::to_string(b.participants));
      Reject(s, f.header.request_id, f.header.type, st);
      return;
    }
    b.waiters.push_back({s->conn, f.header.request_id});
    if (b.waiters.size() >= b.participants) {
      release.swap(b.waiters);
      barriers_.erase(req->name);
    }
  }
  stats_.Record(f.header.type, false, f.size, 0, 0);
  for (auto& w : release) w.conn->Send(MsgType::kBarrier, kFlagResponse, w.request_id, BufferList());
}

namespace {
std::string StepName(const std::string& name, uint64_t step) {
  return "SPARSE_UPDATE '" + name + "' step " + std::to_string(step);
}
}  // namespace

// Runs on a pool thread. Checks the contribution, files it under its step and,
// if it is the last one, applies the step and answers every contributor.
// A non-OK return rejects this request only (the step keeps waiting).
Status GraphServer::OnSparseUpdate(const std::shared_ptr<Session>& s, const Frame& f) {
  DG_ASSIGN_OR_RETURN(SparseUpdateRequest req, DecodeSparseUpdate(f));
  DG_RETURN_IF_ERROR(store_->CheckSparseGrad(req.name, req.optimizer, SparseGrad{req.ids, req.grads}));
  const std::string where = StepName(req.name, req.step);
  const auto key = std::make_pair(req.name, req.step);
  SparseStep done;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return Status::PeerLost("server is shutting down");
    auto it = sparse_steps_.find(key);
    // What parking this contribution costs: its payload, plus the step's
    // per-rank slots when it opens the step.
    const int64_t cost = static_cast<int64_t>(f.size) +
                         (it == sparse_steps_.end() ? int64_t(req.contributors) * 256 : 0);
    if (req.contributors > 1 && pending_bytes_ + cost > options_.limits.max_pending_bytes) {
      return Status::ResourceExhausted(where + ": " + std::to_string(pending_bytes_) +
                                       " bytes of contributions already wait here; this one would exceed the limit of " +
                                       std::to_string(options_.limits.max_pending_bytes) + " (limits.max_pending_bytes)");
    }
    if (it == sparse_steps_.end() &&
        static_cast<int64_t>(barriers_.size() + sparse_steps_.size()) >= options_.limits.max_pending) {
      return Status::ResourceExhausted(where + ": " + std::to_string(options_.limits.max_pending) +
                                       " barriers and sparse steps are already waiting here (limits.max_pending)");
    }
    if (it == sparse_steps_.end()) {
      SparseStep st;
      st.contributors = req.contributors;
      st.optimizer = req.optimizer;
      st.reqs.resize(req.contributors);
      st.waiters.resize(req.contributors);
      st.generation = ++sparse_generation_;
      if (req.contributors > 1 && options_.connection.peer_timeout_seconds > 0) {  // <= 0: liveness checks disabled
        st.deadline = std::make_shared<asio::steady_timer>(io_);
        st.deadline->expires_after(std::chrono::microseconds(int64_t(options_.connection.peer_timeout_seconds * 1e6)));
        st.deadline->async_wait([this, key, gen = st.generation](const boost::system::error_code& ec) {
          if (!ec) ExpireSparseStep(key, gen);
        });
      }
      it = sparse_steps_.emplace(key, std::move(st)).first;
    }
    SparseStep& st = it->second;
    if (req.contributors != st.contributors) {
      return Status::InvalidArgument(where + ": " + std::to_string(req.contributors) +
                                     " contributors, but this step's first contribution said " +
                                     std::to_string(st.contributors));
    }
    if (!req.optimizer.SameAs(st.optimizer)) {
      return Status::InvalidArgument(where + ": optimizer " + req.optimizer.ToString() + " differs from " +
                                     st.optimizer.ToString() + " of this step's first contribution");
    }
    if (st.waiters[req.rank].conn) {
      return Status::InvalidArgument(where + ": rank " + std::to_string(req.rank) +
                                     " already contributed to this step");
    }
    st.waiters[req.rank] = {s->conn, f.header.request_id};
    st.cost += cost;
    pending_bytes_ += cost;
    const uint32_t rank = req.rank;
    st.reqs[rank] = std::move(req);
    if (++st.arrived < st.contributors) return Status::OK();  // deferred
    pending_bytes_ -= st.cost;
    done = std::move(st);
    sparse_steps_.erase(it);
  }
  if (done.deadline) done.deadline->cancel();
  std::vector<SparseGrad> grads;
  grads.reserve(done.reqs.size());
  for (const SparseUpdateRequest& r : done.reqs) grads.push_back(SparseGrad{r.ids, r.grads});  // rank order
  Status applied = store_->SparseUpdate(key.first, done.optimizer, grads);
  if (!applied.ok()) spdlog::warn("{}: {}", where, applied.message());
  for (const BarrierWaiter& w : done.waiters) {
    if (applied.ok()) {
      w.conn->Send(MsgType::kSparseUpdate, kFlagResponse, w.request_id, BufferList());
    } else {
      w.conn->SendError(w.request_id, applied);
    }
  }
  return Status::OK();
}

// The deadline of an incomplete step passed: fail its waiting contributors.
void GraphServer::ExpireSparseStep(const std::pair<std::string, uint64_t>& key, uint64_t generation) {
  SparseStep st;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = sparse_steps_.find(key);
    if (it == sparse_steps_.end() || it->second.generation != generation) return;
    pending_bytes_ -= it->second.cost;
    st = std::move(it->second);
    sparse_steps_.erase(it);
  }
  std::string missing;
  for (uint32_t r = 0; r < st.contributors; ++r)
    if (!st.waiters[r].conn) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%g", options_.connection.peer_timeout_seconds);
  Status err = Status::Timeout(StepName(key.first, key.second) + ": only " + std::to_string(st.arrived) + " of " +
                               std::to_string(st.contributors) + " contributors arrived within " + secs +
                               " s (missing ranks " + missing + ")");
  spdlog::warn("{}", err.message());
  for (const BarrierWaiter& w : st.waiters)
    if (w.conn) w.conn->SendError(w.request_id, err);
}

// Shutdown: barriers and sparse steps that are still waiting fail with PeerLost.
void GraphServer::FailPendingOnShutdown() {
  std::map<std::string, BarrierState> barriers;
  std::map<std::pair<std::string, uint64_t>, SparseStep> steps;
  {
    std::lock_guard<std::mutex> l(mu_);
    barriers.swap(barriers_);
    steps.swap(sparse_steps_);
    pending_bytes_ = 0;
  }
  for (auto& [name, b] : barriers)
    for (auto& w : b.waiters)
      w.conn->SendError(w.request_id, Status::PeerLost("server shut down before barrier '" + name + "' completed"));
  for (auto& [key, st] : steps) {
    if (st.deadline) st.deadline->cancel();
    Status err = Status::PeerLost("server shut down before " + StepName(key.first, key.second) + " completed (" +
                                  std::to_string(st.arrived) + " of " + std::to_string(st.contributors) +
                                  " contributors arrived)");
    for (const BarrierWaiter& w : st.waiters)
      if (w.conn) w.conn->SendError(w.request_id, err);
  }
}

}  // namespace dg
