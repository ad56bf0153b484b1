// The server's front door (roles/server/front_door.h) with real sockets:
// connections that never finish the handshake have their own budget and
// deadline, so strangers without the token who open more idle connections than
// limits.max_connections cannot keep a client with the token out.
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <vector>

#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

const char kToken[] = "front-door-token";

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A client with the token connects, authenticates and reads rows that match the graph.
void ExpectServed(const TestGraph& tg, const ServerCluster& cluster) {
  auto client = ConnectClient(tg, cluster, FastClientOptions(), kToken);
  std::vector<int64_t> ids = {0, 5, tg.g.num_nodes - 1};
  auto rows = client->Pull("features", ids);
  INFO(rows.status().ToString());
  REQUIRE(rows.ok());
  const int64_t f = tg.g.features.row_elems();
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t j = 0; j < f; ++j)
      REQUIRE(rows->as<float>()[i * f + j] == tg.g.features.as<float>()[ids[i] * f + j]);
}

}  // namespace

TEST_CASE("1,100 idle connections without the token do not keep a client with the token out", "[server][limits]") {
  auto tg = MakeTestGraph(300, 2000, 4, 1, 131);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken);  // limits.max_connections 1024, 64 may wait in their handshake
  std::vector<std::unique_ptr<RawClient>> strangers;
  for (int i = 0; i < 1100; ++i) {
    strangers.push_back(std::make_unique<RawClient>(cluster.port(0, 0), true));
    REQUIRE(strangers.back()->ok());
  }
  const auto t0 = std::chrono::steady_clock::now();
  ExpectServed(*tg, cluster);
  const double took = Since(t0);
  INFO("served after " << took << " s");
  CHECK(took < 2.0);
  // The server kept only its handshake budget of them: the oldest were closed.
  int closed = 0;
  for (int i = 0; i < 1000; ++i) closed += strangers[i]->WaitClosed(0.01);
  CHECK(closed >= 1000 - 64);
  REQUIRE(cluster.proc(0, 0).running());
}

TEST_CASE("a connection that does not finish its handshake is closed at limits.handshake_timeout_seconds",
          "[server][limits]") {
  auto tg = MakeTestGraph(300, 2000, 4, 1, 132);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken, {"--handshake-timeout", "1"});
  RawClient idle(cluster.port(0, 0));
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(idle.WaitClosed(10));
  const double took = Since(t0);
  CHECK(took >= 0.8);
  CHECK(took < 2.5);  // before the fixture's 3 s peer timeout
  // An authenticated connection is not subject to it.
  RawClient ok(cluster.port(0, 0));
  ok.Hello(kToken);
  CHECK(!ok.WaitClosed(2));
  ExpectServed(*tg, cluster);
}
