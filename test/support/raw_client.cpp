#include "test/support/raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>

#include "common/net/codec.h"
#include "common/net/connection.h"

namespace dg::test {

// ------------------------------------------------------------------ RawClient

RawClient::RawClient(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd_ >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

RawClient::RawClient(int port, bool) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

RawClient::~RawClient() {
  if (fd_ >= 0) ::close(fd_);
}

void RawClient::SendBytes(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t k = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (k <= 0) return;  // peer closed; the test checks what it read
    off += static_cast<size_t>(k);
  }
}

void RawClient::SendFrame(uint16_t type, uint64_t id, const std::string& payload, uint32_t flags) {
  FrameHeader h;
  h.type = type;
  h.flags = flags;
  h.request_id = id;
  h.payload_length = payload.size();
  uint8_t buf[kFrameHeaderSize];
  EncodeFrameHeader(h, buf);
  SendBytes(std::string(reinterpret_cast<char*>(buf), kFrameHeaderSize) + payload);
}

namespace {
// One handshake step without assertions: false on close, timeout or a bad payload.
bool HandshakeSteps(RawClient* c, const dg::Hello& hello, FrameHeader* h, std::string* p) {
  HandshakeDialer dialer(hello);
  auto payload = dialer.EncodeHello();
  if (!payload.ok()) return false;
  c->SendFrame(uint16_t(MsgType::kHello), 0, payload->Flatten());
  if (!c->ReadFrame(h, p)) return false;
  if (h->type != uint16_t(MsgType::kChallenge)) return true;  // an ERROR ends it
  auto auth = dialer.OnChallenge(reinterpret_cast<const uint8_t*>(p->data()), p->size());
  if (!auth.ok()) return false;
  c->SendFrame(uint16_t(MsgType::kAuth), 0, auth->Flatten());
  if (!c->ReadFrame(h, p)) return false;
  if (h->type != uint16_t(MsgType::kWelcome)) return true;
  return dialer.OnWelcome(reinterpret_cast<const uint8_t*>(p->data()), p->size()).ok();
}
}  // namespace

void RawClient::Handshake(const dg::Hello& hello, FrameHeader* h, std::string* p) {
  REQUIRE(HandshakeSteps(this, hello, h, p));
}

bool RawClient::TryHello(const std::string& token) {
  dg::Hello hello;
  hello.role = "client";
  hello.rank = 8;
  hello.token = token;
  FrameHeader h;
  std::string p;
  return HandshakeSteps(this, hello, &h, &p) && h.type == uint16_t(MsgType::kWelcome);
}

void RawClient::Hello(const std::string& token, const std::string& graph) {
  dg::Hello hello;
  hello.role = "client";
  hello.rank = 7;
  hello.graph_name = graph;
  hello.token = token;
  FrameHeader h;
  std::string p;
  Handshake(hello, &h, &p);
  INFO(ErrorMessage(p));
  REQUIRE(h.type == uint16_t(MsgType::kWelcome));
}

uint16_t RawClient::HelloAs(const std::string& role, int rank, const std::string& token, const std::string& graph,
                            std::string* reply) {
  dg::Hello hello;
  hello.role = role;
  hello.rank = rank;
  hello.graph_name = graph;
  hello.token = token;
  FrameHeader h;
  if (!HandshakeSteps(this, hello, &h, reply)) return 0;
  return h.type;
}

RawClient RawClient::Adopt(int fd) {
  RawClient c;
  c.fd_ = fd;
  return c;
}

bool RawClient::ReadExact(void* p, size_t n, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(int(timeout_s * 1000));
  size_t off = 0;
  while (off < n) {
    int left = int(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) return false;
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, left) <= 0) return false;
    ssize_t k = ::recv(fd_, static_cast<char*>(p) + off, n - off, 0);
    if (k <= 0) return false;
    off += static_cast<size_t>(k);
  }
  return true;
}

bool RawClient::ReadFrame(FrameHeader* h, std::string* payload, double timeout_s, bool return_heartbeats) {
  while (true) {
    uint8_t buf[kFrameHeaderSize];
    if (!ReadExact(buf, kFrameHeaderSize, timeout_s)) return false;
    auto r = DecodeFrameHeader(buf, kDefaultMaxFrameBytes);
    if (!r.ok()) return false;
    *h = *r;
    payload->assign(h->payload_length, '\0');
    if (h->payload_length && !ReadExact(payload->data(), h->payload_length, timeout_s)) return false;
    if (h->type != uint16_t(MsgType::kHeartbeat)) return true;
    ++heartbeats_;
    if (return_heartbeats) return true;
  }
}

bool RawClient::WaitClosed(double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(int(timeout_s * 1000));
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, 100) <= 0) continue;
    ssize_t k = ::recv(fd_, buf, sizeof(buf), 0);
    if (k <= 0) return true;
  }
  return false;
}

std::string ErrorMessage(const std::string& payload) {
  Decoder d(payload.data(), payload.size(), nullptr, "ERROR");
  d.U8();
  std::string m = d.String();
  return d.status().ok() ? m : "<undecodable ERROR payload>";
}

RawListener::RawListener(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd_ >= 0);
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(::listen(fd_, 16) == 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

RawListener::~RawListener() {
  if (fd_ >= 0) ::close(fd_);
}

RawClient RawListener::Accept(double timeout_s) {
  pollfd pfd{fd_, POLLIN, 0};
  if (::poll(&pfd, 1, int(timeout_s * 1000)) <= 0) return RawClient::Adopt(-1);
  int c = ::accept(fd_, nullptr, nullptr);
  if (c >= 0) {
    int one = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  return RawClient::Adopt(c);
}

}  // namespace dg::test
