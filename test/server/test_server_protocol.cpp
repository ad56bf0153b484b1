// Malformed input against a live server: each bad frame gets an exact ERROR
// (or the connection closes for framing errors), and a second client is still
// served correctly afterwards; stored data is untouched.
#include <catch2/catch.hpp>

#include "common/base/version.h"
#include "common/net/codec.h"
#include "common/net/messages.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

const char kToken[] = "s3cret";

std::string Header(uint16_t type, uint64_t id, uint64_t len, uint32_t magic = kFrameMagic,
                   uint16_t version = kProtocolVersion) {
  FrameHeader h;
  h.magic = magic;
  h.version = version;
  h.type = type;
  h.request_id = id;
  h.payload_length = len;
  uint8_t b[kFrameHeaderSize];
  EncodeFrameHeader(h, b);
  return std::string(reinterpret_cast<char*>(b), kFrameHeaderSize);
}

std::string PullPayload(const std::string& name, std::vector<int64_t> ids) {
  Encoder e;
  EncodePull(&e, TensorKind::kNode, name, IdsArray(std::move(ids)));
  return e.Finish().Flatten();
}

// Reads one frame and checks it is an ERROR for `id` whose message contains `text`.
void ExpectError(RawClient& c, uint64_t id, const std::string& text) {
  FrameHeader h;
  std::string p;
  REQUIRE(c.ReadFrame(&h, &p));
  INFO("message: " << ErrorMessage(p));
  REQUIRE(h.type == uint16_t(MsgType::kError));
  CHECK(h.request_id == id);
  CHECK(ErrorMessage(p).find(text) != std::string::npos);
}

// A fresh, well-behaved client gets correct rows.
void ExpectStillServes(const TestGraph& tg, const ServerCluster& cluster) {
  auto client = ConnectClient(tg, cluster, FastClientOptions(), kToken);
  std::vector<int64_t> ids = {0, 5, tg.g.num_nodes - 1};
  auto rows = client->Pull("features", ids);
  REQUIRE(rows.ok());
  const int64_t f = tg.g.features.row_elems();
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t j = 0; j < f; ++j)
      REQUIRE(rows->as<float>()[i * f + j] == tg.g.features.as<float>()[ids[i] * f + j]);
}

}  // namespace

