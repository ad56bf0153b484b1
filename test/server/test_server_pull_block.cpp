// PULL_BLOCK: a mini-batch's input block fetched from real servers of a
// 3-part partition (FillBlockInput, common/client/block_input.h) equals the
// in-memory reference -- block 0's destination rows and the mean of each
// destination's sampled source rows -- for sampled batches (with duplicate
// sources), a hand-made block with every edge case, machine-local and remote
// partitions, small request chunks and each wire dtype; malformed requests
// and requests over the limits get an ERROR and the server keeps serving.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "common/net/codec.h"
#include "common/net/pull_block.h"
#include "common/client/block_input.h"
#include "common/client/dist_neighbor_source.h"
#include "common/storage/neighbor_sampling.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

float Wire(float x, WireDType t) {
  if (t == WireDType::kFloat16) return HalfToFloat(FloatToHalf(x));
  if (t == WireDType::kBFloat16) return BFloat16ToFloat(FloatToBFloat16(x));
  return x;
}

// The batch's input as FillBlockInput must give it, computed from the graph's
// feature table in double: rows of block 0's destinations and the mean of
// their sampled sources.
void CheckAggregatedInput(const TestGraph& tg, const MiniBatch& mb, WireDType wire, bool first_part_local) {
  const Block& b = mb.blocks[0];
  const int64_t F = tg.g.features.row_elems();
  const float* table = tg.g.features.as<float>();
  REQUIRE(mb.features.shape == std::vector<int64_t>{b.num_dst, F});
  REQUIRE(mb.input_neigh_mean.shape == std::vector<int64_t>{b.num_dst, F});
  const int64_t local_end = first_part_local ? tg.config.node_map[1] : 0;
  // float16 rounds each partial sum once (relative 2^-11), bfloat16 too (2^-8).
  const double tol = wire == WireDType::kFloat32 ? 1e-5 : wire == WireDType::kFloat16 ? 2e-3 : 1.6e-2;
  std::vector<double> mean(F);
  for (int64_t i = 0; i < b.num_dst; ++i) {
    const int64_t v = mb.input_nodes[i];
    for (int64_t j = 0; j < F; ++j) {
      const float want = v < local_end ? table[v * F + j] : Wire(table[v * F + j], wire);
      INFO("destination " << i << " (node " << v << ") column " << j);
      REQUIRE(mb.features.as<float>()[i * F + j] == want);  // own rows: exact (one rounding)
    }
    std::fill(mean.begin(), mean.end(), 0.0);
    const int64_t deg = b.indptr[i + 1] - b.indptr[i];
    for (int64_t e = b.indptr[i]; e < b.indptr[i + 1]; ++e) {
      const int64_t s = mb.input_nodes[b.indices[e]];
      for (int64_t j = 0; j < F; ++j) mean[j] += table[s * F + j];
    }
    for (int64_t j = 0; j < F; ++j) {
      const double want = deg > 0 ? mean[j] / deg : 0.0;
      const double got = mb.input_neigh_mean.as<float>()[i * F + j];
      INFO("destination " << i << " (node " << v << ", " << deg << " sampled sources) column " << j);
      REQUIRE(std::abs(got - want) <= tol * (1.0 + std::abs(want)));
    }
  }
}

// A block 0 over chosen nodes: destination i's sources are srcs[i] (global ids).
MiniBatch HandMadeBatch(const std::vector<int64_t>& dst, const std::vector<std::vector<int64_t>>& srcs) {
  MiniBatch mb;
  SampledNeighbors s;
  s.indptr.push_back(0);
  for (const auto& list : srcs) {
    s.sources.insert(s.sources.end(), list.begin(), list.end());
    s.indptr.push_back(static_cast<int64_t>(s.sources.size()));
  }
  mb.blocks.push_back(BuildBlock(dst, s, &mb.input_nodes));
  mb.seeds = dst;
  return mb;
}

std::string BlockPayload(const std::string& name, uint8_t wire, std::vector<int32_t> rows, std::vector<int32_t> counts,
                         std::vector<int32_t> src) {
  auto ids = std::make_shared<PullBlockIds>();
  ids->rows = std::move(rows);
  ids->counts = std::move(counts);
  ids->src = std::move(src);
  Encoder e;
  EncodePullBlock(&e, name, WireDType::kFloat32, ids);
  std::string p = e.Finish().Flatten();
  p[4 + name.size()] = static_cast<char>(wire);  // the wire dtype byte follows the name
  return p;
}

