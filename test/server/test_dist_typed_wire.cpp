// 16-bit feature rows of a typed partition (common/client/typed_node_rows.h),
// real servers of a 2-partition IMDB on 127.0.0.1: the rows PullTypedNodeRows
// gives in float16 / bfloat16 are the float32 rows rounded as the wire rounds
// them, bit for bit, at half the bytes (machine-local rows stay float32); BlockInputProvider's
// typed batches are LocalBatchProvider's with those rows (aggregated: the same
// edges, with per-relation means); a PULL_BLOCK of a
// per-type array past its rows and a SAMPLE_BLOCK of one are refused, and the
// server keeps serving.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "common/client/block_input.h"
#include "common/client/dist_neighbor_source.h"
#include "common/client/typed_node_rows.h"
#include "common/net/message_bytes.h"
#include "common/net/pull_block.h"
#include "common/storage/partition.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

bool SameBytes(const Array& a, const Array& b) {
  return a.dtype == b.dtype && a.shape == b.shape && std::memcmp(a.data, b.data, a.nbytes()) == 0;
}

// Row i of `a` (float32 [n, F]) rounded as wire rows of type t.
std::vector<float> RoundedRow(const Array& a, int64_t i, WireDType t) {
  const int64_t F = a.shape[1];
  std::vector<float> row(a.as<float>() + i * F, a.as<float>() + (i + 1) * F);
  RoundLikeWire(t, row.data(), F);
  return row;
}

bool RowIs(const Array& a, int64_t i, const std::vector<float>& want) {
  return std::memcmp(a.as<float>() + i * a.shape[1], want.data(), want.size() * 4) == 0;
}

// Bytes this process received in messages of `type` since `before`.
uint64_t ReceivedSince(const std::vector<MessageByteCount>& before, const std::string& type) {
  for (const MessageByteCount& c : MessageBytesSince(MessageBytesSnapshot(), before))
    if (c.type == type) return c.received;
  return 0;
}

}  // namespace