TEST_CASE("server answers every malformed frame exactly and keeps serving others", "[server][protocol]") {
  auto tg = MakeTestGraph(200, 1000, 4, 2, 11);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1, kToken, {"--max-frame-bytes", "100000"});
  const int port0 = cluster.port(0, 0);
  const int64_t owned_end = tg->config.node_map[1];

  {  // frame over the size limit: ERROR, then the connection is closed
    RawClient c(port0);
    c.Hello(kToken);
    c.SendBytes(Header(uint16_t(MsgType::kPull), 1, 200000));
    ExpectError(c, 0, "frame payload of 200000 bytes exceeds the limit of 100000 bytes");
    CHECK(c.WaitClosed());
    ExpectStillServes(*tg, cluster);
  }
  {  // wrong magic
    RawClient c(port0);
    c.SendBytes(Header(uint16_t(MsgType::kHello), 0, 0, 0x12345678));
    ExpectError(c, 0, "bad frame magic 0x12345678");
    CHECK(c.WaitClosed());
    ExpectStillServes(*tg, cluster);
  }
  {  // wrong protocol version in the frame header
    RawClient c(port0);
    c.SendBytes(Header(uint16_t(MsgType::kHello), 0, 0, kFrameMagic, kProtocolVersion + 1));
    ExpectError(c, 0, "protocol version " + std::to_string(kProtocolVersion + 1) + " not supported");
    CHECK(c.WaitClosed());
  }
  {  // wrong token, missing token: the token itself never travels
    RawClient c(port0);
    Hello h;
    h.role = "client";
    h.token = "guess";
    FrameHeader fh;
    std::string p;
    c.Handshake(h, &fh, &p);
    REQUIRE(fh.type == uint16_t(MsgType::kError));
    CHECK(ErrorMessage(p).find("wrong cluster token") != std::string::npos);
    CHECK(c.WaitClosed());
    RawClient c2(port0);
    h.token = "";
    c2.Handshake(h, &fh, &p);
    REQUIRE(fh.type == uint16_t(MsgType::kError));
    CHECK(ErrorMessage(p).find("requires a token") != std::string::npos);
    CHECK(c2.WaitClosed());
  }
  {  // HELLO with another protocol version, and another graph
    RawClient c(port0);
    Hello h;
    h.role = "client";
    h.token = kToken;
    h.version = kProtocolVersion + 1;
    FrameHeader fh;
    std::string p;
    c.Handshake(h, &fh, &p);
    REQUIRE(fh.type == uint16_t(MsgType::kError));
    CHECK(ErrorMessage(p).find("HELLO: protocol version " + std::to_string(kProtocolVersion + 1) + " not supported") !=
          std::string::npos);
    CHECK(ErrorMessage(p).find(std::string("distgnn ") + kDistgnnVersion + ", protocol " +
                               std::to_string(kProtocolVersion)) != std::string::npos);
    RawClient c2(port0);
    h.version = kProtocolVersion;
    h.graph_name = "other";
    c2.Handshake(h, &fh, &p);
    REQUIRE(fh.type == uint16_t(MsgType::kError));
    CHECK(ErrorMessage(p).find("graph 'other' requested but this serves 'random'") != std::string::npos);
  }
  {  // AUTH with a forged proof, and a request instead of AUTH
    RawClient c(port0);
    Hello h;
    h.role = "client";
    h.token = kToken;
    HandshakeDialer d(h);
    c.SendFrame(uint16_t(MsgType::kHello), 0, d.EncodeHello()->Flatten());
    FrameHeader fh;
    std::string p;
    REQUIRE(c.ReadFrame(&fh, &p));
    REQUIRE(fh.type == uint16_t(MsgType::kChallenge));
    c.SendFrame(uint16_t(MsgType::kAuth), 0, std::string(32, 'x'));
    ExpectError(c, 0, "wrong cluster token");
    CHECK(c.WaitClosed());
    RawClient c2(port0);
    HandshakeDialer d2(h);
    c2.SendFrame(uint16_t(MsgType::kHello), 0, d2.EncodeHello()->Flatten());
    REQUIRE(c2.ReadFrame(&fh, &p));
    c2.SendFrame(uint16_t(MsgType::kPull), 4, PullPayload("features", {1}));
    ExpectError(c2, 4, "expected AUTH after CHALLENGE, got PULL");
    CHECK(c2.WaitClosed());
  }
  {  // a request before HELLO
    RawClient c(port0);
    c.SendFrame(uint16_t(MsgType::kPull), 3, PullPayload("features", {1}));
    ExpectError(c, 3, "the first frame must be HELLO, got PULL");
    CHECK(c.WaitClosed());
  }
  {  // errors that keep the connection open; the same connection then works
    RawClient c(port0);
    c.Hello(kToken);
    c.SendFrame(99, 4, "");
    ExpectError(c, 4, "unknown message type 99");
    c.SendFrame(uint16_t(MsgType::kEpoch), 5, "");
    ExpectError(c, 5, "unexpected EPOCH sent to a graph server");

    std::string good = PullPayload("features", {1, 2});
    c.SendFrame(uint16_t(MsgType::kPull), 6, good.substr(0, good.size() - 5));
    ExpectError(c, 6, "truncated payload");
    c.SendFrame(uint16_t(MsgType::kPull), 7, good + "xx");
    ExpectError(c, 7, "2 unexpected trailing bytes");

    c.SendFrame(uint16_t(MsgType::kPull), 8, PullPayload("features", {1, owned_end + 3}));
    ExpectError(c, 8, "node id " + std::to_string(owned_end + 3) + " (at position 1) is not owned by partition 0, which owns [0, " +
                          std::to_string(owned_end) + ")");
    c.SendFrame(uint16_t(MsgType::kPull), 9, PullPayload("nope", {1}));
    ExpectError(c, 9, "unknown tensor 'nope'");

    // Ids array declared as float32: a type error inside the payload.
    Encoder e;
    e.U8(0);
    e.String("features");
    Array wrong = Array::Zeros(DType::kFloat32, {2});
    e.ArrayRef(wrong);
    c.SendFrame(uint16_t(MsgType::kPull), 10, e.Finish().Flatten());
    ExpectError(c, 10, "id array must be int64 with one dimension, got float32 [2]");

    // A shape whose byte count does not match.
    Encoder e2;
    e2.U8(0);
    e2.String("features");
    e2.U8(uint8_t(DType::kInt64));
    e2.U8(1);
    e2.I64(1000000000000LL);
    e2.U64(16);
    for (int i = 0; i < 3; ++i) e2.U64(0);  // padding and the 16 "data" bytes
    c.SendFrame(uint16_t(MsgType::kPull), 11, e2.Finish().Flatten());
    ExpectError(c, 11, "array byte count 16 does not match shape [1000000000000] of int64");

    // Still fine on this connection.
    c.SendFrame(uint16_t(MsgType::kPull), 12, PullPayload("labels", {1, 2}));
    FrameHeader h;
    std::string p;
    REQUIRE(c.ReadFrame(&h, &p));
    CHECK(h.type == uint16_t(MsgType::kPull));
    CHECK(h.is_response());
    CHECK(h.request_id == 12);
  }
  {  // PUSH errors leave the stored tensor untouched
    auto client = ConnectClient(*tg, cluster, FastClientOptions(), kToken);
    InitTensorSpec spec;
    spec.name = "emb";
    spec.shape = {tg->g.num_nodes, 4};
    spec.init = Initializer::kUniform;
    spec.seed = 3;
    spec.a = -1;
    spec.b = 1;
    REQUIRE(client->InitTensor(spec).ok());
    std::vector<int64_t> ids = {0, 1, 2};
    auto before = client->Pull("emb", ids);
    REQUIRE(before.ok());

    Array bad = Array::Zeros(DType::kFloat64, {3, 4});
    Status st = client->Push("emb", ids, bad);
    CHECK(st.code() == Status::Code::kInvalidArgument);
    CHECK(st.message().find("rows are float64 [3, 4] but the tensor needs float32 [3, 4]") != std::string::npos);
    Array bad_shape = Array::Zeros(DType::kFloat32, {3, 5});
    st = client->Push("emb", ids, bad_shape);
    CHECK(st.message().find("rows are float32 [3, 5] but the tensor needs float32 [3, 4]") != std::string::npos);
    // A raw PUSH with one id out of range and otherwise valid rows: nothing is written.
    RawClient c(port0);
    c.Hello(kToken);
    Encoder e;
    Array ones = Array::Zeros(DType::kFloat32, {2, 4});
    for (int i = 0; i < 8; ++i) ones.as<float>()[i] = 1;
    EncodePush(&e, "emb", PushMode::kOverwrite, IdsArray({0, owned_end}), ones);
    c.SendFrame(uint16_t(MsgType::kPush), 20, e.Finish().Flatten());
    ExpectError(c, 20, "PUSH 'emb': node id " + std::to_string(owned_end) + " (at position 1) is not owned");
    Encoder e3;
    EncodePush(&e3, "features", PushMode::kOverwrite, IdsArray({0, 1}), ones);
    c.SendFrame(uint16_t(MsgType::kPush), 21, e3.Finish().Flatten());
    ExpectError(c, 21, "PUSH 'features': tensor is read-only partition data");

    auto after = client->Pull("emb", ids);
    REQUIRE(after.ok());
    CHECK(std::memcmp(before->data, after->data, before->nbytes()) == 0);
  }
  ExpectStillServes(*tg, cluster);
  // One log line per bad request, and the servers are still up.
  std::string logs = cluster.logs();
  CHECK(logs.find("unknown message type 99") != std::string::npos);
  CHECK(logs.find("wrong cluster token") != std::string::npos);
  CHECK(cluster.proc(0, 0).running());
  CHECK(cluster.proc(1, 0).running());
}

