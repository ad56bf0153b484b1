// PULL and PULL_BLOCK replies of a real server process, read off a raw
// socket, are byte for byte what encoding the rows gathered in memory gives
// (Encoder::ArrayRef, EncodeWireRows): the server sends partition rows out of
// its mapping in pieces, and the wire must not notice. Contiguous runs,
// scattered ids, duplicates, reverse order, tiny rows (copied) and large ones
// (referenced), edge tensors, a mutable tensor, and the 16-bit wire dtypes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/net/messages.h"
#include "common/net/pull_block.h"
#include "common/net/wire_dtype.h"
#include "common/storage/block_rows.h"
#include "common/storage/neighbor_sampling.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

const char kToken[] = "rows";

// The id lists every check runs: each exercises a different way rows leave the mapping.
std::vector<std::pair<std::string, std::vector<int64_t>>> IdCases(int64_t n) {
  std::vector<int64_t> run(std::min<int64_t>(n, 1500));
  std::iota(run.begin(), run.end(), int64_t(0));
  std::vector<int64_t> scattered;
  Rng rng(11);
  for (int i = 0; i < 2500; ++i) scattered.push_back(static_cast<int64_t>(rng.Uniform(n)));
  std::vector<int64_t> dups = {5, 5, 5, 6, 7, 7, 0, n - 1, n - 1, 5};
  std::vector<int64_t> reverse(run.rbegin(), run.rend());
  std::vector<int64_t> mixed;  // short runs, long runs and jumps interleaved
  for (int64_t start = 0; start + 300 < n; start += 137)
    for (int64_t k = 0; k < (start % 5 == 0 ? 200 : start % 7); ++k) mixed.push_back(start + k);
  std::vector<int64_t> many(3000, n / 2);  // 3000 copies of one row: more than IOV_MAX segments
  for (size_t i = 0; i < many.size(); i += 2) many[i] = static_cast<int64_t>(i % n);
  return {{"run", run}, {"scattered", scattered}, {"duplicates", dups}, {"reverse", reverse},
          {"mixed runs", mixed}, {"alternating", many}, {"none", {}}};
}

// ArrayRef of rows ids[i] of `table` (row index = map(id)) gathered into one Array.
template <typename Map>
std::string GatheredReply(const Array& table, const std::vector<int64_t>& ids, Map map) {
  std::vector<int64_t> shape = table.shape;
  shape[0] = static_cast<int64_t>(ids.size());
  Array rows = Array::Zeros(table.dtype, shape);
  const size_t rb = table.row_bytes();
  for (size_t i = 0; i < ids.size(); ++i)
    std::memcpy(static_cast<uint8_t*>(rows.data) + i * rb, static_cast<const uint8_t*>(table.data) + map(ids[i]) * rb,
                rb);
  Encoder e;
  e.ArrayRef(rows);
  return e.Finish().Flatten();
}

std::string Ask(RawClient& c, MsgType type, uint64_t id, const std::string& payload) {
  c.SendFrame(uint16_t(type), id, payload);
  FrameHeader h;
  std::string reply;
  REQUIRE(c.ReadFrame(&h, &reply));
  INFO(ErrorMessage(reply));
  REQUIRE(h.type == uint16_t(type));
  REQUIRE(h.request_id == id);
  return reply;
}

std::string PullFrame(TensorKind kind, const std::string& name, const std::vector<int64_t>& ids) {
  Encoder e;
  EncodePull(&e, kind, name, IdsArray(ids));
  return e.Finish().Flatten();
}

void CheckPulls(const TestGraph& tg, RawClient& c) {
  uint64_t id = 1;
  const int64_t n = tg.g.num_nodes, m = static_cast<int64_t>(tg.orig_eid.size());
  for (const auto& [what, ids] : IdCases(n)) {
    INFO(what << ": " << ids.size() << " ids");
    auto same = [](int64_t v) { return v; };
    CHECK(Ask(c, MsgType::kPull, id++, PullFrame(TensorKind::kNode, "features", ids)) ==
          GatheredReply(tg.g.features, ids, same));
    CHECK(Ask(c, MsgType::kPull, id++, PullFrame(TensorKind::kNode, "labels", ids)) ==
          GatheredReply(tg.g.labels, ids, same));
  }
  for (const auto& [what, ids] : IdCases(m)) {
    INFO("edge weights, " << what);
    CHECK(Ask(c, MsgType::kPull, id++, PullFrame(TensorKind::kEdge, "weight", ids)) ==
          GatheredReply(tg.g.edge_weight, ids, [&](int64_t e) { return tg.orig_eid[e]; }));
  }
}

}  // namespace

