// GradientSync: data parallelism across trainers over gloo (c10d), as PyTorch's
// DistributedDataParallel does it, or, with TLS on, over the job's own TLS
// connections (RingAllReduce, common/net/ring_allreduce.h: gloo has no TLS
// transport here). Both carry the same buckets; the rest of this comment
// describes the gloo path, whose store and heartbeats the ring does without
// (a lost neighbour ends its connection, which names it).
//
// All trainers rendezvous at a c10d::TCPStore served by rank 0 at
// (master_host, master_port); each binds its gloo transport to its own `host`
// (never a guessed NIC). Gradients are all-reduced in flat buckets of about
// `bucket_bytes` (not one call per tensor) and averaged. The rendezvous waits
// up to `rendezvous_timeout_seconds` for every trainer (they start at different
// times); every collective has `timeout_seconds`: a dead or frozen peer becomes
// a PeerLost Status, never a hang. To say *which* trainer was lost, every
// trainer bumps a heartbeat key in the store every timeout/4 (at most 1 s); when
// a collective fails, the trainers whose heartbeat stopped (or trainer 0, if
// its store stopped answering) are named in the message.
// Includes torch: use only inside roles/trainer.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/net/ring_allreduce.h"

namespace dg {

struct GradientSyncOptions {
  std::string master_host = "127.0.0.1";  // where rank 0 serves the TCPStore
  int master_port = 29500;
  std::string host = "127.0.0.1";         // this trainer's own address (gloo binds it)
  int rank = 0;
  int world_size = 1;
  double timeout_seconds = 60;            // every collective
  double rendezvous_timeout_seconds = 300;
  int64_t bucket_bytes = 25 << 20;
  // With ring.connection.tls set, the collectives run over the job's TLS
  // connections (common/net/ring_allreduce.h) instead of gloo and its store.
  RingOptions ring;
};

class GradientSync {
 public:
  static Result<std::unique_ptr<GradientSync>> Connect(const GradientSyncOptions& options);
  ~GradientSync();

  int rank() const { return options_.rank; }
  int world_size() const { return options_.world_size; }
  // Overwrites `tensors` on every rank with rank 0's values.
  Status Broadcast(const std::vector<torch::Tensor>& tensors);
  // Sums `tensors` in place across ranks (bucketed), then divides by world size
  // if `average`.
  Status AllReduce(const std::vector<torch::Tensor>& tensors, bool average);
  // Averages the gradients of `params` (an undefined grad counts as zeros).
  // The same collective carries each trainer's stop vote (StopRequested,
  // common/base/stop_request.h): afterwards stop_agreed() says, identically
  // on every trainer, whether any of them was asked to stop.
  Status AllReduceGradients(const std::vector<torch::Tensor>& params);
  bool stop_agreed() const { return stop_agreed_; }
  // The stop vote alone (between epochs, where no gradients move).
  Result<bool> AgreeToStop();

 private:
  struct Group;      // the c10d store and process group (kept out of this header)
  class PeerWatch;   // heartbeats through the store, to name a lost trainer
  explicit GradientSync(GradientSyncOptions options);
  Status Run(const std::string& what, const std::vector<torch::Tensor>& flat, bool broadcast);

  GradientSyncOptions options_;
  std::unique_ptr<Group> g_;
  std::unique_ptr<PeerWatch> watch_;
  std::unique_ptr<RingAllReduce> ring_;  // the TLS path; null on the gloo path
  Status RunRing(const std::string& what, const torch::Tensor& flat, bool broadcast);
  bool stop_agreed_ = false;
};

}  // namespace dg
