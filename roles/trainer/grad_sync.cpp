#include "roles/trainer/grad_sync.h"

#include "common/base/stop_request.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "common/net/bind_address_scope.h"
#include "roles/trainer/trainer_util.h"

namespace dg {
namespace {

// Groups tensors (same dtype) into buckets of about `bucket_bytes`.
std::vector<std::vector<torch::Tensor>> Buckets(const std::vector<torch::Tensor>& tensors,
                                                int64_t bucket_bytes) {
  std::vector<std::vector<torch::Tensor>> out;
  int64_t bytes = bucket_bytes;
  for (const auto& t : tensors) {
    int64_t nb = t.numel() * static_cast<int64_t>(t.element_size());
    if (out.empty() || bytes + nb > bucket_bytes || out.back()[0].scalar_type() != t.scalar_type()) {
      out.emplace_back();
      bytes = 0;
    }
    out.back().push_back(t);
    bytes += nb;
  }
  return out;
}

}  // namespace

// Heartbeats through the rendezvous store: a thread adds 1 to
// "distgnn/alive/<rank>" every interval and reads the other ranks' counters.
// After a failed collective, a trainer whose counter stopped moving is named
// dead or frozen; a store that stops answering names
// trainer 0 (it serves the store). The thread may block on a frozen store, so
// it shares its state through a shared_ptr and is detached, never joined.
class GradientSync::PeerWatch {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PeerWatch(const GradientSyncOptions& o) : st_(std::make_shared<State>(o)) {
    std::thread([st = st_] { Loop(st); }).detach();
  }
  ~PeerWatch() {
    std::lock_guard<std::mutex> l(st_->mu);
    st_->stop = true;
    st_->cv.notify_all();
  }

  // Who was lost, after a collective failed now: waits 3.5 intervals, then
  // names the trainers whose counter was last seen moving before now + 1.5
  // intervals (a live trainer's counter is seen moving at least every 2
  // intervals); "" if every trainer (and the store) still looks alive.
  std::string Diagnose() {
    State& s = *st_;
    const auto failed = Clock::now();
    std::this_thread::sleep_for(Seconds(3.5 * s.interval));
    const auto cutoff = failed + Seconds(1.5 * s.interval);
    std::lock_guard<std::mutex> l(s.mu);
    if (s.o.rank != 0 && s.store_ok < cutoff) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "trainer 0 (serving the rendezvous store at %s:%d) stopped answering",
                    s.o.master_host.c_str(), s.o.master_port);
      return buf;
    }
    std::string out;
    for (int r = 0; r < s.o.world_size; ++r)
      if (r != s.o.rank && s.changed[r] < cutoff)
        out += (out.empty() ? "" : ", ") + std::string("trainer ") + std::to_string(r) + " (no heartbeat for " +
               Format(std::chrono::duration<double>(Clock::now() - s.changed[r]).count()) + ")";
    return out.empty() ? out : "lost " + out;
  }

 private:
  struct State {
    explicit State(const GradientSyncOptions& options)
        : o(options),
          interval(std::min(1.0, options.timeout_seconds / 4)),
          counters(options.world_size, -1),
          changed(options.world_size, Clock::now()) {}
    const GradientSyncOptions o;
    const double interval;
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    std::vector<int64_t> counters;  // last value seen per rank
    std::vector<Clock::time_point> changed;  // when it was last seen moving
    Clock::time_point store_ok;     // last successful round trip
  };

  static Clock::duration Seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }
  static std::string Format(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", s);
    return buf;
  }
  static std::string Key(int rank) { return "distgnn/alive/" + std::to_string(rank); }

  static void Loop(std::shared_ptr<State> st) {
    State& s = *st;
    c10::intrusive_ptr<c10d::TCPStore> store;
    std::unique_lock<std::mutex> l(s.mu);
    while (!s.stop) {
      l.unlock();
      std::vector<int64_t> seen(s.o.world_size, -1);
      bool ok = false;
      try {
        if (!store) {
          c10d::TCPStoreOptions so;
          so.port = static_cast<uint16_t>(s.o.master_port);
          so.waitWorkers = false;
          so.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(Seconds(2 * s.interval));
          store = c10::make_intrusive<c10d::TCPStore>(s.o.master_host, so);
        }
        store->add(Key(s.o.rank), 1);
        for (int r = 0; r < s.o.world_size; ++r)
          if (r != s.o.rank) seen[r] = store->add(Key(r), 0);
        ok = true;
      } catch (const std::exception&) {
        store.reset();  // reconnect next time
      }
      l.lock();
      if (ok) {
        s.store_ok = Clock::now();
        for (int r = 0; r < s.o.world_size; ++r)
          if (r != s.o.rank && seen[r] != s.counters[r]) s.counters[r] = seen[r], s.changed[r] = s.store_ok;
      }
      s.cv.wait_for(l, Seconds(s.interval), [&s] { return s.stop; });
    }
  }

  std::shared_ptr<State> st_;
};

