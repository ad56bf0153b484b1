// The real pipeline: `distgnn partition` (METIS) of Cora, servers started from
// a job YAML (`--config --machine --index`), reads checked against the dataset
// files through orig_nids.
#include <catch2/catch.hpp>
#include <fstream>
#include <thread>

#include "common/io/npy.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

TEST_CASE("servers from a job YAML serve a METIS partition of Cora exactly", "[server][cora]") {
  TempDir dir;
  auto part = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method",
                          "metis", "--name", "cora", "--out", dir / "parts"},
                         120);
  INFO(part.output);
  REQUIRE(part.exit_code == 0);
  std::string json = dir / "parts/cora.json";
  auto cfg = LoadPartitionConfig(json);
  REQUIRE(cfg.ok());

  int base = FreePortRange(4);
  { std::ofstream(dir / "model.pt") << "placeholder"; }
  std::ofstream(dir / "job.yaml") << "job: cora-test\n"
                                  << "partition: parts/cora.json\n"
                                  << "token: tok\n"
                                  << "machines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
                                  << "ports: {server: " << base << ", trainer: " << base + 100
                                  << ", rendezvous: " << base + 200 << "}\n"
                                  << "processes: {servers: 2, trainers: 1, samplers_per_trainer: 1}\n"
                                  << "train: {model: model.pt}\n";
  std::vector<std::unique_ptr<Subprocess>> procs;
  std::vector<ServerEndpoints> eps(2, ServerEndpoints{"127.0.0.1", {}});
  for (int m = 0; m < 2; ++m) {
    for (int i = 0; i < 2; ++i) {
      auto p = std::make_unique<Subprocess>();
      p->Start({DistgnnBin(), "--role", "server", "--config", dir / "job.yaml", "--machine", std::to_string(m),
                "--index", std::to_string(i), "--threads", "1"},
               dir / ("s" + std::to_string(m) + std::to_string(i) + ".log"));
      eps[m].ports.push_back(base + m * 2 + i);
      procs.push_back(std::move(p));
    }
  }
  for (auto& p : procs) {
    auto t0 = std::chrono::steady_clock::now();
    while (p->Output().find("serving partition") == std::string::npos) {
      INFO(p->Output());
      REQUIRE(p->running());
      REQUIRE(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  // Wrong token is refused with a clear error.
  auto refused = DistGraphClient::Connect(*cfg, eps, "nope", "client", 0, FastClientOptions());
  CHECK(refused.status().message().find("wrong cluster token") != std::string::npos);

  ClientOptions o = FastClientOptions();
  o.local_partitions = {1};
  auto client = DistGraphClient::Connect(*cfg, eps, "tok", "trainer", 0, o);
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  auto feats = NpyLoad(CoraDir() + "/features.npy.gz");
  auto labels = NpyLoad(CoraDir() + "/labels.npy");
  auto orig = NpyLoad(dir / "parts/orig_nids.npy");
  REQUIRE(feats.ok());
  REQUIRE(labels.ok());
  REQUIRE(orig.ok());
  std::vector<int64_t> all(2708);
  for (int64_t i = 0; i < 2708; ++i) all[i] = 2707 - i;
  auto rows = (*client)->Pull("features", all);
  auto lab = (*client)->Pull("labels", all);
  REQUIRE(rows.ok());
  REQUIRE(lab.ok());
  const int64_t f = 1433;
  for (size_t i = 0; i < all.size(); ++i) {
    int64_t o_id = orig->as<int64_t>()[all[i]];
    REQUIRE(std::memcmp(rows->as<float>() + i * f, feats->as<float>() + o_id * f, f * 4) == 0);
    REQUIRE(lab->as<int64_t>()[i] == labels->as<int64_t>()[o_id]);
  }
  auto deg = (*client)->InDegrees(all);
  REQUIRE(deg.ok());
  int64_t total = 0;
  for (int64_t d : *deg) total += d;
  CHECK(total == 10556);
  auto s = (*client)->SampleNeighbors(all, Hop(-1, false, 0));
  REQUIRE(s.ok());
  CHECK(s->src.size() == 10556u);
  REQUIRE((*client)->ShutdownAll().ok());
  for (auto& p : procs) CHECK(p->Wait(15) == 0);
}
