// Hostile sizes against a live server: every size from the wire is
// bounded before anything is allocated or looped over. Each request below once
// crashed or stalled a server; now each gets an exact ERROR and the server
// keeps answering a fresh client correctly.
#include <catch2/catch.hpp>

#include "common/net/codec.h"
#include "common/net/messages.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

const char kToken[] = "limits-token";

// Reads one frame: an ERROR for `id` whose message contains `text` (and `code`).
void ExpectError(RawClient& c, uint64_t id, const std::string& text, Status::Code code) {
  FrameHeader h;
  std::string p;
  REQUIRE(c.ReadFrame(&h, &p, 30));
  INFO("message: " << ErrorMessage(p));
  REQUIRE(h.type == uint16_t(MsgType::kError));
  CHECK(h.request_id == id);
  CHECK(ErrorMessage(p).find(text) != std::string::npos);
  CHECK(static_cast<Status::Code>(uint8_t(p.at(0))) == code);
}

void ExpectStillServes(const TestGraph& tg, const ServerCluster& cluster) {
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

std::string InitPayload(const std::string& name, std::vector<int64_t> shape, Initializer init = Initializer::kZeros) {
  InitTensorSpec s;
  s.name = name;
  s.shape = std::move(shape);
  s.init = init;
  Encoder e;
  EncodeInitTensor(&e, s);
  return e.Finish().Flatten();
}

std::string SamplePayload(std::vector<int64_t> seeds, int64_t fanout, bool replace) {
  Encoder e;
  EncodeSample(&e, IdsArray(std::move(seeds)), Hop(fanout, replace, 1));
  return e.Finish().Flatten();
}

}  // namespace

TEST_CASE("huge INIT_TENSOR shapes get ResourceExhausted, never an abort", "[server][limits]") {
  auto tg = MakeTestGraph(300, 2000, 4, 1, 121);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken, {"--mutable-tensor-bytes", "1000000"});
  RawClient c(cluster.port(0, 0));
  c.Hello(kToken);
  const int64_t n = tg->g.num_nodes;
  // The crash: [num_nodes, 2^40] float32.
  c.SendFrame(uint16_t(MsgType::kInitTensor), 1, InitPayload("big", {n, int64_t(1) << 40}));
  ExpectError(c, 1, "INIT_TENSOR 'big'", Status::Code::kResourceExhausted);
  // Extreme int64s whose product overflows.
  c.SendFrame(uint16_t(MsgType::kInitTensor), 2, InitPayload("ovf", {n, INT64_MAX, INT64_MAX}));
  ExpectError(c, 2, "INIT_TENSOR 'ovf': dimension 9223372036854775807", Status::Code::kInvalidArgument);
  c.SendFrame(uint16_t(MsgType::kInitTensor), 3, InitPayload("ovf2", {n, int64_t(1) << 62, 4, 0}));
  ExpectError(c, 3, "INIT_TENSOR 'ovf2': dimension 4611686018427387904", Status::Code::kInvalidArgument);
  // Within the budget: fine; the next one would exceed the per-server budget.
  c.SendFrame(uint16_t(MsgType::kInitTensor), 4, InitPayload("a", {n, 500}));  // 600 KB
  FrameHeader h;
  std::string p;
  REQUIRE(c.ReadFrame(&h, &p));
  INFO(ErrorMessage(p));
  REQUIRE(h.type == uint16_t(MsgType::kInitTensor));
  c.SendFrame(uint16_t(MsgType::kInitTensor), 5, InitPayload("b", {n, 500}));
  ExpectError(c, 5, "mutable tensors would use", Status::Code::kResourceExhausted);
  REQUIRE(cluster.proc(0, 0).running());
  ExpectStillServes(*tg, cluster);
}

