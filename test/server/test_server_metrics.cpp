// The Prometheus endpoint of a real server process (`--metrics-port 0`): a
// plain-socket HTTP client and HttpGet (Beast) read counters, histograms,
// bytes, tensors and RSS that match the requests this test made.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>

#include "common/net/metrics_http.h"
#include "common/net/prometheus.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

// One HTTP/1.1 request over a plain socket; returns the whole response (headers and body).
std::string RawHttp(int port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  REQUIRE(send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, n);  // the server closes
  close(fd);
  return out;
}

double Sample(const std::vector<PromSample>& samples, const std::string& name,
              const std::map<std::string, std::string>& labels = {}) {
  for (const auto& s : samples) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : labels) match = match && s.labels.count(k) && s.labels.at(k) == v;
    if (match) return s.value;
  }
  return -1;
}

}  // namespace

TEST_CASE("a server's /metrics counts requests, bytes and latencies per message type", "[server][metrics]") {
  auto tg = MakeTestGraph(2000, 12000, 16, 1, 7);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, "", {"--metrics-port", "0"});
  std::smatch m;
  const std::string log = cluster.proc(0, 0).Output();
  REQUIRE(std::regex_search(log, m, std::regex("metrics on http://127\\.0\\.0\\.1:([0-9]+)/metrics")));
  const int port = std::stoi(m[1]);

  auto client = ConnectClient(*tg, cluster);
  std::vector<int64_t> ids{1, 2, 3, 500, 1999};
  for (int i = 0; i < 3; ++i) REQUIRE(client->Pull("features", ids).ok());
  {  // a PULL the server must refuse: an ERROR reply, counted as an error
    RawClient raw(cluster.port(0, 0));
    raw.Hello();
    raw.SendFrame(static_cast<uint16_t>(MsgType::kPull), 77, "garbage");
    FrameHeader h;
    std::string payload;
    REQUIRE(raw.ReadFrame(&h, &payload));
    CHECK(h.type == static_cast<uint16_t>(MsgType::kError));
  }

  const std::string response =
      RawHttp(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  INFO(response.substr(0, 4000));
  REQUIRE(response.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(response.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  const std::string body = response.substr(response.find("\r\n\r\n") + 4);
  const auto samples = ParsePromText(body);

  // 4 PULLs: 3 good, 1 error.
  CHECK(Sample(samples, "distgnn_server_requests_total", {{"type", "PULL"}}) == 4);
  CHECK(Sample(samples, "distgnn_server_request_errors_total", {{"type", "PULL"}}) == 1);
  CHECK(Sample(samples, "distgnn_server_sent_bytes_total", {{"type", "PULL"}}) > 3 * 5 * 16 * 4);
  CHECK(Sample(samples, "distgnn_server_received_bytes_total", {{"type", "PULL"}}) > 0);
  // Every frame of the process by its own type and direction, header included: 3 PULL
  // replies of 5 rows, 4 PULL requests, 1 ERROR reply.
  CHECK(Sample(samples, "distgnn_message_bytes_total", {{"type", "PULL"}, {"direction", "sent"}}) >=
        3 * (5 * 16 * 4 + kFrameHeaderSize));
  CHECK(Sample(samples, "distgnn_message_bytes_total", {{"type", "PULL"}, {"direction", "received"}}) >=
        4 * kFrameHeaderSize + 7);
  CHECK(Sample(samples, "distgnn_message_bytes_total", {{"type", "ERROR"}, {"direction", "sent"}}) > kFrameHeaderSize);
  CHECK(Sample(samples, "distgnn_server_request_duration_seconds_count", {{"type", "PULL"}}) == 4);
  CHECK(Sample(samples, "distgnn_server_request_duration_seconds_bucket", {{"type", "PULL"}, {"le", "+Inf"}}) == 4);
  CHECK(Sample(samples, "distgnn_server_request_duration_seconds_sum", {{"type", "PULL"}}) > 0);
  // Buckets are cumulative.
  double last = 0;
  for (const auto& s : samples)
    if (s.name == "distgnn_server_request_duration_seconds_bucket" && s.labels.at("type") == "PULL") {
      CHECK(s.value >= last);
      last = s.value;
    }
  CHECK(Sample(samples, "distgnn_server_connections") >= 1);
  CHECK(Sample(samples, "distgnn_server_connections_total") >= 2);
  CHECK(Sample(samples, "distgnn_server_uptime_seconds") > 0);
  CHECK(Sample(samples, "distgnn_server_tensor_bytes", {{"name", "features"}}) == 2000.0 * 16 * 4);
  CHECK(Sample(samples, "distgnn_process_resident_bytes") > 1e6);
  CHECK(Sample(samples, "distgnn_process_peak_resident_bytes") > 1e6);
  // Every family has exactly one HELP and one TYPE line.
  for (const char* family : {"distgnn_server_requests_total", "distgnn_server_request_duration_seconds"}) {
    const std::string help = std::string("# HELP ") + family + " ", type = std::string("# TYPE ") + family + " ";
    CHECK(body.find(help) != std::string::npos);
    CHECK(body.find(help, body.find(help) + 1) == std::string::npos);
    CHECK(body.find(type, body.find(type) + 1) == std::string::npos);
  }

  // Unknown paths are 404; the Beast client reads the same endpoint.
  CHECK(RawHttp(port, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 404", 0) == 0);
  auto got = HttpGet("127.0.0.1", port, "/metrics");
  REQUIRE(got.ok());
  CHECK(got->find("distgnn_server_requests_total{type=\"PULL\"} 4") != std::string::npos);
  CHECK(!HttpGet("127.0.0.1", port, "/nope").ok());
}
