// GraphServer: serves one partition over the wire protocol (the server role).
//
// Create() loads the partition config, mmaps the partition (pages shared with
// every other process mapping it) and binds exactly options.host:options.port
// (a bind failure names the address, the port and the OS error). Run() serves
// with a pool of `threads` Asio threads until SHUTDOWN, RequestShutdown() or
// SIGTERM/SIGINT; then it stops accepting, lets in-flight requests finish
// (up to drain_seconds), flushes and closes every connection and returns OK.
// SIGTERM first lets the trainers and samplers connected at that moment
// leave (they finish a step and write a checkpoint that needs this server),
// at most stop_seconds; SIGINT, a second SIGTERM or SHUTDOWN stop at once
// (stop_hold.cpp).
//
// Each connection must start with HELLO (version, role, rank, graph, token);
// requests are then decoded on the connection's strand and executed on the
// pool, so one connection's pipelined requests run in parallel and are
// answered out of order. A bad request gets an ERROR frame with an exact
// message and one log line; the connection and every other client carry on.
// Framing errors close the offending connection only.
//
// Mutable tensors (INIT_TENSOR) are held only by index 0 of a partition; other
// indices refuse them with a message saying so (clients route them to 0).
// Index 0 loads <partition dir>/tensors/*.npy as persistent tensors in
// Create() (a bad file fails Create, naming it), writes one on SAVE_TENSOR,
// and saves every persistent tensor when Run() ends after a clean shutdown
// (SHUTDOWN, SIGTERM, SIGINT); Run() returns the save error, if any.
//
// CHECKPOINT (index 0) saves every mutable tensor and its sparse optimizer
// state as <partition dir>/checkpoints/step-N/ (written as a temporary
// directory, fsynced, renamed; answered once durable) or loads one back
// (server_checkpoint.cpp).
//
// Every request type is answered by its handler in the handler table
// (handler_table.h), which also names who may send it (role_policy.h).
// SPARSE_UPDATE and BARRIER answer late (deferred replies): a contribution is
// checked at once (an invalid one gets its ERROR and does not count), then
// waits until all W contributors of (tensor, step) have arrived
// (sparse_steps.h, barriers.h); the request that completes the step sums the
// gradients in rank order and applies the optimizer on its pool thread, then
// every waiter gets its reply. A step still incomplete peer_timeout_seconds
// after its first contribution fails every waiter with Timeout (naming the
// missing ranks); shutdown fails it with PeerLost.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/net/connection.h"
#include "common/net/messages.h"
#include "common/storage/partition_store.h"
#include "config/job_config.h"
#include "roles/server/barriers.h"
#include "roles/server/fair_scheduler.h"
#include "roles/server/front_door.h"
#include "roles/server/handler_table.h"
#include "roles/server/request_stats.h"
#include "roles/server/sparse_steps.h"

namespace dg {

class AggregateIndex;  // common/storage/aggregate_index.h (PULL_AGGREGATE)

struct ServerOptions {
  std::string partition_config;  // NAME.json
  int part = 0;
  int index = 0;                 // which of the partition's servers this is
  std::string host = "127.0.0.1";
  int port = 0;                  // 0 = any free port (see port())
  std::string token;
  int threads = 0;               // 0 = number of cores
  ConnectionOptions connection;  // frame limit, heartbeats, peer timeout (max_queued_bytes: set per connection)
  int max_inflight_per_connection = 32;
  double drain_seconds = 30.0;
  double stop_seconds = 60.0;  // SIGTERM: serving connected trainers/samplers at most this long (network.stop_seconds)
  // The YAML's `limits:`. Every size a request names is checked against
  // these before anything is allocated or computed.
  LimitsConfig limits;
};

// Half of the physical memory (the default mutable-tensor budget).
int64_t DefaultMutableTensorBytes();

class GraphServer {
 public:
  static Result<std::unique_ptr<GraphServer>> Create(const ServerOptions& options);
  ~GraphServer();

  int port() const { return port_; }
  const PartitionStore& store() const { return *store_; }
  Status Run(bool handle_signals = true);
  void RequestShutdown(const std::string& why);  // thread-safe
  // Prometheus text of this server (roles/server/server_metrics.cpp); thread-safe.
  std::string MetricsText();

 private:
  struct Session;
  GraphServer() = default;
  void MakeHandlerContext();
  void Accept();
  void OnFrame(const std::shared_ptr<Session>& s, Frame f);
  void OnHello(const std::shared_ptr<Session>& s, const Frame& f);
  void Execute(const std::shared_ptr<Session>& s, Frame f);
  // Runs the request's handler (handler_table.h) and answers it; both
  // Execute (pool) and OnFrame (strand entries) call it.
  void Dispatch(const std::shared_ptr<Session>& s, const Frame& f);
  void PostRunToken();
  Result<Answer> Handle(const Call& call);
  Status SavePersistentTensors();
  void Reject(const std::shared_ptr<Session>& s, uint64_t id, uint16_t type, const Status& st,
              bool close_after = false);
  void Drain(std::chrono::steady_clock::time_point started, bool closing);
  // stop_hold.cpp
  void StopWhenClientsLeave();
  void PollClientsLeft(std::chrono::steady_clock::time_point deadline);
  int ConnectedClients();
  StatsReply MakeStats() const;

  ServerOptions options_;
  PartitionConfig config_;
  std::unique_ptr<PartitionStore> store_;
  std::shared_ptr<const AggregateIndex> aggregate_index_;  // agg_*.npy; not present() on older partitions
  std::string part_dir_;  // this partition's directory (persistent tensors: part_dir_/tensors)
  int port_ = 0;
  std::chrono::steady_clock::time_point started_;

  asio::io_context io_;
  std::unique_ptr<FrontDoor> front_door_;  // unauthenticated connections (front_door.h)
  std::unique_ptr<tcp::acceptor> acceptor_;
  std::unique_ptr<asio::signal_set> signals_;
  std::unique_ptr<asio::steady_timer> drain_timer_;
  std::unique_ptr<asio::steady_timer> stop_timer_;  // SIGTERM: until the clients leave

  std::mutex mu_;  // sessions_, authenticated_, total_connections_
  std::map<Session*, std::shared_ptr<Session>> sessions_;
  int64_t authenticated_ = 0;  // sessions past their handshake (limits.max_connections)
  // Deferred replies (BARRIER, SPARSE_UPDATE), each with its own lock; they
  // share limits.max_pending.
  std::unique_ptr<PendingSlots> pending_;
  std::unique_ptr<Barriers> barriers_;
  std::unique_ptr<SparseSteps> sparse_steps_;
  std::unique_ptr<ServerContext> context_;  // what the handlers see
  std::unique_ptr<FairScheduler> scheduler_;
  uint64_t total_connections_ = 0;

  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> inflight_{0};
  std::atomic<int64_t> queued_request_bytes_{0};  // payloads of requests queued or running
  RequestStats stats_;
};

}  // namespace dg
