// TLS 1.3 with mutual authentication (docs/security.md "TLS") against a real
// `distgnn --role server` on 127.0.0.1: what `openssl s_client` sees, a client
// with the job's certificates served, and every hostile or mistaken peer
// refused with the server serving on.
#include <catch2/catch.hpp>

#include <boost/asio/ssl.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/net/metrics_http.h"
#include "common/net/tls_certs.h"
#include "common/net/tls_context.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

const char kToken[] = "tls-token";

// A job CA with certificates for every role on 127.0.0.1, and a second CA
// (another job's) with a client certificate of its own.
struct Pki {
  TempDir dir;
  Pki() {
    CertValidity v;
    REQUIRE(MakeJobCa("test", v, dir / "ca.crt", dir / "ca.key", false).ok());
    for (const char* role : {"server", "client", "trainer", "sampler"})
      REQUIRE(IssueRoleCertificate(dir / "ca.crt", dir / "ca.key", role, "127.0.0.1", v,
                                   dir / (std::string(role) + ".crt"), dir / (std::string(role) + ".key"), false)
                  .ok());
    REQUIRE(MakeJobCa("other", v, dir / "other-ca.crt", dir / "other-ca.key", false).ok());
    REQUIRE(IssueRoleCertificate(dir / "other-ca.crt", dir / "other-ca.key", "client", "127.0.0.1", v,
                                 dir / "foreign.crt", dir / "foreign.key", false)
                .ok());
  }
  TlsFiles Files(const std::string& stem, const std::string& ca = "ca.crt") const {
    TlsFiles f;
    f.ca = dir / ca;
    f.cert = dir / (stem + ".crt");
    f.key = dir / (stem + ".key");
    return f;
  }
  std::vector<std::string> ServerFlags() const {
    return {"--tls-ca", dir / "ca.crt", "--tls-cert", dir / "server.crt", "--tls-key", dir / "server.key"};
  }
  ClientOptions Client(const std::string& stem, const std::string& role, const std::string& ca = "ca.crt") const {
    ClientOptions o = FastClientOptions();
    auto tls = TlsContext::Load(Files(stem, ca), role);
    INFO(tls.status().ToString());
    REQUIRE(tls.ok());
    o.connection.tls = *tls;
    o.connect_timeout_seconds = 5;
    return o;
  }
};

// `command` through the shell, stdout and stderr together.
std::string Shell(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

void ExpectServed(const TestGraph& tg, const ServerCluster& cluster, const Pki& pki) {
  auto client = DistGraphClient::Connect(tg.config, cluster.endpoints(), kToken, "client", 0,
                                         pki.Client("client", "client"));
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  std::vector<int64_t> ids = {0, 7, tg.g.num_nodes - 1};
  auto rows = (*client)->Pull("features", ids);
  INFO(rows.status().ToString());
  REQUIRE(rows.ok());
  const int64_t f = tg.g.features.row_elems();
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t j = 0; j < f; ++j) REQUIRE(rows->as<float>()[i * f + j] == tg.g.features.as<float>()[ids[i] * f + j]);
}

Status ConnectAs(const TestGraph& tg, const ServerCluster& cluster, const ClientOptions& o, const std::string& role) {
  auto client = DistGraphClient::Connect(tg.config, cluster.endpoints(), kToken, role, 0, o);
  return client.status();
}

}  // namespace

