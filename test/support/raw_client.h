// A blocking POSIX-socket peer speaking our framing by hand, for sending
// arbitrary (also malformed) frames to servers, samplers and trainers, and a
// loopback listener for playing the trainer side to a real sampler.
#pragma once

#include <cstdint>
#include <string>

#include "common/net/handshake.h"
#include "common/net/protocol.h"

namespace dg::test {

class RawClient {
 public:
  explicit RawClient(int port);  // connects to 127.0.0.1:port
  // No Catch assertions (safe on other threads): ok() says if it connected.
  RawClient(int port, bool quiet);
  bool ok() const { return fd_ >= 0; }
  static RawClient Adopt(int fd);  // an accepted socket
  ~RawClient();
  RawClient(RawClient&& other) noexcept : fd_(other.fd_), heartbeats_(other.heartbeats_) { other.fd_ = -1; }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void SendBytes(const std::string& bytes);
  void SendFrame(uint16_t type, uint64_t id, const std::string& payload, uint32_t flags = 0);
  void Hello(const std::string& token = "", const std::string& graph = "");  // expects WELCOME
  bool TryHello(const std::string& token);  // no assertions; false unless WELCOME
  // Runs the v2 handshake (HELLO, CHALLENGE, AUTH) as (role, rank) and returns
  // the type of the frame that ended it: WELCOME, or the ERROR (payload in *reply).
  uint16_t HelloAs(const std::string& role, int rank, const std::string& token, const std::string& graph,
                   std::string* reply);
  // The same with a whole Hello; *h and *payload get the last frame read.
  void Handshake(const dg::Hello& hello, FrameHeader* h, std::string* payload);
  // Next frame, or false on close/timeout. Heartbeats are counted and, unless
  // return_heartbeats, skipped.
  bool ReadFrame(FrameHeader* h, std::string* payload, double timeout_s = 10, bool return_heartbeats = false);
  // True if the peer closed the connection within timeout_s (frames are drained).
  bool WaitClosed(double timeout_s = 10);
  int fd() const { return fd_; }
  int heartbeats() const { return heartbeats_; }  // read by ReadFrame so far

 private:
  RawClient() = default;
  bool ReadExact(void* p, size_t n, double timeout_s);
  int fd_ = -1;
  int heartbeats_ = 0;
};

// A listening socket on 127.0.0.1 (port 0 = any); Accept waits up to timeout_s.
class RawListener {
 public:
  explicit RawListener(int port = 0);
  ~RawListener();
  int port() const { return port_; }
  // The next connection, or fd -1 (a RawClient whose fd() < 0) on timeout.
  RawClient Accept(double timeout_s);

 private:
  int fd_ = -1, port_ = 0;
};

std::string ErrorMessage(const std::string& payload);  // message field of an ERROR payload

}  // namespace dg::test