void ExpectError(RawClient& raw, uint64_t id, const std::string& payload, const std::string& contains) {
  raw.SendFrame(uint16_t(MsgType::kPullBlock), id, payload);
  FrameHeader h;
  std::string reply;
  REQUIRE(raw.ReadFrame(&h, &reply));
  CHECK(h.request_id == id);
  REQUIRE(h.type == uint16_t(MsgType::kError));
  INFO(reply);
  CHECK(reply.find(contains) != std::string::npos);
}

}  // namespace

TEST_CASE("PULL_BLOCK gives block 0's rows and source means equal to the in-memory reference", "[server][pull_block]") {
  auto tg = MakeTestGraph(2000, 16000, 7, 3, 11);
  ServerCluster cluster;
  cluster.Start(tg->json, 3, 1);
  const int64_t N = 2000;
  for (bool local : {false, true}) {
    ClientOptions co = FastClientOptions();
    if (local) co.local_partitions = {0};
    auto client = ConnectClient(*tg, cluster, co, "", "sampler");  // a read-only role may send it
    DistNeighborSource source(client.get());
    for (WireDType wire : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16}) {
      BlockInputOptions o;
      o.wire = wire;
      o.max_dst_per_request = 97;  // several requests per partition
      {  // one pass over every combination (a section would rerun the whole case for each)
        INFO("local partition 0: " << local << ", wire " << WireDTypeName(wire));
        // Sampled batches, with replacement (duplicate sources) and without.
        for (bool replace : {true, false}) {
          MiniBatchOptions mo;
          mo.fanouts = {6, 4};
          mo.replace = replace;
          mo.feature_name = "";
          mo.label_name = "";
          mo.owner_offsets = tg->config.node_map;
          std::vector<int64_t> seeds;
          for (int64_t v = 0; v < N; v += 37) seeds.push_back(v);
          auto mb = SampleMiniBatch(&source, seeds, mo, 5, 1, 2);
          REQUIRE(mb.ok());
          REQUIRE(FillBlockInput(client.get(), o, &*mb).ok());
          CheckAggregatedInput(*tg, *mb, wire, local);
        }
        // By hand: a destination without sources, one whose sources all live in
        // another partition, one source many times, a destination among its own
        // sources, and the first and last node of every partition.
        const auto& nm = tg->config.node_map;
        std::vector<int64_t> dst{5, nm[1], nm[2] + 3, nm[1] + 10, nm[3] - 1, nm[1] - 1, nm[2], 0};
        std::vector<std::vector<int64_t>> srcs{{},
                                               {nm[2] + 1, nm[2] + 2, nm[3] - 1},
                                               {7, 7, 7, 7, nm[1] + 4},
                                               {nm[1], 5, nm[2]},
                                               {0},
                                               {nm[3] - 1, nm[3] - 1},
                                               {},
                                               {nm[1] - 1, nm[2] - 1, nm[3] - 1, 0}};
        MiniBatch mb = HandMadeBatch(dst, srcs);
        REQUIRE(FillBlockInput(client.get(), o, &mb).ok());
        CheckAggregatedInput(*tg, mb, wire, local);
        // Without aggregation: every input node's row, as PULL gives it, in the wire dtype.
        BlockInputOptions rows_only = o;
        rows_only.aggregate = false;
        MiniBatch plain = HandMadeBatch(dst, srcs);
        REQUIRE(FillBlockInput(client.get(), rows_only, &plain).ok());
        REQUIRE(plain.input_neigh_mean.shape.empty());
        const int64_t F = 7;
        REQUIRE(plain.features.shape == std::vector<int64_t>{static_cast<int64_t>(plain.input_nodes.size()), F});
        for (size_t i = 0; i < plain.input_nodes.size(); ++i) {
          const int64_t v = plain.input_nodes[i];
          for (int64_t j = 0; j < F; ++j) {
            const float x = tg->g.features.as<float>()[v * F + j];
            REQUIRE(plain.features.as<float>()[i * F + j] == (local && v < nm[1] ? x : Wire(x, wire)));
          }
        }
      }
    }
  }
}

