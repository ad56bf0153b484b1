// Liveness and lifecycle: concurrent clients, killed and frozen servers,
// SHUTDOWN and SIGTERM, bind and connect failures.
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/storage/neighbor_sampling.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {
double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

TEST_CASE("16 threads x 1000 mixed requests on one client all get correct answers", "[server][concurrency]") {
  auto tg = MakeTestGraph(3000, 20000, 8, 3, 51);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 1);
  auto client = ConnectClient(*tg, cluster);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  const int64_t f = tg->g.features.row_elems();
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(1000 + t);
      for (int r = 0; r < 1000 && failures == 0; ++r) {
        std::vector<int64_t> ids(1 + rng.Uniform(20));
        for (auto& id : ids) id = static_cast<int64_t>(rng.Uniform(3000));
        switch (r % 3) {
          case 0: {
            auto rows = client->Pull("features", ids);
            if (!rows.ok()) { failures++; break; }
            for (size_t i = 0; i < ids.size(); ++i)
              if (std::memcmp(rows->as<float>() + i * f, tg->g.features.as<float>() + ids[i] * f, f * 4) != 0) failures++;
            break;
          }
          case 1: {
            auto deg = client->InDegrees(ids);
            if (!deg.ok()) { failures++; break; }
            for (size_t i = 0; i < ids.size(); ++i)
              if ((*deg)[i] != static_cast<int64_t>(tg->in_edges[ids[i]].size())) failures++;
            break;
          }
          default: {
            auto s = client->SampleNeighbors(ids, Hop(3, false, r));
            if (!s.ok()) { failures++; break; }
            for (size_t i = 0; i < ids.size(); ++i) {
              if (s->offsets[i + 1] - s->offsets[i] != std::min<int64_t>(3, tg->in_edges[ids[i]].size())) failures++;
              for (int64_t k = s->offsets[i]; k < s->offsets[i + 1]; ++k)
                if (tg->g.dst[tg->orig_eid[s->eids[k]]] != ids[i]) failures++;
            }
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
}

TEST_CASE("a killed server becomes PeerLost naming it, within bounded time", "[server][liveness]") {
  auto tg = MakeTestGraph(300, 2000, 4, 3, 61);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 1);
  auto client = ConnectClient(*tg, cluster);
  REQUIRE(client->Pull("features", std::vector<int64_t>{0, 150, 299}).ok());
  cluster.proc(1, 0).Signal(SIGKILL);
  cluster.proc(1, 0).Wait(5);
  auto t0 = std::chrono::steady_clock::now();
  auto r = client->Pull("features", std::vector<int64_t>{0, 150, 299});
  double took = SecondsSince(t0);
  REQUIRE(!r.ok());
  INFO(r.status().ToString());
  CHECK(r.status().code() == Status::Code::kPeerLost);
  CHECK(r.status().message().find("127.0.0.1:" + std::to_string(cluster.port(1, 0)) + " (server, partition 1") !=
        std::string::npos);
  CHECK(took < 10);
  // Other partitions still answer.
  CHECK(client->Pull("features", std::vector<int64_t>{0, 299}).ok());
}

namespace {
// kill(SIGSTOP) returns before every thread of the target has stopped: a
// request sent at once may still be answered. Wait until the kernel says 'T'.
void StopAndWait(Subprocess& p) {
  p.Signal(SIGSTOP);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;  // every thread, not just the main one
    for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(p.pid()) + "/task")) {
      std::ifstream in(t.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      size_t close = stat.rfind(')');
      all &= close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'T';
    }
    if (all) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL("process " << p.pid() << " did not stop");
}
}  // namespace

TEST_CASE("a frozen (SIGSTOP) server becomes Timeout naming it, within bounded time", "[server][liveness]") {
  auto tg = MakeTestGraph(300, 2000, 4, 3, 62);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 1);
  auto client = ConnectClient(*tg, cluster);  // peer timeout 2 s, deadline 30 s
  StopAndWait(cluster.proc(2, 0));
  auto t0 = std::chrono::steady_clock::now();
  auto r = client->SampleNeighbors(std::vector<int64_t>{10, 250}, Hop(5, false, 1));
  double took = SecondsSince(t0);
  cluster.proc(2, 0).Signal(SIGCONT);
  REQUIRE(!r.ok());
  INFO(r.status().ToString());
  CHECK((r.status().code() == Status::Code::kTimeout || r.status().code() == Status::Code::kPeerLost));
  CHECK(r.status().message().find("127.0.0.1:" + std::to_string(cluster.port(2, 0)) + " (server, partition 2") !=
        std::string::npos);
  CHECK(took < 10);
  // A call deadline also bounds a request to a live-but-slow peer.
  ClientOptions o = FastClientOptions();
  o.deadline_seconds = 0.5;
  o.connection.peer_timeout_seconds = 30;
  auto c2 = ConnectClient(*tg, cluster, o);
  StopAndWait(cluster.proc(2, 0));
  t0 = std::chrono::steady_clock::now();
  auto r2 = c2->Pull("labels", std::vector<int64_t>{299});
  CHECK(r2.status().code() == Status::Code::kTimeout);
  CHECK(r2.status().message().find("PULL to 127.0.0.1:" + std::to_string(cluster.port(2, 0))) != std::string::npos);
  CHECK(SecondsSince(t0) < 5);
  cluster.proc(2, 0).Signal(SIGCONT);
}

