// PULL_AGGREGATE: DistGraphClient::PullAggregate against real
// servers of a 3-part partition written by `distgnn partition`, checked against
// the dense computation over the input edge list (sum and mean, duplicated ids,
// multi-edges, isolated nodes, partition data and a mutable tensor); an older
// partition without the aggregation index gets a clear error and keeps serving.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "common/io/npy.h"
#include "common/net/codec.h"
#include "common/net/pull_aggregate.h"
#include "common/storage/neighbor_sampling.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

struct AggDataset {
  int64_t n = 0, f = 0;
  std::vector<int64_t> src, dst;  // original ids
  std::vector<float> feat;        // original order [n, f]
};

void WriteNpy(const std::string& path, DType dt, std::vector<int64_t> shape, const void* data, size_t bytes) {
  NpyWriter w;
  REQUIRE(w.Open(path, dt, shape).ok());
  REQUIRE(w.Append(data, bytes).ok());
  REQUIRE(w.Finish().ok());
}

// n nodes; the last 7 have no edges at all, node 0 has only out-edges; some
// edges are repeated (multi-edges) and a few are self loops.
AggDataset MakeAggDataset(const std::string& dir, int64_t n, int64_t e, int64_t f, uint64_t seed) {
  AggDataset d;
  d.n = n;
  d.f = f;
  Rng rng(seed);
  const int64_t live = n - 7;
  for (int64_t i = 0; i < e; ++i) {
    int64_t s = static_cast<int64_t>(rng.Uniform(live)), t = 1 + static_cast<int64_t>(rng.Uniform(live - 1));
    if (i % 50 == 0) s = t;  // self loop
    d.src.push_back(s);
    d.dst.push_back(t);
    if (i % 17 == 0) {  // the same edge twice
      d.src.push_back(s);
      d.dst.push_back(t);
    }
  }
  d.feat.resize(n * f);
  for (auto& x : d.feat) x = static_cast<float>(rng.Uniform(1000)) / 100.0f - 5.0f;
  std::vector<int64_t> labels(n);
  std::vector<int8_t> split(n);
  for (int64_t i = 0; i < n; ++i) {
    labels[i] = i % 3;
    split[i] = static_cast<int8_t>(i % 3);
  }
  const int64_t m = static_cast<int64_t>(d.src.size());
  WriteNpy(dir + "/src.npy", DType::kInt64, {m}, d.src.data(), m * 8);
  WriteNpy(dir + "/dst.npy", DType::kInt64, {m}, d.dst.data(), m * 8);
  WriteNpy(dir + "/features.npy", DType::kFloat32, {n, f}, d.feat.data(), d.feat.size() * 4);
  WriteNpy(dir + "/labels.npy", DType::kInt64, {n}, labels.data(), n * 8);
  WriteNpy(dir + "/split.npy", DType::kInt8, {n}, split.data(), n);
  return d;
}

// rows: [n, F] float32 in NEW id order; edges in new ids. Dense sums and degrees.
void DenseAggregate(int64_t n, int64_t F, const float* rows, const std::vector<int64_t>& src,
                    const std::vector<int64_t>& dst, std::vector<double>* sums, std::vector<int64_t>* deg) {
  sums->assign(n * F, 0.0);
  deg->assign(n, 0);
  for (size_t e = 0; e < src.size(); ++e) {
    ++(*deg)[dst[e]];
    for (int64_t j = 0; j < F; ++j) (*sums)[dst[e] * F + j] += rows[src[e] * F + j];
  }
}

void CheckAggregate(DistGraphClient& client, const std::string& name, const std::vector<int64_t>& ids, int64_t F,
                    const std::vector<double>& sums, const std::vector<int64_t>& deg) {
  for (AggregateOp op : {AggregateOp::kSum, AggregateOp::kMean}) {
    std::vector<int64_t> got_deg;
    auto r = client.PullAggregate(name, ids.data(), ids.size(), op, &got_deg);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    REQUIRE(r->dtype == DType::kFloat32);
    REQUIRE(r->shape == std::vector<int64_t>{static_cast<int64_t>(ids.size()), F});
    REQUIRE(got_deg.size() == ids.size());
    const float* g = r->as<float>();
    for (size_t i = 0; i < ids.size(); ++i) {
      const int64_t v = ids[i];
      REQUIRE(got_deg[i] == deg[v]);
      for (int64_t j = 0; j < F; ++j) {
        double want = sums[v * F + j];
        if (op == AggregateOp::kMean) want = deg[v] ? want / deg[v] : 0.0;
        INFO("id " << v << " (position " << i << ") column " << j << " op " << int(op) << " degree " << deg[v]);
        REQUIRE(std::abs(g[i * F + j] - want) <= 1e-4 * (1.0 + std::abs(want)));
      }
    }
  }
}

}  // namespace

