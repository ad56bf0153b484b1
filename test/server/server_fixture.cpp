#include "test/server/server_fixture.h"

#include <algorithm>

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

#include "common/net/codec.h"
#include "common/net/connection.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"

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
                                       "--threads", "2", "--token", token, "--heartbeat", "0.2"};
      // --peer-timeout 3 unless the test sets its own.
      if (std::find(extra.begin(), extra.end(), "--peer-timeout") == extra.end())
        argv.insert(argv.end(), {"--peer-timeout", "3"});
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
      REQUIRE(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(90));  // a loaded machine starts the torch-linked binary slowly
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
  o.connection.heartbeat_seconds = 0.2;
  o.connection.peer_timeout_seconds = 2.0;
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

}  // namespace dg::test