TEST_CASE("SHUTDOWN and SIGTERM stop servers with exit 0", "[server][lifecycle]") {
  auto tg = MakeTestGraph(300, 2000, 4, 2, 71);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  // Least privilege: a sampler or a tool ("client") may not stop a server.
  for (const char* role : {"sampler", "client"}) {
    auto other = ConnectClient(*tg, cluster, FastClientOptions(), "", role);
    Status refused = other->Shutdown(0, 0);
    CHECK(refused.code() == Status::Code::kInvalidArgument);
    CHECK(refused.message().find(std::string(role) + " 0 may not send SHUTDOWN") != std::string::npos);
  }
  REQUIRE(cluster.proc(0, 0).running());
  auto client = ConnectClient(*tg, cluster, FastClientOptions(), "", "launcher");
  REQUIRE(client->Shutdown(0, 0).ok());
  CHECK(cluster.proc(0, 0).Wait(15) == 0);
  CHECK(cluster.proc(0, 0).Output().find("server stopped") != std::string::npos);
  // The client's connection to it is gone; calls fail fast with its name.
  auto r = client->Pull("labels", std::vector<int64_t>{1});
  CHECK(r.status().code() == Status::Code::kPeerLost);
  cluster.proc(1, 0).Signal(SIGTERM);
  CHECK(cluster.proc(1, 0).Wait(15) == 0);
  CHECK(cluster.proc(1, 0).Output().find("SIGTERM") != std::string::npos);
}

TEST_CASE("SIGTERM: a server serves its connected trainer until it leaves, then exits 0, SIGINT stops it at once",
          "[server][lifecycle][preemption]") {
  auto tg = MakeTestGraph(300, 2000, 4, 2, 72);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  auto trainer = ConnectClient(*tg, cluster, FastClientOptions(), "", "trainer");
  REQUIRE(trainer->Pull("labels", std::vector<int64_t>{1}).ok());
  // SIGTERM to both: each still answers its trainer (which may be writing a checkpoint).
  cluster.proc(0, 0).Signal(SIGTERM);
  cluster.proc(1, 0).Signal(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cluster.proc(0, 0).Output().find("SIGTERM: serving 1 ") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(cluster.proc(0, 0).Output().find("SIGTERM: serving 1 ") != std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(cluster.proc(0, 0).running());
  for (int64_t id : {int64_t{1}, int64_t{299}}) {
    auto labels = trainer->Pull("labels", std::vector<int64_t>{id});
    REQUIRE(labels.ok());
  }
  // Server 1 gets SIGINT on top: it stops now.
  const auto t0 = std::chrono::steady_clock::now();
  cluster.proc(1, 0).Signal(SIGINT);
  CHECK(cluster.proc(1, 0).Wait(15) == 0);
  CHECK(SecondsSince(t0) < 5);
  // The trainer leaves: server 0 stops by itself.
  trainer.reset();
  CHECK(cluster.proc(0, 0).Wait(15) == 0);
  CHECK(cluster.proc(0, 0).Output().find("every trainer and sampler has left") != std::string::npos);
}

TEST_CASE("bind and connect failures name the address, port and OS error", "[server][lifecycle]") {
  auto tg = MakeTestGraph(100, 500, 4, 1, 81);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1);
  int port = cluster.port(0, 0);
  auto r = RunDistgnn({"--role", "server", "--partition-config", tg->json, "--part", "0", "--host", "127.0.0.1",
                       "--port", std::to_string(port)},
                      30);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("bind 127.0.0.1:" + std::to_string(port) + ": Address already in use") != std::string::npos);
  auto r2 = RunDistgnn({"--role", "server", "--partition-config", tg->json, "--part", "5", "--host", "127.0.0.1",
                        "--port", "0"},
                       30);
  CHECK(r2.exit_code != 0);
  CHECK(r2.output.find("partition 5 does not exist") != std::string::npos);

  // Connecting to a port nobody listens on.
  int closed = FreePort();
  std::vector<ServerEndpoints> eps = {{"127.0.0.1", {closed}}};
  auto c = DistGraphClient::Connect(tg->config, eps, "", "client", 0, FastClientOptions());
  REQUIRE(!c.ok());
  CHECK(c.status().message().find("connect to 127.0.0.1:" + std::to_string(closed) +
                                  " (server, partition 0, index 0): Connection refused") != std::string::npos);
}

TEST_CASE("a server on a non-loopback address without a token refuses to start unless --insecure",
          "[server][lifecycle][security]") {
  auto tg = MakeTestGraph(100, 500, 4, 1, 82);
  unsetenv("DISTGNN_TOKEN");
  unsetenv("DISTGNN_TOKEN_FILE");
  // 10.255.255.1 is not this machine's: with --insecure the server gets past
  // the token check and fails to bind (no packet leaves the machine).
  std::vector<std::string> args = {"--role", "server", "--partition-config", tg->json, "--part", "0",
                                   "--host", "10.255.255.1", "--port", "0"};
  auto r = RunDistgnn(args, 30);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("refusing to serve 10.255.255.1 without a cluster token") != std::string::npos);
  args.push_back("--insecure");
  auto r2 = RunDistgnn(args, 30);
  CHECK(r2.exit_code != 0);
  CHECK(r2.output.find("refusing") == std::string::npos);
  CHECK(r2.output.find("bind 10.255.255.1:0") != std::string::npos);
}
