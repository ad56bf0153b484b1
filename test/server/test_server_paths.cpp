// Paths of docs/protocol.md no other suite reaches, against real servers:
// BARRIER with disagreeing counts and at SHUTDOWN, INIT_TENSOR refusals,
// mutable-tensor requests at server index 1, PUSH add on bool, initial values by
// the (seed, gid) rule whatever the partition layout, weight tensors of the
// wrong type or shape [E, 1], heartbeats and a silent client being dropped.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <thread>

#include "common/net/codec.h"
#include "common/net/messages.h"
#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

// Sends one request frame and returns the reply's type; *payload gets its payload.
uint16_t Ask(RawClient& c, MsgType type, uint64_t id, const std::string& body, std::string* payload) {
  c.SendFrame(uint16_t(type), id, body);
  FrameHeader h;
  REQUIRE(c.ReadFrame(&h, payload));
  CHECK(h.request_id == id);
  return h.type;
}

void ExpectError(RawClient& c, MsgType type, uint64_t id, const std::string& body, const std::string& text) {
  std::string p;
  const uint16_t t = Ask(c, type, id, body, &p);
  INFO(MsgTypeName(uint16_t(type)) << " -> " << (t == uint16_t(MsgType::kError) ? ErrorMessage(p) : MsgTypeName(t)));
  CHECK(t == uint16_t(MsgType::kError));
  CHECK(ErrorMessage(p).find(text) != std::string::npos);
}

std::string Body(const std::function<void(Encoder*)>& fill) {
  Encoder e;
  fill(&e);
  return e.Finish().Flatten();
}

InitTensorSpec Spec(const std::string& name, std::vector<int64_t> shape, DType dtype = DType::kFloat32,
                    Initializer init = Initializer::kZeros) {
  InitTensorSpec s;
  s.name = name;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.init = init;
  s.seed = 5;
  s.a = -2;
  s.b = 3;
  return s;
}

uint64_t Requests(DistGraphClient& c, const std::string& type) {
  auto s = c.Stats(0, 0);
  REQUIRE(s.ok());
  for (const auto& t : s->types)
    if (t.type == type) return t.requests;
  return 0;
}

// Rewrites the "weight" edge tensor of every part (and the json) as `dtype`,
// shape [E] or [E, 1], with the same values.
void RewriteWeights(const std::string& json, DType dtype, bool column) {
  auto cfg = LoadPartitionConfig(json);
  REQUIRE(cfg.ok());
  for (int p = 0; p < cfg->num_parts; ++p) {
    const std::string path = cfg->PartDir(p) + "/edge_data/weight.npy";
    auto w = NpyRead(path);
    REQUIRE(w.ok());
    REQUIRE(w->dtype == DType::kFloat32);
    const int64_t n = w->numel();
    Array out = Array::Zeros(dtype, column ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{n});
    for (int64_t e = 0; e < n; ++e) {
      if (dtype == DType::kFloat64) out.as<double>()[e] = w->as<float>()[e];
      else out.as<float>()[e] = w->as<float>()[e];
    }
    REQUIRE(NpyWrite(path, out).ok());
  }
  const int64_t E = cfg->num_edges;
  cfg->edge_data["weight"] = ArrayInfo{dtype, column ? std::vector<int64_t>{E, 1} : std::vector<int64_t>{E}};
  std::ofstream(json, std::ios::trunc) << PartitionConfigToJson(*cfg);
}

