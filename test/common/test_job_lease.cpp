// The job lease (common/net/job_lease.h) over real sockets on 127.0.0.1: a
// granter and holders in this process, plaintext and over TLS 1.3 with the
// job's certificates; every holder TLS must refuse is refused, and the granter
// serves a good holder afterwards.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "common/net/job_lease.h"
#include "common/net/tls_certs.h"
#include "test/support/test_support.h"
#include "test/support/test_tls.h"

using namespace dg;
using namespace dg::test;

namespace {

constexpr double kTimeout = 1.0;  // heartbeats every 0.2 s

// A job CA and another job's CA in one folder.
struct Cas {
  TempDir dir;
  Cas() {
    REQUIRE(MakeJobCa("lease", CertValidity(), dir / "ca.crt", dir / "ca.key", false).ok());
    REQUIRE(MakeJobCa("other", CertValidity(), dir / "other.crt", dir / "other.key", false).ok());
  }
};

std::unique_ptr<LeaseGranter> Grant(std::shared_ptr<const TlsContext> tls) {
  LeaseGranter::Options o;
  o.addresses = {"127.0.0.1"};
  o.token = "lease-token";
  o.job_id = "job-1";
  o.timeout_seconds = kTimeout;
  o.tls = std::move(tls);
  auto g = LeaseGranter::Start(o);
  INFO(g.status().ToString());
  REQUIRE(g.ok());
  return std::move(*g);
}

// A holder and the reason its lease ended, once it has.
struct Held {
  std::shared_ptr<std::promise<std::string>> ended = std::make_shared<std::promise<std::string>>();
  std::future<std::string> why = ended->get_future();
  std::unique_ptr<LeaseHolder> holder;
  bool Expired(double seconds) {
    return why.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::ready;
  }
};

std::unique_ptr<Held> Hold(int port, const std::string& id, std::shared_ptr<const TlsContext> tls) {
  LeaseHolder::Options o;
  o.host = "127.0.0.1";
  o.port = port;
  o.token = "lease-token";
  o.job_id = "job-1";
  o.holder_id = id;
  o.timeout_seconds = kTimeout;
  o.tls = std::move(tls);
  auto h = std::make_unique<Held>();
  h->holder = LeaseHolder::Start(o, [ended = h->ended](const std::string& why) { ended->set_value(why); });
  return h;
}

// Waits up to `seconds` for the granter to see `id`'s lease open.
bool Opens(const LeaseGranter& g, const std::string& id, double seconds = 5) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (g.SilenceSeconds(id) >= 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

int ConnectTcp(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// What a peer gets back for `hello` on a plain TCP connection (until EOF or 5 s).
std::string PlaintextAnswer(int port, const std::string& hello) {
  int fd = ConnectTcp(port);
  REQUIRE(send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(hello.size()));
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

// A TLS 1.3 client that trusts the job's CA but presents no certificate: the
// bytes it reads back after its greeting (none when refused).
std::string AnswerWithoutCertificate(int port, const std::string& ca) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  REQUIRE(ctx != nullptr);
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  REQUIRE(SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) == 1);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  int fd = ConnectTcp(port);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  std::string out;
  if (SSL_connect(ssl) == 1) {  // TLS 1.3: the client finishes before the server judges its certificate
    const std::string hello = "DGLEASE1 trainer/0/0 00\n";
    SSL_write(ssl, hello.data(), static_cast<int>(hello.size()));
    char buf[256];
    int n;
    while ((n = SSL_read(ssl, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  }
  SSL_free(ssl);
  close(fd);
  SSL_CTX_free(ctx);
  return out;
}

}  // namespace

TEST_CASE("a plaintext lease opens, heartbeats and ends with its granter", "[lease]") {
  auto granter = Grant(nullptr);
  auto held = Hold(granter->port(), "trainer/0/0", nullptr);
  REQUIRE(Opens(*granter, "trainer/0/0"));
  CHECK_FALSE(held->Expired(3 * kTimeout));
  CHECK(granter->SilenceSeconds("trainer/0/0") < kTimeout / 2);
  granter.reset();
  REQUIRE(held->Expired(2 * kTimeout));
  CHECK_THAT(held->why.get(), Catch::Contains("the launcher is gone"));
}

TEST_CASE("a TLS lease: a trainer's certificate holds it, heartbeats keep it, the granter's end ends it",
          "[lease][tls]") {
  Cas cas;
  auto granter = Grant(TestTlsIdentity(cas.dir, "launcher", "ca", ""));
  auto held = Hold(granter->port(), "trainer/0/0", TestTlsIdentity(cas.dir, "trainer"));
  REQUIRE(Opens(*granter, "trainer/0/0"));
  CHECK_FALSE(held->Expired(3 * kTimeout));
  CHECK(granter->SilenceSeconds("trainer/0/0") >= 0);
  CHECK(granter->SilenceSeconds("trainer/0/0") < kTimeout / 2);
  granter.reset();
  REQUIRE(held->Expired(2 * kTimeout));
  CHECK_THAT(held->why.get(), Catch::Contains("the launcher is gone"));
}

TEST_CASE("a TLS granter refuses plaintext, no certificate, another CA and a role the certificate does not name",
          "[lease][tls]") {
  Cas cas;
  auto granter = Grant(TestTlsIdentity(cas.dir, "launcher", "ca", ""));
  const int port = granter->port();

  SECTION("a plaintext holder") {
    auto held = Hold(port, "trainer/0/0", nullptr);
    REQUIRE(held->Expired(3 * kTimeout));
    CHECK_THAT(held->why.get(), Catch::Contains("did not grant one"));
    // No nonce line comes back (at most a TLS alert).
    CHECK(PlaintextAnswer(port, "DGLEASE1 trainer/0/0 " + std::string(64, '0') + "\n").find('\n') == std::string::npos);
  }
  SECTION("a holder without a certificate") {
    CHECK(AnswerWithoutCertificate(port, cas.dir / "ca.crt").empty());
  }
  SECTION("a holder with another CA's certificate") {
    auto foreign = TestTlsIdentity(cas.dir, "trainer", "other");
    // It trusts this job's CA (so it would accept the launcher): the granter must refuse it.
    REQUIRE(SSL_CTX_load_verify_locations(foreign->ssl().native_handle(), (cas.dir / "ca.crt").c_str(), nullptr) == 1);
    auto held = Hold(port, "trainer/0/0", foreign);
    REQUIRE(held->Expired(3 * kTimeout));
    CHECK(granter->SilenceSeconds("trainer/0/0") < 0);
  }
  SECTION("a holder id claiming 'trainer' with a sampler's certificate") {
    auto held = Hold(port, "trainer/0/0", TestTlsIdentity(cas.dir, "sampler"));
    REQUIRE(held->Expired(3 * kTimeout));
    CHECK_THAT(held->why.get(), Catch::Contains("did not grant one"));
    CHECK(granter->SilenceSeconds("trainer/0/0") < 0);
  }
  SECTION("a peer that never starts its handshake is closed at the deadline") {
    int fd = ConnectTcp(port);
    char c;
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(recv(fd, &c, 1, 0) == 0);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::duration<double>(3 * kTimeout));
    close(fd);
  }
  // The granter serves on.
  auto good = Hold(port, "trainer/0/1", TestTlsIdentity(cas.dir, "trainer"));
  REQUIRE(Opens(*granter, "trainer/0/1"));
  CHECK_FALSE(good->Expired(2 * kTimeout));
  CHECK(granter->SilenceSeconds("trainer/0/1") < kTimeout / 2);
}

TEST_CASE("a TLS holder refuses a plaintext granter and one that is not the launcher", "[lease][tls]") {
  Cas cas;
  SECTION("plaintext: no downgrade") {
    auto granter = Grant(nullptr);
    auto held = Hold(granter->port(), "server/0/0", TestTlsIdentity(cas.dir, "server"));
    REQUIRE(held->Expired(3 * kTimeout));
    CHECK_THAT(held->why.get(), Catch::Contains("TLS handshake failed"));
    CHECK(granter->SilenceSeconds("server/0/0") < 0);
  }
  SECTION("a granter presenting a server's certificate") {
    auto granter = Grant(TestTlsIdentity(cas.dir, "server"));
    auto held = Hold(granter->port(), "trainer/0/0", TestTlsIdentity(cas.dir, "trainer"));
    REQUIRE(held->Expired(3 * kTimeout));
    CHECK_THAT(held->why.get(), Catch::Contains("not the launcher's"));
  }
  SECTION("a launcher's certificate naming another host") {
    auto granter = Grant(TestTlsIdentity(cas.dir, "launcher", "ca", "10.9.9.9"));
    auto held = Hold(granter->port(), "trainer/0/0", TestTlsIdentity(cas.dir, "trainer"));
    REQUIRE(held->Expired(3 * kTimeout));
    CHECK_THAT(held->why.get(), Catch::Contains("does not name 127.0.0.1"));
  }
}