TEST_CASE("SAMPLE_NEIGHBORS with a huge fanout is refused before the work", "[server][limits]") {
  auto tg = MakeTestGraph(2000, 20000, 4, 1, 122);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken);
  RawClient c(cluster.port(0, 0));
  c.Hello(kToken);
  std::vector<int64_t> seeds(1000);
  for (int i = 0; i < 1000; ++i) seeds[i] = i;
  // The stall: replace, fanout 2^62, 1000 seeds.
  c.SendFrame(uint16_t(MsgType::kSampleNeighbors), 1, SamplePayload(seeds, int64_t(1) << 62, true));
  ExpectError(c, 1, "fanout", Status::Code::kResourceExhausted);
  // A fanout within the limit whose answer exceeds the frame limit.
  c.SendFrame(uint16_t(MsgType::kSampleNeighbors), 2, SamplePayload(seeds, 1000000, true));
  ExpectError(c, 2, "over the frame limit", Status::Code::kResourceExhausted);
  // Without replacement a huge fanout means "all neighbours": allowed, bounded by the degrees.
  c.SendFrame(uint16_t(MsgType::kSampleNeighbors), 3, SamplePayload(seeds, int64_t(1) << 62, false));
  FrameHeader h;
  std::string p;
  REQUIRE(c.ReadFrame(&h, &p, 30));
  INFO(ErrorMessage(p));
  CHECK(h.type == uint16_t(MsgType::kSampleNeighbors));
  REQUIRE(cluster.proc(0, 0).running());
  ExpectStillServes(*tg, cluster);
}

TEST_CASE("responses over the frame limit, and unbounded parking, get exact errors", "[server][limits]") {
  auto tg = MakeTestGraph(3000, 20000, 64, 1, 123);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken, {"--max-frame-bytes", "100000"});
  RawClient c(cluster.port(0, 0));
  c.Hello(kToken);
  // 1000 rows of 64 float32 = 256000 bytes > 100000: refused before gathering.
  std::vector<int64_t> ids(1000, 7);
  Encoder e;
  EncodePull(&e, TensorKind::kNode, "features", IdsArray(ids));
  c.SendFrame(uint16_t(MsgType::kPull), 1, e.Finish().Flatten());
  ExpectError(c, 1, "over the frame limit of 100000 bytes", Status::Code::kResourceExhausted);
  // A BARRIER name longer than allowed, and too many participants.
  Encoder b;
  EncodeBarrier(&b, BarrierRequest{std::string(5000, 'x'), 2});
  c.SendFrame(uint16_t(MsgType::kBarrier), 2, b.Finish().Flatten());
  ExpectError(c, 2, "name of 5000 bytes", Status::Code::kInvalidArgument);
  Encoder b2;
  EncodeBarrier(&b2, BarrierRequest{"x", 100000000});
  c.SendFrame(uint16_t(MsgType::kBarrier), 3, b2.Finish().Flatten());
  ExpectError(c, 3, "participants", Status::Code::kInvalidArgument);
  REQUIRE(cluster.proc(0, 0).running());
  ExpectStillServes(*tg, cluster);
}

TEST_CASE("connections beyond limits.max_connections are refused with an ERROR", "[server][limits]") {
  auto tg = MakeTestGraph(300, 2000, 4, 1, 124);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken, {"--max-connections", "2"});
  RawClient a(cluster.port(0, 0)), b(cluster.port(0, 0));
  a.Hello(kToken);
  b.Hello(kToken);
  RawClient c(cluster.port(0, 0));
  FrameHeader h;
  std::string p;
  REQUIRE(c.ReadFrame(&h, &p));
  CHECK(h.type == uint16_t(MsgType::kError));
  CHECK(ErrorMessage(p).find("2 connections open (limits.max_connections)") != std::string::npos);
  CHECK(c.WaitClosed());
}

TEST_CASE("tensor names longer than 1024 bytes are refused", "[server][limits]") {
  auto tg = MakeTestGraph(300, 2000, 4, 1, 125);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken);
  RawClient c(cluster.port(0, 0));
  c.Hello(kToken);
  Encoder e;
  EncodePull(&e, TensorKind::kNode, std::string(100000, 'n'), IdsArray({1}));
  c.SendFrame(uint16_t(MsgType::kPull), 1, e.Finish().Flatten());
  ExpectError(c, 1, "PULL: tensor name of 100000 bytes (at most 1024)", Status::Code::kInvalidArgument);
  ExpectStillServes(*tg, cluster);
}