struct GradientSync::Group {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
};

GradientSync::GradientSync(GradientSyncOptions options)
    : options_(std::move(options)), g_(std::make_unique<Group>()) {}
GradientSync::~GradientSync() = default;

Result<std::unique_ptr<GradientSync>> GradientSync::Connect(const GradientSyncOptions& o) {
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size)
    return Status::InvalidArgument("trainer rank " + std::to_string(o.rank) +
                                   " out of range for " + std::to_string(o.world_size) + " trainers");
  auto sync = std::unique_ptr<GradientSync>(new GradientSync(o));
  if (o.ring.connection.tls) {
    DG_ASSIGN_OR_RETURN(sync->ring_, RingAllReduce::Connect(o.ring));
    return sync;
  }
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_seconds * 1000));
  const auto rendezvous_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(o.rendezvous_timeout_seconds * 1000));
  const std::string where = o.master_host + ":" + std::to_string(o.master_port);
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<uint16_t>(o.master_port);
    so.isServer = o.rank == 0;
    so.numWorkers = static_cast<size_t>(o.world_size);
    so.waitWorkers = true;
    so.timeout = rendezvous_timeout;
    // Trainer 0's store listens on its machine's address only (bind_address_scope.h).
    std::optional<BindAddressScope> scope;
    if (so.isServer) {
      auto s = BindAddressScope::For(o.master_host);
      if (!s.ok()) return Status::InvalidArgument("trainer 0: rendezvous host: " + s.status().message());
      scope.emplace(std::move(*s));
    }
    sync->g_->store = c10::make_intrusive<c10d::TCPStore>(o.master_host, so);
  } catch (const std::exception& e) {
    return Status::Timeout("trainer " + std::to_string(o.rank) + ": rendezvous at " + where +
                           " (" + std::to_string(o.world_size) + " trainers, timeout " +
                           std::to_string(o.rendezvous_timeout_seconds) + " s) failed: " + FirstLine(e.what()));
  }
  try {
    // The context timeout bounds every collective (AllreduceOptions.timeout is
    // not applied by gloo here). Joining waits on the store (rendezvous
    // timeout) for the peers' addresses, so slow starters are fine.
    auto go = c10d::ProcessGroupGloo::Options::create(timeout);
    go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(o.host));
    sync->g_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(sync->g_->store, o.rank, o.world_size, go);
    sync->g_->store->setTimeout(timeout);
  } catch (const std::exception& e) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g s", o.rendezvous_timeout_seconds);
    return Status::PeerLost("trainer " + std::to_string(o.rank) + ": rendezvous at " + where +
                            ": joining the gloo group of " + std::to_string(o.world_size) + " trainers from host " +
                            o.host + " failed (timeout " + limit + "): " + FirstLine(e.what()));
  }
  if (o.world_size > 1) sync->watch_ = std::make_unique<PeerWatch>(o);
  return sync;
}

