// SAMPLE_BLOCK: block 0 sampled and summed where its destinations live
// (SampleBlockInput, common/client/block_input.h) against real servers gives
// the same batch as sampling everything and then PULL_BLOCK
// (SampleMiniBatch + FillBlockInput): the same upper blocks and labels, the
// same sampled degrees, the same input rows, and the same source means --
// bit for bit with two partitions, within float rounding with three -- for
// machine-local and remote partitions, each wire dtype, with and without
// replacement and with small request chunks. Malformed requests and requests
// over the limits get an ERROR and the server keeps serving.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/client/block_input.h"
#include "common/client/dist_neighbor_source.h"
#include "common/net/codec.h"
#include "common/net/pull_block.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

void RequireSameBlock(const Block& a, const Block& b) {
  REQUIRE(a.num_dst == b.num_dst);
  REQUIRE(a.num_src == b.num_src);
  REQUIRE(std::vector<int64_t>(a.indptr.begin(), a.indptr.end()) ==
          std::vector<int64_t>(b.indptr.begin(), b.indptr.end()));
  REQUIRE(std::vector<int64_t>(a.indices.begin(), a.indices.end()) ==
          std::vector<int64_t>(b.indices.begin(), b.indices.end()));
}

void RequireSameInput(const MiniBatch& fused, const MiniBatch& ref, bool exact) {
  REQUIRE(fused.blocks.size() == ref.blocks.size());
  for (size_t l = 1; l < ref.blocks.size(); ++l) RequireSameBlock(fused.blocks[l], ref.blocks[l]);
  const Block& f0 = fused.blocks[0];
  const Block& r0 = ref.blocks[0];
  REQUIRE(f0.num_dst == r0.num_dst);
  REQUIRE(f0.num_src == f0.num_dst);
  REQUIRE(fused.input_nodes == std::vector<int64_t>(ref.input_nodes.begin(), ref.input_nodes.begin() + r0.num_dst));
  for (int64_t i = 0; i < r0.num_dst; ++i) {
    INFO("destination " << i);
    REQUIRE(f0.indptr[i + 1] - f0.indptr[i] == r0.indptr[i + 1] - r0.indptr[i]);
    for (int64_t e = f0.indptr[i]; e < f0.indptr[i + 1]; ++e) REQUIRE(f0.indices[e] == i);
  }
  REQUIRE(fused.features.shape == ref.features.shape);
  REQUIRE(fused.input_neigh_mean.shape == ref.input_neigh_mean.shape);
  const int64_t n = ref.features.numel();
  for (int64_t k = 0; k < n; ++k) {
    INFO("element " << k);
    REQUIRE(fused.features.as<float>()[k] == ref.features.as<float>()[k]);
    const float a = fused.input_neigh_mean.as<float>()[k], b = ref.input_neigh_mean.as<float>()[k];
    if (exact) REQUIRE(a == b);
    else REQUIRE(std::abs(a - b) <= 1e-5f * (1 + std::abs(b)));
  }
  REQUIRE(fused.labels.shape == ref.labels.shape);
  for (int64_t k = 0; !ref.labels.shape.empty() && k < ref.labels.numel(); ++k) REQUIRE(fused.labels.as<int64_t>()[k] == ref.labels.as<int64_t>()[k]);
}

std::string SamplePayload(const std::string& name, int64_t fanout, bool replace, std::vector<int32_t> dst,
                          std::vector<int32_t> skip = {}, const SampleBlockHistory& history = {},
                          std::vector<int32_t> cand = {}) {
  auto ids = std::make_shared<PullBlockIds>();
  ids->rows = std::move(dst);
  ids->skip = std::move(skip);
  ids->cand = std::move(cand);
  Encoder e;
  EncodeSampleBlock(&e, name, WireDType::kFloat32, Hop(fanout, replace, 9, "", false), ids, history);
  return e.Finish().Flatten();
}

void ExpectError(RawClient& raw, uint64_t id, const std::string& payload, const std::string& contains) {
  raw.SendFrame(uint16_t(MsgType::kSampleBlock), id, payload);
  FrameHeader h;
  std::string reply;
  REQUIRE(raw.ReadFrame(&h, &reply));
  CHECK(h.request_id == id);
  REQUIRE(h.type == uint16_t(MsgType::kError));
  INFO(reply);
  CHECK(reply.find(contains) != std::string::npos);
}

}  // namespace