TEST_CASE("openssl s_client sees TLSv1.3, and a client without a certificate, with TLS 1.2 or in plaintext is refused",
          "[server][tls]") {
  Pki pki;
  auto tg = MakeTestGraph(300, 2000, 4, 1, 141);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken, pki.ServerFlags());
  const std::string addr = "127.0.0.1:" + std::to_string(cluster.port(0, 0));
  const std::string s_client = "timeout 10 openssl s_client -connect " + addr + " -CAfile " + (pki.dir / "ca.crt");

  const std::string with_cert =
      Shell(s_client + " -cert " + (pki.dir / "client.crt") + " -key " + (pki.dir / "client.key") + " </dev/null");
  INFO(with_cert);
  CHECK(with_cert.find("New, TLSv1.3, Cipher is TLS_") != std::string::npos);
  CHECK(with_cert.find("Verify return code: 0 (ok)") != std::string::npos);

  // TLS 1.3 sends the server's refusal of an empty client certificate after
  // the client's Finished: s_client reads it as an alert.
  const std::string no_cert = Shell("(sleep 1) | " + s_client);
  INFO(no_cert);
  CHECK(no_cert.find("certificate required") != std::string::npos);

  const std::string tls12 = Shell(s_client + " -tls1_2 </dev/null");
  INFO(tls12);
  CHECK(tls12.find("New, (NONE), Cipher is (NONE)") != std::string::npos);
  CHECK(tls12.find("alert protocol version") != std::string::npos);

  RawClient plain(cluster.port(0, 0));
  plain.SendFrame(uint16_t(MsgType::kHello), 0, "not a TLS ClientHello");
  CHECK(plain.WaitClosed(5));
  REQUIRE(cluster.proc(0, 0).running());
  ExpectServed(*tg, cluster, pki);
}

TEST_CASE("a TLS server refuses another CA's certificate, a HELLO of another role and a half-finished handshake",
          "[server][tls]") {
  Pki pki;
  auto tg = MakeTestGraph(300, 2000, 4, 1, 142);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken, [&] {
    auto f = pki.ServerFlags();
    f.insert(f.end(), {"--handshake-timeout", "1"});
    return f;
  }());

  // A certificate of another CA (that also does not trust this server's CA).
  Status foreign = ConnectAs(*tg, cluster, pki.Client("foreign", "client", "other-ca.crt"), "client");
  INFO(foreign.ToString());
  CHECK(!foreign.ok());
  CHECK(foreign.message().find("TLS handshake") != std::string::npos);
  // The same certificate with this job's CA: the server still refuses it.
  TlsFiles mixed = pki.Files("foreign");
  ClientOptions o = FastClientOptions();
  {
    auto tls = TlsContext::Load(mixed, "client");
    REQUIRE(!tls.ok());  // refused at load already, in one line naming the file
    INFO(tls.status().message());
    CHECK(tls.status().message().find("not signed by the CA") != std::string::npos);
  }

  // A sampler's key claiming to be a trainer.
  Status role = ConnectAs(*tg, cluster, pki.Client("sampler", "sampler"), "trainer");
  INFO(role.ToString());
  CHECK(!role.ok());
  CHECK(role.message().find("HELLO claims the role 'trainer' but the TLS certificate") != std::string::npos);
  CHECK(ConnectAs(*tg, cluster, pki.Client("sampler", "sampler"), "sampler").ok());

  // A client without TLS against the TLS server.
  ClientOptions plain = FastClientOptions();
  plain.connect_timeout_seconds = 3;
  CHECK(!ConnectAs(*tg, cluster, plain, "client").ok());

  // Half a handshake: a TCP connection that sends a few bytes of a record and stops.
  const auto t0 = std::chrono::steady_clock::now();
  RawClient half(cluster.port(0, 0));
  half.SendBytes(std::string("\x16\x03\x01\x02\x00\x01", 6));
  CHECK(half.WaitClosed(5));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(took < 2.5);
  REQUIRE(cluster.proc(0, 0).running());
  ExpectServed(*tg, cluster, pki);
  const std::string log = cluster.logs();
  CHECK(log.find("TLS handshake") != std::string::npos);
}