TEST_CASE("PULL_AGGREGATE equals the dense sum and mean over the in-neighbourhood on 3 partitions",
          "[server][aggregate]") {
  TempDir data;
  const int64_t N = 1500, F = 6;
  AggDataset d = MakeAggDataset(data.path(), N, 9000, F, 77);
  TempDir out;
  auto part = RunDistgnn({"partition", "--dataset", data.path(), "--num-parts", "3", "--method", "random", "--name",
                          "agg", "--out", out / "parts"});
  INFO(part.output);
  REQUIRE(part.exit_code == 0);
  const std::string json = out / "parts/agg.json";
  auto cfg = LoadPartitionConfig(json);
  REQUIRE(cfg.ok());
  auto orig = NpyLoad(out / "parts/orig_nids.npy");
  REQUIRE(orig.ok());
  std::vector<int64_t> new_of(N);
  for (int64_t v = 0; v < N; ++v) new_of[orig->as<int64_t>()[v]] = v;
  std::vector<int64_t> src, dst;
  for (size_t e = 0; e < d.src.size(); ++e) {
    src.push_back(new_of[d.src[e]]);
    dst.push_back(new_of[d.dst[e]]);
  }
  std::vector<float> feat_new(N * F);
  for (int64_t v = 0; v < N; ++v) std::memcpy(&feat_new[v * F], &d.feat[orig->as<int64_t>()[v] * F], F * 4);

  ServerCluster cluster;
  cluster.Start(json, 3, 1);
  TestGraph tg;  // only config is used by ConnectClient
  tg.config = *cfg;
  ClientOptions co = FastClientOptions();
  co.max_ids_per_request = 700;  // several chunks per partition
  auto client = ConnectClient(tg, cluster, co);

  // Every node, then duplicates, then the isolated ones again and node 0 (no in-edges).
  std::vector<int64_t> ids;
  for (int64_t v = 0; v < N; ++v) ids.push_back(v);
  Rng rng(3);
  for (int i = 0; i < 400; ++i) ids.push_back(static_cast<int64_t>(rng.Uniform(N)));
  for (int64_t v = N - 7; v < N; ++v) ids.push_back(new_of[v]);
  ids.push_back(new_of[0]);
  ids.push_back(ids[5]);

  std::vector<double> sums;
  std::vector<int64_t> deg;
  DenseAggregate(N, F, feat_new.data(), src, dst, &sums, &deg);
  for (int64_t v = N - 7; v < N; ++v) REQUIRE(deg[new_of[v]] == 0);
  SECTION("partition data") { CheckAggregate(*client, "features", ids, F, sums, deg); }

  SECTION("a mutable tensor, before and after PUSH, by a sampler") {
    InitTensorSpec spec;
    spec.name = "hist";
    spec.shape = {N, 3};
    spec.init = Initializer::kUniform;
    spec.a = -1;
    spec.b = 1;
    spec.seed = 9;
    REQUIRE(client->InitTensor(spec).ok());
    auto sampler = ConnectClient(tg, cluster, co, "", "sampler");  // read-only role may aggregate
    for (int round = 0; round < 2; ++round) {
      std::vector<int64_t> all(N);
      for (int64_t v = 0; v < N; ++v) all[v] = v;
      auto rows = client->Pull("hist", all);
      REQUIRE(rows.ok());
      DenseAggregate(N, 3, rows->as<float>(), src, dst, &sums, &deg);
      CheckAggregate(*sampler, "hist", ids, 3, sums, deg);
      // Overwrite a third of the rows and check again.
      std::vector<int64_t> some;
      for (int64_t v = 0; v < N; v += 3) some.push_back(v);
      Array vals = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(some.size()), 3});
      for (int64_t i = 0; i < vals.numel(); ++i) vals.as<float>()[i] = static_cast<float>(i % 11) - 5.0f;
      REQUIRE(client->Push("hist", some, vals).ok());
    }
  }

  SECTION("bad requests get an ERROR and the server keeps serving") {
    std::vector<int64_t> bad{1, N};
    auto r = client->PullAggregate("features", bad.data(), bad.size(), AggregateOp::kMean);
    REQUIRE(!r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("not in [0, 1500)"));
    auto labels = client->PullAggregate("labels", ids.data(), 3, AggregateOp::kSum);
    REQUIRE(!labels.ok());
    CHECK_THAT(labels.status().message(), Catch::Contains("float32 or float64"));
    // Straight to the server, past the client's checks: id out of range, unknown tensor.
    RawClient raw(cluster.port(1, 0));
    raw.Hello();
    for (auto [name, id] : {std::pair<std::string, int64_t>{"features", N + 5}, {"nope", 3}, {"features", -1}}) {
      Encoder e;
      EncodePullAggregate(&e, name, IdsArray({0, id}));
      raw.SendFrame(uint16_t(MsgType::kPullAggregate), 7, e.Finish().Flatten());
      FrameHeader h;
      std::string payload;
      REQUIRE(raw.ReadFrame(&h, &payload));
      CHECK(h.type == uint16_t(MsgType::kError));
      CHECK(h.request_id == 7);
    }
    raw.SendFrame(uint16_t(MsgType::kPullAggregate), 8, std::string("\x05\x00", 2));  // truncated
    FrameHeader h;
    std::string payload;
    REQUIRE(raw.ReadFrame(&h, &payload));
    CHECK(h.type == uint16_t(MsgType::kError));
    // Mutated valid requests (flipped bytes, cut or extended): each gets an
    // answer or an ERROR, never a hang or a crash.
    Encoder e;
    EncodePullAggregate(&e, "features", IdsArray({3, 1, 4, 1, 5, 9, 2, 6}));
    const std::string valid = e.Finish().Flatten();
    Rng mut(21);
    for (uint64_t k = 0; k < 600; ++k) {
      std::string m = valid;
      const int kind = static_cast<int>(mut.Uniform(3));
      if (kind == 0) {
        for (int f = 0; f < 3; ++f) m[mut.Uniform(m.size())] = static_cast<char>(mut.Uniform(256));
      } else if (kind == 1) {
        m.resize(mut.Uniform(m.size()));
      } else {
        m += std::string(1 + mut.Uniform(16), static_cast<char>(mut.Uniform(256)));
      }
      raw.SendFrame(uint16_t(MsgType::kPullAggregate), 100 + k, m);
      REQUIRE(raw.ReadFrame(&h, &payload));
      CHECK(h.request_id == 100 + k);
    }
    CheckAggregate(*client, "features", ids, F, sums, deg);
  }
}