TEST_CASE("SAMPLE_BLOCK gives the batch that sampling then PULL_BLOCK gives", "[server][pull_block]") {
  for (int parts : {2, 3}) {
    auto tg = MakeTestGraph(2000, 16000, 7, parts, 11);
    ServerCluster cluster;
    cluster.Start(tg->json, parts, 1);
    for (bool local : {false, true}) {
      ClientOptions co = FastClientOptions();
      if (local) co.local_partitions = {0};
      auto client = ConnectClient(*tg, cluster, co, "", "sampler");  // a read-only role may send it
      DistNeighborSource source(client.get());
      for (WireDType wire : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16}) {
        for (bool replace : {true, false}) {
          {  // one pass over every combination (a section would rerun the whole case for each)
            INFO(parts << " parts, local partition 0: " << local << ", wire " << WireDTypeName(wire)
                                << ", replace " << replace);
            BlockInputOptions o;
            o.wire = wire;
            o.max_dst_per_request = 97;  // several requests per partition
            MiniBatchOptions mo;
            mo.fanouts = {6, 4};
            mo.replace = replace;
            mo.feature_name = "";
            mo.label_name = "labels";
            mo.owner_offsets = tg->config.node_map;
            std::vector<int64_t> seeds;
            for (int64_t v = 3; v < 2000; v += 37) seeds.push_back(v);
            auto ref = SampleMiniBatch(&source, seeds, mo, 5, 1, 2);
            REQUIRE(ref.ok());
            REQUIRE(FillBlockInput(client.get(), o, &*ref).ok());
            auto fused = SampleBlockInput(client.get(), &source, o, seeds, mo, 5, 1, 2);
            REQUIRE(fused.ok());
            RequireSameInput(*fused, *ref, parts == 2);
          }
        }
      }
    }
  }
}

TEST_CASE("SAMPLE_BLOCK with a history answers the candidates whose stored row is young enough and samples the "
          "rest as SAMPLE_BLOCK does",
          "[server][pull_block][historical]") {
  constexpr int64_t N = 2000, W = 3, kStep = 10, kMaxAge = 4;
  for (int parts : {2, 3}) {
    auto tg = MakeTestGraph(N, 16000, 7, parts, 11);
    ServerCluster cluster;
    cluster.Start(tg->json, parts, 2);  // stored rows live on each partition's first server
    for (bool local : {false, true}) {
      INFO(parts << " parts, local partition 0: " << local);
      ClientOptions co = FastClientOptions();
      if (local) co.local_partitions = {0};
      auto client = ConnectClient(*tg, cluster, co, "", "trainer");
      DistNeighborSource source(client.get());
      InitTensorSpec spec;
      spec.name = local ? "hist_local" : "hist";
      spec.shape = {N, W + 2};
      REQUIRE(client->InitTensor(spec).ok());
      // Node v (v % 3 != 0) was written at step v % 11: a row of (v, -v, v / 2), then step + 1.
      std::vector<int64_t> written_ids;
      for (int64_t v = 0; v < N; ++v)
        if (v % 3 != 0) written_ids.push_back(v);
      Array rows = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(written_ids.size()), W + 2});
      for (size_t i = 0; i < written_ids.size(); ++i) {
        const int64_t v = written_ids[i], step1 = v % 11 + 1;
        float* r = rows.as<float>() + i * (W + 2);
        r[0] = static_cast<float>(v), r[1] = -static_cast<float>(v), r[2] = static_cast<float>(v) / 2;
        std::memcpy(r + W, &step1, sizeof(step1));
      }
      REQUIRE(client->Push(spec.name, written_ids, rows).ok());
      BlockHistoryRead read;
      read.ask = SampleBlockHistory{spec.name, kStep, kMaxAge};
      read.width = W;
      std::vector<int64_t> dst, want_hits, misses;
      for (int64_t v = 1; v < N; v += 7) {
        dst.push_back(v);
        read.candidate.push_back(v % 2 == 0);
        const bool hit = v % 2 == 0 && v % 3 != 0 && kStep - v % 11 <= kMaxAge;
        (hit ? want_hits : misses).push_back(static_cast<int64_t>(dst.size() - 1));
      }
      REQUIRE(!want_hits.empty());
      BlockInputOptions o;
      o.max_dst_per_request = 61;
      MiniBatchOptions mo;
      mo.fanouts = {6};
      mo.feature_name = "";
      mo.label_name = "";
      mo.owner_offsets = tg->config.node_map;
      BlockHistoryHits hits;
      auto fused = SampleBlock0WithHistory(client.get(), o, dst, mo, 5, 1, 2, read, &hits);
      REQUIRE(fused.ok());
      REQUIRE(hits.hit_pos == want_hits);
      std::vector<int64_t> miss_pos = hits.miss_pos;  // in batch row order
      std::sort(miss_pos.begin(), miss_pos.end());
      REQUIRE(miss_pos == misses);
      REQUIRE(hits.rows.shape == std::vector<int64_t>{static_cast<int64_t>(want_hits.size()), W});
      for (size_t t = 0; t < want_hits.size(); ++t) {
        const float v = static_cast<float>(dst[want_hits[t]]);
        CHECK(hits.rows.as<float>()[t * W] == v);
        CHECK(hits.rows.as<float>()[t * W + 1] == -v);
        CHECK(hits.rows.as<float>()[t * W + 2] == v / 2);
      }
      std::vector<int64_t> miss_ids;
      for (int64_t i : hits.miss_pos) miss_ids.push_back(dst[i]);
      auto ref = SampleBlockInput(client.get(), &source, o, miss_ids, mo, 5, 1, 2);
      INFO(ref.status().ToString());
      REQUIRE(ref.ok());
      RequireSameInput(*fused, *ref, parts == 2);
    }
  }
}

