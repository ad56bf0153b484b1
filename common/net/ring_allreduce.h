// RingAllReduce: sums and broadcasts buffers across a job's trainers over the
// job's own connections (common/net/connection.h), so that with TLS on the
// gradients travel encrypted and every trainer is proven by its certificate
// (gloo, the plaintext path, has no TLS transport in Debian's build).
//
// Trainer r listens at hosts[r]:port_base + r and dials trainer r+1 (mod n);
// the dial is a HELLO as (trainer, r) with the job's token, which the
// acceptor checks names its left neighbour (and, with TLS, Connection checks
// that the certificate is a trainer's). Sum is the bandwidth-optimal ring:
// n-1 reduce-scatter steps, then n-1 all-gather steps, each moving 1/n of the
// buffer as one GRAD_CHUNK frame (request id: the step's sequence number, so
// a frame out of order is a protocol error, never silently summed). Broadcast
// passes rank 0's buffer along the ring. Every wait is bounded by
// timeout_seconds; a lost neighbour ends the collective with PeerLost naming it.
// Not thread-safe: one collective at a time, from one thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/net/connection.h"

namespace dg {

struct RingOptions {
  int rank = 0, world_size = 1;
  std::vector<std::string> hosts;  // every rank's address
  int port_base = 0;               // rank r listens at port_base + r
  std::string graph_name, token;
  ConnectionOptions connection;    // TLS when connection.tls is set
  double connect_timeout_seconds = 300;  // neighbours starting late
  double timeout_seconds = 60;           // each step of a collective
};

// The element types Sum adds.
enum class RingDType { kFloat32, kFloat64, kInt32, kInt64 };

class RingAllReduce {
 public:
  // Listens, dials the right neighbour and waits for the left one.
  static Result<std::unique_ptr<RingAllReduce>> Connect(const RingOptions& options);
  ~RingAllReduce();

  // Sums `count` elements at `data` in place across the ring.
  Status Sum(void* data, size_t count, RingDType dtype);
  // Overwrites `bytes` at `data` with rank 0's.
  Status Broadcast(void* data, size_t bytes);

 private:
  explicit RingAllReduce(RingOptions options);
  Status Listen();
  void Accept();
  void OnLeftFrame(const std::shared_ptr<Connection>& conn, const std::shared_ptr<HandshakeAcceptor>& hs,
                   Frame f);
  void OnLeftClose(const Status& why);
  Status DialRight();
  Status WaitForLeft();
  Status Send(const uint8_t* data, size_t bytes);
  // The next frame from the left neighbour, which must carry sequence `seq` and `bytes` bytes.
  Result<Frame> Receive(size_t bytes);

  RingOptions o_;
  std::string left_name_, right_name_;
  asio::io_context io_;
  std::unique_ptr<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  std::unique_ptr<tcp::acceptor> acceptor_;
  std::thread io_thread_;
  std::shared_ptr<Connection> right_;
  uint64_t send_seq_ = 0, recv_seq_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<Connection> left_;  // set once its handshake is done
  std::deque<Frame> inbox_;
  Status left_lost_;
  bool left_gone_ = false;
};

}  // namespace dg