TEST_CASE("typed feature rows in float16 and bfloat16 are the float32 rows rounded as the wire rounds them",
          "[server][typed][wire]") {
  TempDir tmp;
  const std::string out = tmp.path() + "/p";
  auto r = RunDistgnn({"partition", "--dataset", test::SourceDir() + "/data/imdb-hetero", "--undirected",
                       "--num-parts", "2", "--method", "random", "--name", "imdb", "--out", out});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadAnyPartitionConfig(out + "/imdb.json");
  REQUIRE(cfg.ok());
  REQUIRE(CheckBlockInput(*cfg, "features").ok());
  ServerCluster cluster;
  cluster.Start(out + "/imdb.json", 2, 1);
  ClientOptions with_local = FastClientOptions();
  with_local.local_partitions = {0};
  auto remote = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 0, FastClientOptions());
  auto local = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 1, with_local);
  REQUIRE(remote.ok());
  REQUIRE(local.ok());

  // Every 5th node: every type (featureless ones give zero rows), both partitions.
  std::vector<int64_t> ids;
  for (int64_t g = 0; g < cfg->num_nodes; g += 5) ids.push_back(g);
  auto bytes_before = MessageBytesSnapshot();
  auto f32 = PullTypedNodeRows(remote->get(), "features", ids);
  REQUIRE(f32.ok());
  const uint64_t f32_bytes = ReceivedSince(bytes_before, "PULL");
  REQUIRE(f32->shape == std::vector<int64_t>{static_cast<int64_t>(ids.size()), TypedFeatureDim(*cfg)});
  const PartitionBook book(cfg->node_map);
  for (WireDType t : {WireDType::kFloat16, WireDType::kBFloat16}) {
    INFO(WireDTypeName(t));
    bytes_before = MessageBytesSnapshot();
    auto wire = PullTypedNodeRows(remote->get(), "features", ids, t);
    // Half the bytes: IMDB's feature rows by PULL_BLOCK at 2 bytes a value, none by PULL.
    const uint64_t wire_bytes = ReceivedSince(bytes_before, "PULL_BLOCK");
    CHECK(ReceivedSince(bytes_before, "PULL") == 0);
    CHECK(wire_bytes > f32_bytes * 0.45);
    CHECK(wire_bytes < f32_bytes * 0.55);
    auto mixed = PullTypedNodeRows(local->get(), "features", ids, t);
    REQUIRE(wire.ok());
    REQUIRE(mixed.ok());
    REQUIRE(wire->shape == f32->shape);
    // (IMDB's features are 0/1, exact in 16 bits: the rows come back as they are.)
    for (size_t i = 0; i < ids.size(); ++i) {
      const std::vector<float> rounded = RoundedRow(*f32, static_cast<int64_t>(i), t);
      REQUIRE(RowIs(*wire, static_cast<int64_t>(i), rounded));
      // Partition 0 read from the mmap: float32 as it is.
      if (book.Owner(ids[i]) == 0) REQUIRE(RowIs(*mixed, static_cast<int64_t>(i), RoundedRow(*f32, i, WireDType::kFloat32)));
      else REQUIRE(RowIs(*mixed, static_cast<int64_t>(i), rounded));
    }
  }
  // Labels are never narrowed.
  auto labels = PullTypedNodeRows(remote->get(), "labels", ids, WireDType::kFloat16);
  auto labels32 = PullTypedNodeRows(remote->get(), "labels", ids);
  REQUIRE(labels.ok());
  REQUIRE(labels32.ok());
  CHECK(SameBytes(*labels, *labels32));

  SECTION("BlockInputProvider's typed batches are LocalBatchProvider's with 16-bit rows") {
    DistNeighborSource source(remote->get());
    EpochRequest req;
    req.epoch = 1;
    for (int64_t g = 0; g < cfg->num_nodes && req.seeds.size() < 300; ++g)
      if (cfg->NodeTypeOf(g) == cfg->NodeTypeId(cfg->target)) req.seeds.push_back(g);
    req.batch_size = 100;
    req.fanouts = {4, 4};
    req.job_seed = 5;
    BlockInputOptions o;
    o.aggregate = false;
    o.wire = WireDType::kBFloat16;
    BlockInputProvider block(remote->get(), &source, o, 2);
    LocalBatchProvider pull(&source, 1);
    REQUIRE(block.BeginEpoch(req).ok());
    REQUIRE(pull.BeginEpoch(req).ok());
    int batches = 0;
    for (MiniBatch a, b;; ++batches) {
      auto more_a = block.Next(&a);
      auto more_b = pull.Next(&b);
      REQUIRE(more_a.ok());
      REQUIRE(more_b.ok());
      REQUIRE(*more_a == *more_b);
      if (!*more_a) break;
      CHECK(a.input_nodes == b.input_nodes);
      CHECK(a.input_ntypes == b.input_ntypes);
      CHECK(a.blocks[0].etypes == b.blocks[0].etypes);
      CHECK(SameBytes(a.labels, b.labels));
      CHECK(a.input_neigh_mean.shape.empty());
      REQUIRE(a.features.shape == b.features.shape);
      for (int64_t i = 0; i < b.features.rows(); ++i) REQUIRE(RowIs(a.features, i, RoundedRow(b.features, i, o.wire)));
    }
    CHECK(batches == 3);
    // Aggregated: the same edges (block 0 is sampled by the trainer, never
    // SAMPLE_BLOCK on a typed partition), per-relation means beside the rows
    // (test_dist_typed_agg.cpp checks their numbers).
    o.aggregate = true;
    BlockInputProvider agg(remote->get(), &source, o, 2);
    LocalBatchProvider again(&source, 1);
    REQUIRE(agg.BeginEpoch(req).ok());
    REQUIRE(again.BeginEpoch(req).ok());
    for (MiniBatch a, b;;) {
      auto more_a = agg.Next(&a);
      auto more_b = again.Next(&b);
      REQUIRE(more_a.ok());
      REQUIRE(more_b.ok());
      REQUIRE(*more_a == *more_b);
      if (!*more_a) break;
      CHECK(a.input_nodes == b.input_nodes);
      CHECK(a.blocks[0].etypes == b.blocks[0].etypes);
      CHECK(a.features.shape == b.features.shape);
      REQUIRE(a.input_neigh_mean.shape.size() == 2);
      CHECK(a.input_neigh_mean.shape[1] == b.features.shape[1]);
    }
  }

  SECTION("a per-type array is read within its rows; SAMPLE_BLOCK refuses it") {
    const int movie = cfg->NodeTypeId(cfg->target);
    const std::string tensor = cfg->node_types[movie] + "/features";
    const int64_t rows = cfg->node_type_offsets[1][movie + 1] - cfg->node_type_offsets[1][movie];
    auto ask = [&](MsgType type, int32_t offset) {
      auto req = std::make_shared<PullBlockIds>();
      req->rows = {offset};
      Encoder e;
      if (type == MsgType::kPullBlock) EncodePullBlock(&e, tensor, WireDType::kFloat32, req);
      else {
        SampleSpec spec;
        spec.fanout = 3;
        spec.seed = 1;
        EncodeSampleBlock(&e, tensor, WireDType::kFloat32, spec, req);
      }
      return (*remote)->StartRequest(1, type, e.Finish())->Wait((*remote)->CallDeadline());
    };
    CHECK(ask(MsgType::kPullBlock, static_cast<int32_t>(rows - 1)).ok());
    auto past = ask(MsgType::kPullBlock, static_cast<int32_t>(rows));
    REQUIRE_FALSE(past.ok());
    CHECK(past.status().message().find("the rows of this partition") != std::string::npos);
    auto sampled = ask(MsgType::kSampleBlock, 0);
    REQUIRE_FALSE(sampled.ok());
    CHECK(sampled.status().message().find("needs a row per node") != std::string::npos);
    auto again = PullTypedNodeRows(remote->get(), "features", ids, WireDType::kFloat16);  // still serving
    CHECK(again.ok());
  }
}