TEST_CASE("BlockInputProvider's batches do not depend on how many are made ahead", "[server][pull_block]") {
  // Two batch makers with four batches ahead give, batch for batch, what one
  // maker one batch at a time gives: same blocks, rows and means, in order.
  auto tg = MakeTestGraph(2000, 16000, 7, 2, 13);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  ClientOptions co = FastClientOptions();
  co.local_partitions = {0};
  auto client = ConnectClient(*tg, cluster, co, "", "sampler");
  DistNeighborSource source(client.get());
  BlockInputOptions o;
  o.wire = WireDType::kFloat16;
  EpochRequest req;
  req.epoch = 3;
  for (int64_t v = 0; v < 2000; v += 3) req.seeds.push_back(v);
  req.batch_size = 64;
  req.fanouts = {5, 3};
  req.job_seed = 17;
  auto run = [&](int workers, int prefetch) {
    BlockInputProvider p(client.get(), &source, o, workers, prefetch);
    REQUIRE(p.BeginEpoch(req).ok());
    std::vector<MiniBatch> out;
    MiniBatch mb;
    for (;;) {
      auto more = p.Next(&mb);
      REQUIRE(more.ok());
      if (!*more) break;
      out.push_back(std::move(mb));
    }
    return out;
  };
  const std::vector<MiniBatch> ahead = run(2, 4), one = run(1, 1);
  REQUIRE(ahead.size() == one.size());
  REQUIRE(ahead.size() == 11);
  for (size_t b = 0; b < one.size(); ++b) {
    INFO("batch " << b);
    REQUIRE(ahead[b].batch_index == one[b].batch_index);
    REQUIRE(ahead[b].seeds == one[b].seeds);
    RequireSameBlock(ahead[b].blocks[0], one[b].blocks[0]);
    RequireSameInput(ahead[b], one[b], true);
  }
}

TEST_CASE("SAMPLE_BLOCK refuses malformed requests and requests over the limits, and keeps serving",
          "[server][pull_block]") {
  auto tg = MakeTestGraph(600, 3000, 64, 2, 3);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1, "", {"--max-frame-bytes", "8192", "--max-fanout", "50"});
  RawClient raw(cluster.port(1, 0));
  raw.Hello();
  const int32_t owned = static_cast<int32_t>(tg->config.node_map[2] - tg->config.node_map[1]);
  uint64_t id = 1;
  ExpectError(raw, id++, SamplePayload("nope", 3, false, {1}), "no node array of that name");
  ExpectError(raw, id++, SamplePayload("labels", 3, false, {1}), "float32 [N, F]");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {owned}), "dst offset " + std::to_string(owned));
  ExpectError(raw, id++, SamplePayload("features", 3, false, {-1}), "dst offset -1");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2}, {2}), "skip[0] = 2 is not a position in dst");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2, 3}, {1, 1}), "skip[1] = 1");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2}, {-1}), "skip[0] = -1");
  ExpectError(raw, id++, SamplePayload("features", 51, true, {1}), "limits.max_fanout");
  ExpectError(raw, id++, SamplePayload("features", 3, false, std::vector<int32_t>(40, 1)), "over the frame limit");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2}, {}, {}, {0}), "no history tensor is named");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2}, {}, {"nope", 3, 1}, {0}), "nope");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2}, {}, {"nope", 3, 1}, {2}),
              "cand[0] = 2 is not a position in dst");
  ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2}, {}, {"nope", 3, -1}, {0}), "max_age -1");
  {  // stored rows of 1000 floats: 3 candidates could not fit 8192 bytes, refused before they are read
    auto client = ConnectClient(*tg, cluster, FastClientOptions(), "", "trainer");
    InitTensorSpec wide;
    wide.name = "wide";
    wide.shape = {600, 1002};
    REQUIRE(client->InitTensor(wide).ok());
    ExpectError(raw, id++, SamplePayload("features", 3, false, {1, 2, 3}, {}, {"wide", 3, 1}, {0, 1, 2}),
                "the stored rows of 3 candidates would be over the frame limit of 8192 bytes");
  }
  const std::string valid = SamplePayload("features", 3, false, {0, 5, 5});
  ExpectError(raw, id++, valid.substr(0, valid.size() - 3), "SAMPLE_BLOCK");
  ExpectError(raw, id++, valid + "x", "SAMPLE_BLOCK");
  FrameHeader h;
  std::string payload;
  raw.SendFrame(uint16_t(MsgType::kSampleBlock), id, valid);
  REQUIRE(raw.ReadFrame(&h, &payload));
  CHECK(h.type == uint16_t(MsgType::kSampleBlock));
  CHECK(h.request_id == id);
}
