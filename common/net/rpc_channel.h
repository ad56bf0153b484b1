// RpcChannel: the requesting side of one connection (client -> server).
//
// Requests get increasing ids and may be pipelined: Start() queues a request
// and returns at once; responses complete their PendingCall in any order.
// Wait() blocks the caller until the response, the deadline (Timeout naming
// the peer and the message type) or the loss of the connection (PeerLost /
// Timeout from Connection's heartbeat check, naming the peer) -- whichever
// comes first. Thread-safe: any number of threads may Start/Wait concurrently.
// A lost channel stays lost: every later call fails at once with the same error.
//
// Start() may name a PayloadSink (connection.h) for the response: a response
// of the request's type whose payload has exactly the sink's size is then
// read straight into the sink's memory, and its Frame carries only the head
// bytes (Frame::sunk_bytes says so). Any other answer (an ERROR, another size)
// arrives as usual and the sink's memory is untouched.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/net/connection.h"

namespace dg {

class PendingCall {
 public:
  // Blocks until completion or the deadline.
  Result<Frame> Wait(std::chrono::steady_clock::time_point deadline);
  MsgType type() const { return type_; }

 private:
  friend class RpcChannel;
  void Complete(Result<Frame> r);
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  Result<Frame> result_{Status::Internal("pending")};
  MsgType type_ = MsgType::kError;
  uint64_t id_ = 0;
  PayloadSink sink_;  // body == nullptr: none
  std::weak_ptr<class RpcChannel> channel_;
  std::string peer_;
};

class RpcChannel : public std::enable_shared_from_this<RpcChannel> {
 public:
  // Connects and shakes hands within timeout_s.
  static Result<std::shared_ptr<RpcChannel>> Dial(asio::io_context& io, const std::string& host,
                                                  int port, const Hello& hello,
                                                  const ConnectionOptions& options,
                                                  double timeout_s, const std::string& peer);
  ~RpcChannel();

  std::shared_ptr<PendingCall> Start(MsgType type, BufferList payload, PayloadSink reply_sink = {});
  // Start + Wait with a relative timeout.
  Result<Frame> Call(MsgType type, BufferList payload, double timeout_s);

  bool alive() const;
  Status lost_status() const;
  const Welcome& welcome() const { return welcome_; }
  const std::string& peer() const { return peer_; }
  // Bytes this channel's connection has sent plus received (frames, heartbeats).
  uint64_t bytes() const;
  void Close();

 private:
  friend class PendingCall;
  RpcChannel(std::string peer) : peer_(std::move(peer)) {}
  void OnFrame(Frame f);
  bool RouteReply(const FrameHeader& h, PayloadSink* sink);
  void OnClose(const Status& why);
  void Forget(uint64_t id);

  std::string peer_;
  Welcome welcome_;
  std::shared_ptr<Connection> conn_;
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, std::shared_ptr<PendingCall>> pending_;
  Status lost_;  // set once the connection is gone
  bool is_lost_ = false;
};

}  // namespace dg