TEST_CASE("samplers only read: writes from a sampler are refused naming role and message", "[server][protocol]") {
  auto tg = MakeTestGraph(200, 1000, 4, 1, 12);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken);
  auto sampler = ConnectClient(*tg, cluster, FastClientOptions(), kToken, "sampler");
  InitTensorSpec spec;
  spec.name = "emb";
  spec.shape = {tg->g.num_nodes, 4};
  Status st = sampler->InitTensor(spec);
  CHECK(st.code() == Status::Code::kInvalidArgument);
  CHECK(st.message().find("sampler 0 may not send INIT_TENSOR (samplers only read") != std::string::npos);
  // Reads work.
  auto rows = sampler->Pull("features", std::vector<int64_t>{1, 2});
  CHECK(rows.ok());
  auto s = sampler->SampleNeighbors(std::vector<int64_t>{1, 2}, Hop(3, false, 1));
  CHECK(s.ok());
  // A trainer may write.
  auto trainer = ConnectClient(*tg, cluster, FastClientOptions(), kToken, "trainer");
  CHECK(trainer->InitTensor(spec).ok());
  Array zeros = Array::Zeros(DType::kFloat32, {1, 4});
  st = sampler->Push("emb", std::vector<int64_t>{1}, zeros);
  CHECK(st.message().find("sampler 0 may not send PUSH") != std::string::npos);
}