TEST_CASE("PULL_BLOCK refuses malformed requests and requests over the limits, and keeps serving",
          "[server][pull_block]") {
  auto tg = MakeTestGraph(600, 3000, 4, 2, 3);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1, "", {"--max-aggregate-edges", "10"});
  auto client = ConnectClient(*tg, cluster);
  InitTensorSpec spec;
  spec.name = "hist";
  spec.shape = {600, 4};
  REQUIRE(client->InitTensor(spec).ok());
  RawClient raw(cluster.port(1, 0));
  raw.Hello();
  const int32_t owned = static_cast<int32_t>(tg->config.node_map[2] - tg->config.node_map[1]);
  uint64_t id = 1;
  ExpectError(raw, id++, BlockPayload("nope", 0, {1}, {}, {}), "no node array of that name");
  ExpectError(raw, id++, BlockPayload("labels", 0, {1}, {}, {}), "float32 [N, F]");
  ExpectError(raw, id++, BlockPayload("hist", 0, {1}, {}, {}), "partition node data only");
  ExpectError(raw, id++, BlockPayload("features", 0, {owned}, {}, {}), "rows offset " + std::to_string(owned));
  ExpectError(raw, id++, BlockPayload("features", 0, {}, {1}, {-1}), "src offset -1");
  ExpectError(raw, id++, BlockPayload("features", 0, {}, {2, 0}, {1}), "add up to 2 but 1");
  ExpectError(raw, id++, BlockPayload("features", 0, {}, {-1, 2}, {1}), "is negative");
  ExpectError(raw, id++, BlockPayload("features", 3, {1}, {}, {}), "wire dtype code 3");
  ExpectError(raw, id++, BlockPayload("features", 0, {}, {11}, std::vector<int32_t>(11, 2)),
              "limits.max_aggregate_edges");
  {  // int64 counts where int32 belong
    Encoder e;
    e.String("features");
    e.U8(0);
    auto ids = std::make_shared<PullBlockIds>();
    Array rows;
    rows.dtype = DType::kInt32;
    rows.shape = {0};
    e.ArrayRef(rows);
    e.Ids(std::vector<int64_t>{1});
    e.ArrayRef(rows);
    ExpectError(raw, id++, e.Finish().Flatten(), "counts must be an int32 [n] array");
  }
  const std::string valid = BlockPayload("features", 1, {0, 3}, {2, 0, 1}, {4, 5, 4});
  ExpectError(raw, id++, valid.substr(0, valid.size() - 3), "PULL_BLOCK");
  ExpectError(raw, id++, valid + "x", "PULL_BLOCK");
  // Mutated valid requests: each gets an answer or an ERROR with its id.
  Rng mut(8);
  FrameHeader h;
  std::string payload;
  for (int k = 0; k < 400; ++k) {
    std::string m = valid;
    const int kind = static_cast<int>(mut.Uniform(3));
    if (kind == 0) {
      for (int f = 0; f < 3; ++f) m[mut.Uniform(m.size())] = static_cast<char>(mut.Uniform(256));
    } else if (kind == 1) {
      m.resize(mut.Uniform(m.size()));
    } else {
      m += std::string(1 + mut.Uniform(16), static_cast<char>(mut.Uniform(256)));
    }
    raw.SendFrame(uint16_t(MsgType::kPullBlock), 1000 + k, m);
    REQUIRE(raw.ReadFrame(&h, &payload));
    CHECK(h.request_id == uint64_t(1000 + k));
  }
  // At the edge limit, and the valid request: answered.
  for (const std::string& ok : {valid, BlockPayload("features", 2, {}, {10}, std::vector<int32_t>(10, 1))}) {
    raw.SendFrame(uint16_t(MsgType::kPullBlock), id, ok);
    REQUIRE(raw.ReadFrame(&h, &payload));
    CHECK(h.type == uint16_t(MsgType::kPullBlock));
    CHECK(h.request_id == id++);
  }
}

TEST_CASE("PULL_BLOCK's answer must fit the frame limit", "[server][pull_block]") {
  auto tg = MakeTestGraph(600, 3000, 64, 2, 3);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1, "", {"--max-frame-bytes", "8192"});
  RawClient raw(cluster.port(0, 0));
  raw.Hello();
  ExpectError(raw, 1, BlockPayload("features", 0, std::vector<int32_t>(40, 1), {}, {}), "over the frame limit");
  FrameHeader h;
  std::string payload;
  raw.SendFrame(uint16_t(MsgType::kPullBlock), 2, BlockPayload("features", 1, std::vector<int32_t>(40, 1), {}, {}));
  REQUIRE(raw.ReadFrame(&h, &payload));  // float16 halves it: fits
  CHECK(h.type == uint16_t(MsgType::kPullBlock));
}
