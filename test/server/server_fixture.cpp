#include "test/server/server_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <regex>
#include <thread>

#include "common/codec.h"
#include "common/connection.h"
#include "common/npy.h"
#include "common/partition.h"

namespace dg::test {

ServerCluster::~ServerCluster() {
  for (auto& p : procs_) {
    if (p->running()) {
      p->Signal(SIGKILL);
      p->Wait(5);
    }
  }
}

void ServerCluster::Start(const std::string& json, int num_parts, int servers_per_part, const std::string& token,
                          const std::vector<std::string>& extra) {
  per_part_ = servers_per_part;
  logdir_ = std::make_unique<TempDir>();
  endpoints_.assign(num_parts, ServerEndpoints{"127.0.0.1", {}});
  for (int p = 0; p < num_parts; ++p) {
    for (int i = 0; i < servers_per_part; ++i) {
      // --port 0: the server binds any free port and logs it (picking a free
      // port here and binding it later races with tests running in parallel).
      std::vector<std::string> argv = {DistgnnBin(), "--role", "server", "--partition-config", json,
                                       "--part", std::to_string(p), "--index", std::to_string(i),
                                       "--host", "127.0.0.1", "--port", "0",
                                       "--threads", "2", "--token", token, "--heartbeat", "0.2",
                                       "--peer-timeout", "3"};
      argv.insert(argv.end(), extra.begin(), extra.end());
      auto proc = std::make_unique<Subprocess>();
      proc->Start(argv, *logdir_ / ("server" + std::to_string(p) + "_" + std::to_string(i) + ".log"));
      procs_.push_back(std::move(proc));
    }
  }
  for (size_t k = 0; k < procs_.size(); ++k) {
    auto& proc = procs_[k];
    auto t0 = std::chrono::steady_clock::now();
    std::smatch m;
    std::string out;
    while (!std::regex_search(out = proc->Output(), m, std::regex("serving partition .* on 127\\.0\\.0\\.1:([0-9]+) "))) {
      INFO(out);
      REQUIRE(proc->running());
      REQUIRE(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    endpoints_[k / servers_per_part].ports.push_back(std::stoi(m[1]));
  }
}

std::string ServerCluster::logs() const {
  std::string s;
  for (auto& p : procs_) s += p->Output();
  return s;
}

std::unique_ptr<TestGraph> MakeTestGraph(int64_t nodes, int64_t edges, int64_t feat_dim, int parts, uint64_t seed,
                                         bool power_law) {
  auto tg = std::make_unique<TestGraph>();
  tg->dir = std::make_unique<TempDir>();
  tg->g = power_law ? MakePowerLawGraph(nodes, edges, feat_dim, seed) : MakeRandomGraph(nodes, edges, feat_dim, seed);
  auto json = WriteContiguousPartition(tg->g, parts, tg->dir->path());
  REQUIRE(json.ok());
  tg->json = *json;
  auto cfg = LoadPartitionConfig(tg->json);
  INFO(cfg.status().ToString());
  REQUIRE(cfg.ok());
  tg->config = *cfg;
  tg->in_edges.resize(nodes);
  for (int64_t e = 0; e < edges; ++e) tg->in_edges[tg->g.dst[e]].push_back(e);
  auto oe = NpyLoad(tg->dir->path() + "/orig_eids.npy");
  REQUIRE(oe.ok());
  tg->orig_eid.assign(oe->as<int64_t>(), oe->as<int64_t>() + edges);
  return tg;
}

ClientOptions FastClientOptions() {
  ClientOptions o;
  o.deadline_seconds = 30;
  o.connect_timeout_seconds = 10;
  o.heartbeat_seconds = 0.2;
  o.peer_timeout_seconds = 2.0;
  o.max_ids_per_request = 1000;
  return o;
}

std::unique_ptr<DistGraphClient> ConnectClient(const TestGraph& tg, const ServerCluster& c, ClientOptions options,
                                               const std::string& token, const std::string& role) {
  auto client = DistGraphClient::Connect(tg.config, c.endpoints(), token, role, 0, options);
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  return std::move(*client);
}

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

bool RawClient::TryHello(const std::string& token) {
  dg::Hello hello;
  hello.role = "client";
  hello.rank = 8;
  hello.token = token;
  HandshakeDialer dialer(hello);
  auto payload = dialer.EncodeHello();
  if (!payload.ok()) return false;
  SendFrame(uint16_t(MsgType::kHello), 0, payload->Flatten());
  FrameHeader h;
  std::string p;
  if (!ReadFrame(&h, &p) || h.type != uint16_t(MsgType::kChallenge)) return false;
  auto auth = dialer.OnChallenge(reinterpret_cast<const uint8_t*>(p.data()), p.size());
  if (!auth.ok()) return false;
  SendFrame(uint16_t(MsgType::kAuth), 0, auth->Flatten());
  if (!ReadFrame(&h, &p) || h.type != uint16_t(MsgType::kWelcome)) return false;
  return dialer.OnWelcome(reinterpret_cast<const uint8_t*>(p.data()), p.size()).ok();
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

void RawClient::Handshake(const dg::Hello& hello, FrameHeader* h, std::string* p) {
  HandshakeDialer dialer(hello);
  auto payload = dialer.EncodeHello();
  REQUIRE(payload.ok());
  SendFrame(uint16_t(MsgType::kHello), 0, payload->Flatten());
  REQUIRE(ReadFrame(h, p));
  if (h->type != uint16_t(MsgType::kChallenge)) return;
  auto auth = dialer.OnChallenge(reinterpret_cast<const uint8_t*>(p->data()), p->size());
  REQUIRE(auth.ok());
  SendFrame(uint16_t(MsgType::kAuth), 0, auth->Flatten());
  REQUIRE(ReadFrame(h, p));
  if (h->type == uint16_t(MsgType::kWelcome)) {
    auto w = dialer.OnWelcome(reinterpret_cast<const uint8_t*>(p->data()), p->size());
    INFO(w.status().ToString());
    REQUIRE(w.ok());
  }
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

bool RawClient::ReadFrame(FrameHeader* h, std::string* payload, double timeout_s) {
  while (true) {
    uint8_t buf[kFrameHeaderSize];
    if (!ReadExact(buf, kFrameHeaderSize, timeout_s)) return false;
    auto r = DecodeFrameHeader(buf, kDefaultMaxFrameBytes);
    if (!r.ok()) return false;
    *h = *r;
    payload->assign(h->payload_length, '\0');
    if (h->payload_length && !ReadExact(payload->data(), h->payload_length, timeout_s)) return false;
    if (h->type != uint16_t(MsgType::kHeartbeat)) return true;
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

}  // namespace dg::test