std::vector<int64_t> Range(int64_t n) {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

TEST_CASE("BARRIER: a disagreeing participant count is refused, SHUTDOWN fails a waiting barrier", "[server][protocol]") {
  auto tg = MakeTestGraph(300, 1500, 4, 2, 3);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  auto client = ConnectClient(*tg, cluster);
  const uint64_t before = Requests(*client, "BARRIER");
  Status waiting;
  std::thread t([&] {
    auto c = ConnectClient(*tg, cluster);
    waiting = c->Barrier("b", 2, 60);
  });
  // The waiting participant is parked once STATS counts its BARRIER.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Requests(*client, "BARRIER") == before) {
    REQUIRE(std::chrono::steady_clock::now() < end);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  Status st = client->Barrier("b", 3, 10);
  CHECK(st.code() == Status::Code::kInvalidArgument);
  CHECK(st.message().find("BARRIER 'b': 3 participants, but others use 2") != std::string::npos);
  // SHUTDOWN is the launcher's (or a trainer's) to send, not a plain client's.
  auto launcher = ConnectClient(*tg, cluster, FastClientOptions(), "", "launcher");
  REQUIRE(launcher->ShutdownAll().ok());
  t.join();
  CHECK(waiting.code() == Status::Code::kPeerLost);
  CHECK(waiting.message().find("server shut down before barrier 'b' completed") != std::string::npos);
  for (int p = 0; p < 2; ++p) CHECK(cluster.proc(p, 0).Wait(20) == 0);
}

TEST_CASE("INIT_TENSOR refusals and mutable-tensor requests at server index 1", "[server][protocol][tensor]") {
  auto tg = MakeTestGraph(300, 1500, 4, 2, 5);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 2);
  const int64_t N = tg->g.num_nodes;
  RawClient c(cluster.port(0, 0));
  c.Hello();
  auto init = [](const InitTensorSpec& s) { return Body([&](Encoder* e) { EncodeInitTensor(e, s); }); };
  ExpectError(c, MsgType::kInitTensor, 1, init(Spec("t", {N - 1, 2})),
              "INIT_TENSOR 't': shape [299, 2] must have num_nodes = 300 rows");
  ExpectError(c, MsgType::kInitTensor, 2, init(Spec("t", {N, 2}, DType::kInt64, Initializer::kUniform)),
              "INIT_TENSOR 't': uniform/normal need float32 or float64, got int64");
  ExpectError(c, MsgType::kInitTensor, 3, init(Spec("t", {N, 2}, DType::kInt32, Initializer::kNormal)),
              "uniform/normal need float32 or float64, got int32");
  ExpectError(c, MsgType::kInitTensor, 4, init(Spec("features", {N, 4})),
              "INIT_TENSOR 'features': a partition data tensor has this name");
  ExpectError(c, MsgType::kInitTensor, 5, init(Spec("weight", {N, 1})), "a partition data tensor has this name");
  // Nothing was created; zeros of an integer dtype are fine.
  std::string p;
  REQUIRE(Ask(c, MsgType::kInitTensor, 6, init(Spec("ok", {N, 2}, DType::kInt64)), &p) ==
          uint16_t(MsgType::kInitTensor));
  auto client = ConnectClient(*tg, cluster);
  auto meta = client->Metadata();
  REQUIRE(meta.ok());
  for (const auto& t : (*meta)[0].tensors) CHECK(t.name != "t");

  // Server index 1 holds no mutable tensors: every mutable-tensor request is refused there.
  RawClient c1(cluster.port(0, 1));
  c1.Hello();
  const std::string where = "mutable tensors live on server index 0 of partition 0";
  ExpectError(c1, MsgType::kInitTensor, 11, init(Spec("u", {N, 2})), where);
  Array ids = Array::Zeros(DType::kInt64, {2});
  ids.as<int64_t>()[1] = 7;
  ExpectError(c1, MsgType::kPull, 12, Body([&](Encoder* e) { EncodePull(e, TensorKind::kNode, "ok", ids); }), where);
  ExpectError(c1, MsgType::kPush, 13,
              Body([&](Encoder* e) {
                EncodePush(e, "ok", PushMode::kAdd, ids, Array::Zeros(DType::kInt64, {2, 2}));
              }),
              where);
  ExpectError(c1, MsgType::kSaveTensor, 14, Body([](Encoder* e) { e->String("ok"); }), where);
  // Index 1 still serves partition data.
  REQUIRE(Ask(c1, MsgType::kPull, 15, Body([&](Encoder* e) { EncodePull(e, TensorKind::kNode, "features", ids); }),
              &p) == uint16_t(MsgType::kPull));
}

TEST_CASE("PUSH add on a bool tensor is refused, overwrite works", "[server][protocol][tensor]") {
  auto tg = MakeTestGraph(300, 1500, 4, 2, 7);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  auto client = ConnectClient(*tg, cluster);
  const int64_t N = tg->g.num_nodes;
  REQUIRE(client->InitTensor(Spec("mask", {N}, DType::kBool)).ok());
  Array rows = Array::Zeros(DType::kBool, {3});
  rows.as<uint8_t>()[0] = 1;
  rows.as<uint8_t>()[2] = 1;
  const std::vector<int64_t> ids = {3, 150, 299};
  Status st = client->Push("mask", ids, rows, PushMode::kAdd);
  CHECK(st.code() == Status::Code::kInvalidArgument);
  CHECK(st.message().find("PUSH 'mask': add is not defined for bool tensors") != std::string::npos);
  auto all = client->Pull("mask", Range(N));
  REQUIRE(all.ok());
  for (int64_t i = 0; i < N; ++i) REQUIRE(all->as<uint8_t>()[i] == 0);  // nothing written
  REQUIRE(client->Push("mask", ids, rows, PushMode::kOverwrite).ok());
  all = client->Pull("mask", Range(N));
  REQUIRE(all.ok());
  for (int64_t i = 0; i < N; ++i) CHECK(all->as<uint8_t>()[i] == (i == 3 || i == 299 ? 1 : 0));
}