TEST_CASE("a server names an expired certificate, a wrong CA and an open key in one line at start", "[server][tls]") {
  Pki pki;
  CertValidity expired;
  expired.not_before_seconds = -3 * 86400;
  expired.not_after_seconds = -86400;
  REQUIRE(IssueRoleCertificate(pki.dir / "ca.crt", pki.dir / "ca.key", "server", "127.0.0.1", expired,
                               pki.dir / "old.crt", pki.dir / "old.key", false)
              .ok());
  auto tg = MakeTestGraph(100, 500, 4, 1, 143);
  auto run = [&](const std::string& ca, const std::string& stem) {
    return RunDistgnn({"--role", "server", "--partition-config", tg->json, "--part", "0", "--host", "127.0.0.1",
                       "--port", "0", "--tls-ca", pki.dir / ca, "--tls-cert", pki.dir / (stem + ".crt"),
                       "--tls-key", pki.dir / (stem + ".key")},
                      30);
  };
  RunResult old = run("ca.crt", "old");
  INFO(old.output);
  CHECK(old.exit_code != 0);
  CHECK(old.output.find("old.crt: the certificate expired at") != std::string::npos);
  RunResult wrong_ca = run("other-ca.crt", "server");
  INFO(wrong_ca.output);
  CHECK(wrong_ca.exit_code != 0);
  CHECK(wrong_ca.output.find("not signed by the CA in --tls-ca") != std::string::npos);
  RunResult role = run("ca.crt", "client");
  INFO(role.output);
  CHECK(role.exit_code != 0);
  CHECK(role.output.find("the certificate is for role 'client', this process runs as server") != std::string::npos);
  REQUIRE(::chmod((pki.dir / "server.key").c_str(), 0644) == 0);
  RunResult open_key = run("ca.crt", "server");
  INFO(open_key.output);
  CHECK(open_key.exit_code != 0);
  CHECK(open_key.output.find("server.key has mode 644") != std::string::npos);
}

// tls.https_metrics: the metrics endpoint speaks HTTPS with the process's
// certificate and wants one of the job's from its client.
TEST_CASE("a metrics endpoint over HTTPS answers a client of the job, refuses plaintext, no certificate and another "
          "CA, and serves on",
          "[server][tls]") {
  Pki pki;
  auto server_tls = TlsContext::Load(pki.Files("server"), "server");
  REQUIRE(server_tls.ok());
  int scrapes = 0;
  auto endpoint = MetricsHttpServer::Start("127.0.0.1", 0, [&] { return "distgnn_scrapes " + std::to_string(++scrapes) + "\n"; },
                                           nullptr, *server_tls);
  REQUIRE(endpoint.ok());
  CHECK((*endpoint)->https());
  const int port = (*endpoint)->port();
  auto client_tls = TlsContext::Load(pki.Files("client"), "client");
  REQUIRE(client_tls.ok());
  auto got = HttpGet("127.0.0.1", port, "/metrics", 5, *client_tls);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  CHECK(*got == "distgnn_scrapes 1\n");

  // Plain HTTP: no reply (the bytes are not a ClientHello).
  auto plain = HttpFetch("127.0.0.1", port, "/metrics", 2);
  CHECK(!plain.ok());
  // No certificate: refused after the handshake (TLS 1.3), no metrics.
  const std::string s_client = "timeout 10 openssl s_client -connect 127.0.0.1:" + std::to_string(port) +
                               " -CAfile " + (pki.dir / "ca.crt");
  const std::string no_cert = Shell("(printf 'GET /metrics HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'; sleep 1) | " + s_client);
  INFO(no_cert);
  CHECK(no_cert.find("certificate required") != std::string::npos);
  CHECK(no_cert.find("distgnn_scrapes") == std::string::npos);
  // Another job's certificate: refused.
  auto foreign_tls = TlsContext::Load(pki.Files("foreign", "other-ca.crt"), "client");
  REQUIRE(foreign_tls.ok());
  CHECK(!HttpGet("127.0.0.1", port, "/metrics", 3, *foreign_tls).ok());
  // And it serves on after those attempts.
  auto health = HttpFetch("127.0.0.1", port, "/healthz", 5, *client_tls);
  REQUIRE(health.ok());
  CHECK(health->status == 200);
  CHECK(scrapes == 1);  // only the job's client saw the metrics
}