Status GradientSync::RunRing(const std::string& what, const torch::Tensor& flat, bool broadcast) {
  Status st;
  if (broadcast) {
    st = ring_->Broadcast(flat.data_ptr(), flat.numel() * flat.element_size());
  } else {
    RingDType dtype = RingDType::kFloat32;
    switch (flat.scalar_type()) {
      case torch::kFloat32: dtype = RingDType::kFloat32; break;
      case torch::kFloat64: dtype = RingDType::kFloat64; break;
      case torch::kInt32: dtype = RingDType::kInt32; break;
      case torch::kInt64: dtype = RingDType::kInt64; break;
      default: return Status::Unsupported(what + ": the TLS gradient ring sums float32, float64, int32 and int64");
    }
    st = ring_->Sum(flat.data_ptr(), static_cast<size_t>(flat.numel()), dtype);
  }
  if (st.ok()) return st;
  return Status::PeerLost("trainer " + std::to_string(options_.rank) + ": " + what + " across " +
                          std::to_string(options_.world_size) + " trainers failed: " + st.message());
}

Status GradientSync::Run(const std::string& what, const std::vector<torch::Tensor>& flat,
                         bool broadcast) {
  if (ring_) {
    for (const torch::Tensor& t : flat) DG_RETURN_IF_ERROR(RunRing(what, t.contiguous(), broadcast));
    return Status::OK();
  }
  try {
    std::vector<torch::Tensor> io = flat;
    c10::intrusive_ptr<c10d::Work> work;
    if (broadcast) {
      c10d::BroadcastOptions bo;
      bo.rootRank = 0;
      bo.timeout = std::chrono::milliseconds(static_cast<int64_t>(options_.timeout_seconds * 1000));
      work = g_->group->broadcast(io, bo);
    } else {
      c10d::AllreduceOptions ao;
      ao.timeout = std::chrono::milliseconds(static_cast<int64_t>(options_.timeout_seconds * 1000));
      work = g_->group->allreduce(io, ao);
    }
    work->wait();
  } catch (const std::exception& e) {
    std::string who = watch_ ? watch_->Diagnose() : "";
    if (who.empty()) who = "a trainer died, stopped answering or timed out";
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g s", options_.timeout_seconds);
    return Status::PeerLost("trainer " + std::to_string(options_.rank) + ": " + what + " across " +
                            std::to_string(options_.world_size) + " trainers failed: " + who + " (collective timeout " +
                            limit + "; gloo: " + FirstLine(e.what()) + ")");
  }
  return Status::OK();
}

Status GradientSync::Broadcast(const std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard no_grad;
  for (const auto& bucket : Buckets(tensors, options_.bucket_bytes)) {
    std::vector<torch::Tensor> parts;
    for (const auto& t : bucket) parts.push_back(t.detach().reshape({-1}));
    torch::Tensor flat = torch::cat(parts);
    DG_RETURN_IF_ERROR(Run("broadcast of parameters", {flat}, true));
    int64_t off = 0;
    for (const auto& t : bucket) {
      t.detach().copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
      off += t.numel();
    }
  }
  return Status::OK();
}

Status GradientSync::AllReduce(const std::vector<torch::Tensor>& tensors, bool average) {
  torch::NoGradGuard no_grad;
  for (const auto& bucket : Buckets(tensors, options_.bucket_bytes)) {
    std::vector<torch::Tensor> parts;
    for (const auto& t : bucket) parts.push_back(t.detach().reshape({-1}));
    torch::Tensor flat = torch::cat(parts);
    DG_RETURN_IF_ERROR(Run("gradient all-reduce", {flat}, false));
    if (average) flat.div_(options_.world_size);
    int64_t off = 0;
    for (const auto& t : bucket) {
      t.detach().copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
      off += t.numel();
    }
  }
  return Status::OK();
}

Status GradientSync::AllReduceGradients(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : params) {
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    grads.push_back(p.grad());
  }
  // The stop vote rides in the last bucket: no collective of its own.
  torch::Tensor vote = torch::full({1}, StopRequested() ? 1.0 : 0.0,
                                   grads.empty() ? torch::kFloat32 : grads.back().scalar_type());
  grads.push_back(vote);
  DG_RETURN_IF_ERROR(AllReduce(grads, true));
  stop_agreed_ = vote.item<double>() > 0;
  return Status::OK();
}

Result<bool> GradientSync::AgreeToStop() {
  torch::Tensor vote = torch::full({1}, StopRequested() ? 1.0 : 0.0, torch::kFloat64);
  DG_RETURN_IF_ERROR(AllReduce({vote}, false));
  stop_agreed_ = vote.item<double>() > 0;
  return stop_agreed_;
}

}  // namespace dg