TEST_CASE("PULL_AGGREGATE over limits.max_aggregate_edges is ResourceExhausted before any work", "[server][aggregate]") {
  TempDir data;
  MakeAggDataset(data.path(), 500, 3000, 4, 5);
  TempDir out;
  auto part = RunDistgnn({"partition", "--dataset", data.path(), "--num-parts", "2", "--method", "random", "--name",
                          "agg", "--out", out / "parts"});
  REQUIRE(part.exit_code == 0);
  auto cfg = LoadPartitionConfig(out / "parts/agg.json");
  REQUIRE(cfg.ok());
  ServerCluster cluster;
  cluster.Start(out / "parts/agg.json", 2, 1, "", {"--max-aggregate-edges", "100"});
  TestGraph tg;
  tg.config = *cfg;
  auto client = ConnectClient(tg, cluster);
  std::vector<int64_t> few{1, 2}, many;
  for (int64_t v = 0; v < 500; ++v) many.push_back(v);
  REQUIRE(client->PullAggregate("features", few.data(), few.size(), AggregateOp::kMean).ok());
  auto r = client->PullAggregate("features", many.data(), many.size(), AggregateOp::kMean);
  REQUIRE(!r.ok());
  CHECK(r.status().code() == Status::Code::kResourceExhausted);
  CHECK_THAT(r.status().message(), Catch::Contains("limits.max_aggregate_edges"));
  REQUIRE(client->PullAggregate("features", few.data(), few.size(), AggregateOp::kSum).ok());  // still serving
}

TEST_CASE("PULL_AGGREGATE on a partition without the aggregation index is a clear error", "[server][aggregate]") {
  auto tg = MakeTestGraph(300, 2000, 4, 2, 5);  // the synthetic writer writes no agg_*.npy
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  auto client = ConnectClient(*tg, cluster);
  std::vector<int64_t> ids{0, 1, 299};
  auto r = client->PullAggregate("features", ids.data(), ids.size(), AggregateOp::kMean);
  REQUIRE(!r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("has no aggregation index"));
  auto rows = client->Pull("features", ids);  // still serving
  REQUIRE(rows.ok());
}
