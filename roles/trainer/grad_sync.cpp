#include "roles/trainer/grad_sync.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>

namespace dg {
namespace {

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

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
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_seconds * 1000));
  const std::string where = o.master_host + ":" + std::to_string(o.master_port);
  try {
    c10d::TCPStoreOptions so;
    so.port = static_cast<uint16_t>(o.master_port);
    so.isServer = o.rank == 0;
    so.numWorkers = static_cast<size_t>(o.world_size);
    so.waitWorkers = true;
    so.timeout = timeout;
    sync->g_->store = c10::make_intrusive<c10d::TCPStore>(o.master_host, so);
  } catch (const std::exception& e) {
    return Status::Timeout("trainer " + std::to_string(o.rank) + ": rendezvous at " + where +
                           " (" + std::to_string(o.world_size) + " trainers, timeout " +
                           std::to_string(o.timeout_seconds) + " s) failed: " + FirstLine(e.what()));
  }
  try {
    auto go = c10d::ProcessGroupGloo::Options::create(timeout);
    go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(o.host));
    sync->g_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(sync->g_->store, o.rank, o.world_size, go);
  } catch (const std::exception& e) {
    return Status::PeerLost("trainer " + std::to_string(o.rank) + ": joining the gloo group at " +
                            where + " from host " + o.host + " failed: " + FirstLine(e.what()));
  }
  return sync;
}

Status GradientSync::Run(const std::string& what, const std::vector<torch::Tensor>& flat,
                         bool broadcast) {
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
    return Status::PeerLost("trainer " + std::to_string(options_.rank) + ": " + what + " across " +
                            std::to_string(options_.world_size) + " trainers failed (a trainer " +
                            "died, stopped answering or timed out after " +
                            std::to_string(options_.timeout_seconds) + " s): " + FirstLine(e.what()));
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
  return AllReduce(grads, true);
}

}  // namespace dg