TEST_CASE("PULL replies are the bytes of the gathered rows: wide and tiny rows, every id order", "[server][pull]") {
  for (int64_t feat_dim : {int64_t(100), int64_t(3)}) {
    INFO("feature dim " << feat_dim);
    auto tg = MakeTestGraph(3000, 12000, feat_dim, 1, 21);
    ServerCluster cluster;
    cluster.Start(tg->json, 1, 1, kToken);
    RawClient c(cluster.port(0, 0));
    c.Hello(kToken);
    CheckPulls(*tg, c);
  }
}

TEST_CASE("PULL of a mutable tensor is the bytes of its current rows", "[server][pull]") {
  auto tg = MakeTestGraph(3000, 12000, 8, 1, 22);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken);
  auto client = ConnectClient(*tg, cluster, FastClientOptions(), kToken);
  const int64_t n = tg->g.num_nodes, dim = 24;
  InitTensorSpec spec;
  spec.name = "emb";
  spec.shape = {n, dim};
  REQUIRE(client->InitTensor(spec).ok());
  Array rows = Array::Zeros(DType::kFloat32, {n, dim});
  for (int64_t i = 0; i < rows.numel(); ++i) rows.as<float>()[i] = static_cast<float>(i % 977) * 0.25f - 3.0f;
  std::vector<int64_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), int64_t(0));
  REQUIRE(client->Push("emb", all, rows).ok());
  RawClient c(cluster.port(0, 0));
  c.Hello(kToken);
  uint64_t id = 1;
  for (const auto& [what, ids] : IdCases(n)) {
    INFO(what);
    CHECK(Ask(c, MsgType::kPull, id++, PullFrame(TensorKind::kNode, "emb", ids)) ==
          GatheredReply(rows, ids, [](int64_t v) { return v; }));
  }
}

TEST_CASE("PULL_BLOCK replies are the bytes of the gathered rows in every wire dtype", "[server][pull][wire]") {
  auto tg = MakeTestGraph(3000, 12000, 100, 1, 23);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken);
  RawClient c(cluster.port(0, 0));
  c.Hello(kToken);
  const int64_t n = tg->g.num_nodes, f = tg->g.features.row_elems();
  const float* table = tg->g.features.as<float>();
  uint64_t id = 1;
  for (WireDType wire : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16}) {
    for (const auto& [what, ids] : IdCases(n)) {
      INFO(WireDTypeName(wire) << ", " << what);
      auto req = std::make_shared<PullBlockIds>();
      req->rows.assign(ids.begin(), ids.end());
      for (size_t i = 0; i < std::min<size_t>(ids.size(), 40); ++i) {  // a few destinations with sources
        req->counts.push_back(static_cast<int32_t>(i % 4));
        for (size_t k = 0; k < i % 4; ++k) req->src.push_back(static_cast<int32_t>((ids[i] + 7 * k) % n));
      }
      const int64_t r = static_cast<int64_t>(ids.size()), m = static_cast<int64_t>(req->counts.size());
      Array own = Array::Zeros(DType::kFloat32, {r, f});
      CopyRows(table, f, req->rows.data(), r, nullptr, own.as<float>());
      int64_t k = 0;
      for (int32_t cnt : req->counts) k += cnt > 0;
      Array sums = Array::Zeros(DType::kFloat32, {k, f});
      SumRows(table, f, req->counts.data(), m, req->src.data(), static_cast<int64_t>(req->src.size()), nullptr,
              sums.as<float>());
      Encoder want;
      EncodeWireRows(&want, wire, own.as<float>(), r, f, own.holder);
      EncodeWireRows(&want, wire, sums.as<float>(), k, f, sums.holder);
      Encoder e;
      EncodePullBlock(&e, "features", wire, req);
      CHECK(Ask(c, MsgType::kPullBlock, id++, e.Finish().Flatten()) == want.Finish().Flatten());
    }
  }
}