TEST_CASE("initial values follow the (seed, gid) rule whatever the partition layout", "[server][tensor]") {
  const int64_t N = 600, D = 5;
  std::vector<std::vector<float>> uniform, normal;
  for (int parts : {1, 3}) {
    auto tg = MakeTestGraph(N, 2000, 4, parts, 40 + parts);
    ServerCluster cluster;
    cluster.Start(tg->json, parts, 1);
    auto client = ConnectClient(*tg, cluster);
    REQUIRE(client->InitTensor(Spec("u", {N, D}, DType::kFloat32, Initializer::kUniform)).ok());
    REQUIRE(client->InitTensor(Spec("n", {N, D}, DType::kFloat32, Initializer::kNormal)).ok());
    for (auto* out : {&uniform, &normal}) {
      auto r = client->Pull(out == &uniform ? "u" : "n", Range(N));
      REQUIRE(r.ok());
      out->emplace_back(r->as<float>(), r->as<float>() + N * D);
    }
  }
  // Uniform in [a, b) = [-2, 3): row gid's generator is Rng(MixSeed(seed, gid)) (docs/protocol.md).
  for (int64_t gid = 0; gid < N; ++gid) {
    Rng rng(MixSeed(5, static_cast<uint64_t>(gid)));
    for (int64_t j = 0; j < D; ++j) {
      const float want = static_cast<float>(-2.0 + 5.0 * rng.UniformDouble());
      INFO("uniform row " << gid << " column " << j);
      REQUIRE(uniform[0][gid * D + j] == want);
    }
  }
  CHECK(uniform[1] == uniform[0]);
  // Normal(mean 2... here a = -2, std b = 3): the same on 1 and 3 partitions, and
  // its moments fit (N * D = 3000 draws: 5 sigma bounds).
  CHECK(normal[1] == normal[0]);
  double sum = 0, sq = 0;
  for (float v : normal[0]) {
    sum += v;
    sq += double(v) * v;
  }
  const double n = double(N * D), mean = sum / n, var = sq / n - mean * mean;
  INFO("normal mean " << mean << " variance " << var);
  CHECK(std::abs(mean - (-2.0)) < 5 * 3.0 / std::sqrt(n));
  CHECK(std::abs(var - 9.0) < 5 * 9.0 * std::sqrt(2.0 / n));
  CHECK(normal[0] != uniform[0]);
}

TEST_CASE("weighted sampling: float32 [E, 1] weights sample as [E], other dtypes are refused", "[server][sampling]") {
  TempDir dir;
  SyntheticGraph g = MakeRandomGraph(400, 6000, 2, 9);
  auto flat = WriteContiguousPartition(g, 2, dir / "flat");
  REQUIRE(flat.ok());
  auto col = WriteContiguousPartition(g, 2, dir / "column");
  REQUIRE(col.ok());
  RewriteWeights(*col, DType::kFloat32, /*column=*/true);
  auto f64 = WriteContiguousPartition(g, 2, dir / "f64");
  REQUIRE(f64.ok());
  RewriteWeights(*f64, DType::kFloat64, /*column=*/false);

  std::vector<int64_t> seeds;
  for (int64_t v = 0; v < 400; v += 7) seeds.push_back(v);
  std::vector<SampledEdges> got;
  for (const std::string& json : {*flat, *col, *f64}) {
    auto cfg = LoadPartitionConfig(json);
    REQUIRE(cfg.ok());
    ServerCluster cluster;
    cluster.Start(json, 2, 1);
    auto client = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 0, FastClientOptions());
    REQUIRE(client.ok());
    auto s = (*client)->SampleNeighbors(seeds, Hop(4, false, 77, "weight"));
    if (json == *f64) {
      INFO(s.status().ToString());
      CHECK(s.status().code() == Status::Code::kInvalidArgument);
      CHECK(s.status().message().find("edge weight tensor 'weight' must be float32 [E] or [E, 1], got float64") !=
            std::string::npos);
      continue;
    }
    INFO(json << ": " << s.status().ToString());
    REQUIRE(s.ok());
    got.push_back(*s);
  }
  REQUIRE(got.size() == 2);
  CHECK(got[0].offsets == got[1].offsets);
  CHECK(got[0].eids == got[1].eids);
  CHECK(got[0].src == got[1].src);
  CHECK(got[0].eids.size() > seeds.size());  // something was sampled
}

TEST_CASE("servers send heartbeats and drop a client that stays silent beyond the peer timeout",
          "[server][liveness]") {
  auto tg = MakeTestGraph(300, 1500, 4, 1, 11);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1);  // --heartbeat 0.2 --peer-timeout 3
  RawClient silent(cluster.port(0, 0));
  silent.Hello();  // and then nothing, not even heartbeats
  const auto t0 = std::chrono::steady_clock::now();
  FrameHeader h;
  std::string p;
  CHECK_FALSE(silent.ReadFrame(&h, &p, 15));  // only heartbeats arrive, then the close
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO("closed after " << took << " s, " << silent.heartbeats() << " heartbeats");
  CHECK(took > 2.5);
  CHECK(took < 8);
  CHECK(silent.heartbeats() >= 5);  // every 0.2 s for ~3 s
  CHECK(silent.WaitClosed(1));
  // The server says why (logged right after the close).
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cluster.logs().find("sent nothing (not even a heartbeat)") == std::string::npos &&
         std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  INFO(cluster.logs());
  CHECK(cluster.logs().find("sent nothing (not even a heartbeat)") != std::string::npos);
  // The server still serves others.
  auto client = ConnectClient(*tg, cluster);
  CHECK(client->Pull("labels", std::vector<int64_t>{1, 2}).ok());
}
