// The sampler <-> trainer payloads (common/minibatch_codec.*): EPOCH, CREDIT and
// MINIBATCH survive a round trip field for field; truncated, padded and
// structurally inconsistent frames are refused with an error, never accepted.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "common/sampling/minibatch_codec.h"
#include "common/net/protocol.h"

using namespace dg;

namespace {

Frame MakeFrame(MsgType type, const std::string& bytes) {
  auto holder = std::make_shared<std::string>(bytes);
  Frame f;
  f.header.type = static_cast<uint16_t>(type);
  f.header.payload_length = holder->size();
  f.holder = holder;
  f.data = reinterpret_cast<const uint8_t*>(holder->data());
  f.size = holder->size();
  return f;
}

Block MakeBlock(int64_t num_src, const std::vector<std::vector<int64_t>>& in_edges) {
  Block b;
  b.num_src = num_src;
  b.num_dst = static_cast<int64_t>(in_edges.size());
  b.indptr.push_back(0);
  for (const auto& s : in_edges) {
    b.indices.insert(b.indices.end(), s.begin(), s.end());
    b.indptr.push_back(static_cast<int64_t>(b.indices.size()));
  }
  return b;
}

// A consistent 2-layer batch: 5 input nodes -> 3 -> 2 seeds, features [5, 3], labels [2].
MiniBatch SampleBatch() {
  MiniBatch mb;
  mb.epoch = 7;
  mb.batch_index = 3;
  mb.seeds = {40, 12};
  mb.blocks = {MakeBlock(5, {{1, 3, 4}, {0}, {}}), MakeBlock(3, {{2, 1}, {0, 0}})};
  mb.input_nodes = {40, 12, 9, 77, 5};
  mb.features = Array::Zeros(DType::kFloat32, {5, 3});
  for (int i = 0; i < 15; ++i) mb.features.as<float>()[i] = 0.5f * i - 3;
  mb.labels = Array::Zeros(DType::kInt64, {2});
  mb.labels.as<int64_t>()[0] = 6;
  mb.labels.as<int64_t>()[1] = 1;
  mb.sample_seconds = 0.25;
  mb.gather_seconds = 0.125;
  return mb;
}

std::string Bytes(const BufferList& b) { return b.Flatten(); }

Status DecodeBatchBytes(const std::string& bytes, MiniBatch* out) {
  return DecodeMiniBatch(MakeFrame(MsgType::kMinibatch, bytes), out);
}

void CheckSame(const Array& a, const Array& b) {
  REQUIRE(a.dtype == b.dtype);
  REQUIRE(a.shape == b.shape);
  CHECK(std::memcmp(a.data, b.data, a.nbytes()) == 0);
}

}  // namespace

TEST_CASE("EPOCH and CREDIT round-trip every field", "[codec][minibatch]") {
  EpochRequest r;
  r.epoch = 12;
  r.seeds = {5, 0, 99, 5, 1LL << 40};
  r.batch_size = 3;
  r.shuffle = false;
  r.fanouts = {10, -1, 25};
  r.replace = true;
  r.labels = false;
  r.job_seed = 0xFEEDFACECAFEBEEFull;
  r.batch_offset = 2;
  r.batch_stride = 5;
  const std::string bytes = Bytes(EncodeEpoch(r, 9));
  EpochRequest got;
  uint32_t credits = 0;
  REQUIRE(DecodeEpoch(MakeFrame(MsgType::kEpoch, bytes), &got, &credits).ok());
  CHECK(got.epoch == r.epoch);
  CHECK(got.seeds == r.seeds);
  CHECK(got.batch_size == r.batch_size);
  CHECK(got.shuffle == r.shuffle);
  CHECK(got.fanouts == r.fanouts);
  CHECK(got.replace == r.replace);
  CHECK(got.labels == r.labels);
  CHECK(got.job_seed == r.job_seed);
  CHECK(got.batch_offset == r.batch_offset);
  CHECK(got.batch_stride == r.batch_stride);
  CHECK(credits == 9);

  // Every truncation and a trailing byte are errors.
  for (size_t n = 0; n < bytes.size(); ++n) {
    INFO("EPOCH cut to " << n << " bytes");
    CHECK_FALSE(DecodeEpoch(MakeFrame(MsgType::kEpoch, bytes.substr(0, n)), &got, &credits).ok());
  }
  CHECK_FALSE(DecodeEpoch(MakeFrame(MsgType::kEpoch, bytes + "x"), &got, &credits).ok());
  // 65 layers are refused.
  EpochRequest deep = r;
  deep.fanouts.assign(65, 2);
  Status st = DecodeEpoch(MakeFrame(MsgType::kEpoch, Bytes(EncodeEpoch(deep, 1))), &got, &credits);
  CHECK(st.message().find("65 layers") != std::string::npos);

  auto c = DecodeCredit(MakeFrame(MsgType::kCredit, Bytes(EncodeCredit(4000000000u))));
  REQUIRE(c.ok());
  CHECK(*c == 4000000000u);
  CHECK_FALSE(DecodeCredit(MakeFrame(MsgType::kCredit, "abc")).ok());
  CHECK_FALSE(DecodeCredit(MakeFrame(MsgType::kCredit, "abcde")).ok());
}

TEST_CASE("MINIBATCH round-trips every field, with and without features and labels", "[codec][minibatch]") {
  const MiniBatch mb = SampleBatch();
  MiniBatch got;
  REQUIRE(DecodeBatchBytes(Bytes(EncodeMiniBatch(mb)), &got).ok());
  CHECK(got.epoch == mb.epoch);
  CHECK(got.batch_index == mb.batch_index);
  CHECK(got.seeds == mb.seeds);
  REQUIRE(got.blocks.size() == 2);
  for (size_t l = 0; l < 2; ++l) {
    CHECK(got.blocks[l].num_dst == mb.blocks[l].num_dst);
    CHECK(got.blocks[l].num_src == mb.blocks[l].num_src);
    CHECK(got.blocks[l].indptr == mb.blocks[l].indptr);
    CHECK(got.blocks[l].indices == mb.blocks[l].indices);
    // Decoded without a copy: the blocks view the received payload.
    CHECK(got.blocks[l].indptr.is_view());
    CHECK(got.blocks[l].indices.is_view());
  }
  CHECK(got.input_nodes == mb.input_nodes);
  CheckSame(got.features, mb.features);
  CheckSame(got.labels, mb.labels);
  CHECK(got.sample_seconds == mb.sample_seconds);
  CHECK(got.gather_seconds == mb.gather_seconds);

  MiniBatch bare = mb;  // a featureless job (embedding only) at evaluation: neither array
  bare.features = Array();
  bare.labels = Array();
  REQUIRE(DecodeBatchBytes(Bytes(EncodeMiniBatch(bare)), &got).ok());
  CHECK(got.features.data == nullptr);
  CHECK(got.features.shape.empty());
  CHECK(got.labels.data == nullptr);
  CHECK(got.input_nodes == mb.input_nodes);
}

// SampleBatch with the types of a typed graph: 4 + 4 edges, 5 input nodes.
MiniBatch TypedSampleBatch() {
  MiniBatch mb = SampleBatch();
  mb.blocks[0].etypes = {0, 2, 1, 5};
  mb.blocks[1].etypes = {3, 3, 0, 254};
  mb.input_ntypes = {0, 0, 1, 2, 1};
  return mb;
}

TEST_CASE("typed MINIBATCH carries edge and node types and untyped ones carry none", "[codec][minibatch][typed]") {
  const MiniBatch mb = TypedSampleBatch();
  MiniBatch got;
  REQUIRE(DecodeBatchBytes(Bytes(EncodeMiniBatch(mb)), &got).ok());
  REQUIRE(got.blocks.size() == 2);
  CHECK(got.blocks[0].etypes == mb.blocks[0].etypes);
  CHECK(got.blocks[1].etypes == mb.blocks[1].etypes);
  CHECK(got.input_ntypes == mb.input_ntypes);
  CHECK(got.input_nodes == mb.input_nodes);
  CheckSame(got.features, mb.features);
  // Untyped: one byte more than before the types existed, and no types decoded.
  REQUIRE(DecodeBatchBytes(Bytes(EncodeMiniBatch(SampleBatch())), &got).ok());
  CHECK(got.blocks[0].etypes.empty());
  CHECK(got.input_ntypes.empty());
  // A typed batch whose types do not match its edges or input nodes is refused.
  auto refused = [&](MiniBatch bad, const std::string& text) {
    Status st = DecodeBatchBytes(Bytes(EncodeMiniBatch(bad)), &got);
    INFO(st.ToString());
    CHECK(st.code() == Status::Code::kProtocol);
    CHECK(st.message().find(text) != std::string::npos);
  };
  MiniBatch bad = TypedSampleBatch();
  bad.blocks[1].etypes.pop_back();
  refused(bad, "3 edge types for 4 edges");
  bad = TypedSampleBatch();
  bad.input_ntypes.pop_back();
  refused(bad, "4 node types for 5 input nodes");
  bad = TypedSampleBatch();
  bad.input_ntypes[2] = -3;
  refused(bad, "node type -3");
  const std::string good = Bytes(EncodeMiniBatch(TypedSampleBatch()));
  for (size_t n = 0; n < good.size(); ++n) {
    INFO("cut to " << n << " of " << good.size() << " bytes");
    CHECK_FALSE(DecodeBatchBytes(good.substr(0, n), &got).ok());
  }
}

TEST_CASE("truncated, padded and inconsistent MINIBATCH frames are refused", "[codec][minibatch]") {
  const std::string good = Bytes(EncodeMiniBatch(SampleBatch()));
  MiniBatch got;
  for (size_t n = 0; n < good.size(); ++n) {
    INFO("cut to " << n << " of " << good.size() << " bytes");
    CHECK_FALSE(DecodeBatchBytes(good.substr(0, n), &got).ok());
  }
  CHECK_FALSE(DecodeBatchBytes(good + std::string(1, '\0'), &got).ok());

  auto refused = [&](MiniBatch mb, const std::string& what) {
    Status st = DecodeBatchBytes(Bytes(EncodeMiniBatch(mb)), &got);
    INFO(what << ": " << st.ToString());
    CHECK(st.code() == Status::Code::kProtocol);
    CHECK(st.message().find("MINIBATCH") != std::string::npos);
  };
  MiniBatch mb = SampleBatch();
  mb.blocks[0].indices[1] = 5;  // source 5 of 5
  refused(mb, "source index out of range");
  mb = SampleBatch();
  mb.blocks[0].indices[0] = -1;
  refused(mb, "negative source index");
  mb = SampleBatch();
  mb.blocks[1].indptr = {0, 2, 3};  // ends before the 4 edges
  refused(mb, "indptr does not end at the edge count");
  mb = SampleBatch();
  mb.blocks[1].indptr = {1, 2, 4};
  refused(mb, "indptr does not start at 0");
  mb = SampleBatch();
  mb.blocks[1].indptr = {0, 4};
  refused(mb, "indptr length is not num_dst + 1");
  mb = SampleBatch();
  mb.blocks[0].num_src = 2;  // fewer sources than destinations
  mb.blocks[0].indices = {1, 1, 1, 0};
  refused(mb, "num_src < num_dst");
  mb = SampleBatch();
  mb.seeds.push_back(3);
  refused(mb, "last block's destinations are not the seeds");
  mb = SampleBatch();
  mb.input_nodes.pop_back();
  refused(mb, "first block's sources are not the input nodes");
  mb = SampleBatch();
  mb.blocks[1] = MakeBlock(4, {{2, 3}, {0, 0}});  // block 1 reads 4 sources, block 0 makes 3
  refused(mb, "block 1's sources are not block 0's destinations");
  mb = SampleBatch();
  mb.features = Array::Zeros(DType::kFloat32, {4, 3});
  refused(mb, "feature rows are not one per input node");
  mb = SampleBatch();
  mb.labels = Array::Zeros(DType::kInt64, {3});
  refused(mb, "label rows are not one per seed");

  // More than 64 blocks.
  mb = SampleBatch();
  Block id = MakeBlock(2, {{0}, {1}});
  mb.blocks.assign(65, id);
  mb.seeds = {1, 2};
  mb.input_nodes = {1, 2};
  mb.features = Array::Zeros(DType::kFloat32, {2, 3});
  Status st = DecodeBatchBytes(Bytes(EncodeMiniBatch(mb)), &got);
  CHECK(st.message().find("65 blocks") != std::string::npos);
}

TEST_CASE("link prediction: EPOCH carries the link flag, MINIBATCH link pairs round-trip and are checked",
          "[codec][minibatch][link]") {
  EpochRequest r;
  r.seeds = {3, 1, 2};
  r.fanouts = {5};
  r.link = true;
  EpochRequest got;
  uint32_t credits = 0;
  REQUIRE(DecodeEpoch(MakeFrame(MsgType::kEpoch, Bytes(EncodeEpoch(r, 2))), &got, &credits).ok());
  CHECK(got.link);
  r.link = false;
  REQUIRE(DecodeEpoch(MakeFrame(MsgType::kEpoch, Bytes(EncodeEpoch(r, 2))), &got, &credits).ok());
  CHECK_FALSE(got.link);
  // Link pairs: int64 [R, 3] (source position, destination position, target).
  MiniBatch mb = SampleBatch();
  mb.labels = Array::Zeros(DType::kInt64, {3, 3});
  const int64_t rows[9] = {0, 1, 1, 0, 0, 0, 1, 0, 0};
  std::copy(rows, rows + 9, mb.labels.as<int64_t>());
  MiniBatch back;
  REQUIRE(DecodeBatchBytes(Bytes(EncodeMiniBatch(mb)), &back).ok());
  CheckSame(back.labels, mb.labels);
  for (auto [at, value] : {std::pair<int, int64_t>{0, 2}, {4, -1}, {5, 2}}) {  // position 2 of 2 seeds; target 2
    MiniBatch bad = mb;
    bad.labels = Array::Zeros(DType::kInt64, {3, 3});
    std::copy(rows, rows + 9, bad.labels.as<int64_t>());
    bad.labels.as<int64_t>()[at] = value;
    Status st = DecodeBatchBytes(Bytes(EncodeMiniBatch(bad)), &back);
    INFO(at << " = " << value);
    REQUIRE_FALSE(st.ok());
    CHECK(st.message().find("link pair") != std::string::npos);
  }
}

namespace {

// A batch as the block-input path makes it with block 0 aggregated (common/
// client/block_input.h): block 0 holds sampled degrees (3 destinations, each
// edge pointing at its destination), features and input_neigh_mean are
// float32 [3, 4] rows of those destinations.
MiniBatch AggregatedBatch() {
  MiniBatch mb;
  mb.epoch = 2;
  mb.batch_index = 5;
  mb.seeds = {40, 12};
  mb.blocks = {MakeBlock(3, {{0, 0}, {1}, {}}), MakeBlock(3, {{2, 1}, {0}})};
  mb.input_nodes = {40, 12, 9};
  mb.features = Array::Zeros(DType::kFloat32, {3, 4});
  mb.input_neigh_mean = Array::Zeros(DType::kFloat32, {3, 4});
  for (int i = 0; i < 12; ++i) {
    mb.features.as<float>()[i] = 0.1f * i - 0.77f;  // not exact in 16 bits
    mb.input_neigh_mean.as<float>()[i] = 1.0f / (i + 3) + 70000.0f * (i == 11);  // float16 overflows to inf
  }
  mb.labels = Array::Zeros(DType::kInt64, {2});
  return mb;
}

// `a` as a receiver of it as wire rows of type t reads it.
Array Rounded(const Array& a, WireDType t) {
  Array r = Array::Zeros(a.dtype, a.shape);
  std::memcpy(r.data, a.data, a.nbytes());
  RoundLikeWire(t, r.as<float>(), r.numel());
  return r;
}

}  // namespace

TEST_CASE("MINIBATCH carries an aggregated block 0 and 16-bit rows, which decode to float32 as the wire rounds them",
          "[codec][minibatch][wire]") {
  const MiniBatch mb = AggregatedBatch();
  size_t f32_bytes = 0;
  for (WireDType t : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16}) {
    INFO(WireDTypeName(t));
    const std::string bytes = Bytes(EncodeMiniBatch(mb, t));
    if (t == WireDType::kFloat32) f32_bytes = bytes.size();
    // 2 bytes less per value, 18 more of header per array, up to 7 of alignment either way.
    else CHECK(std::abs(static_cast<long>(f32_bytes - bytes.size()) - (2 * 12 * 2 - 2 * 18)) <= 2 * 7);
    MiniBatch got;
    REQUIRE(DecodeBatchBytes(bytes, &got).ok());
    CHECK(got.input_nodes == mb.input_nodes);
    CHECK(got.blocks[0].indptr == mb.blocks[0].indptr);
    CheckSame(got.features, Rounded(mb.features, t));
    CheckSame(got.input_neigh_mean, Rounded(mb.input_neigh_mean, t));
    CheckSame(got.labels, mb.labels);
    if (t != WireDType::kFloat32) CHECK(got.features.as<float>()[1] != mb.features.as<float>()[1]);
    if (t == WireDType::kFloat16) CHECK(std::isinf(got.input_neigh_mean.as<float>()[11]));
    // Every truncation is refused.
    for (size_t n = 0; n < bytes.size(); n += 7) {
      INFO("cut to " << n << " bytes");
      CHECK_FALSE(DecodeBatchBytes(bytes.substr(0, n), &got).ok());
    }
  }
  // An int64 array is never narrowed: labels stay as they are.
  MiniBatch got;
  REQUIRE(DecodeBatchBytes(Bytes(EncodeMiniBatch(mb, WireDType::kFloat16)), &got).ok());
  CHECK(got.labels.dtype == DType::kInt64);

  // The mean must match block 0's destinations and the feature rows.
  MiniBatch bad = mb;
  bad.input_neigh_mean = Array::Zeros(DType::kFloat32, {2, 4});
  Status st = DecodeBatchBytes(Bytes(EncodeMiniBatch(bad, WireDType::kFloat16)), &got);
  CHECK(st.message().find("aggregated block 0 of 3 destinations") != std::string::npos);
  bad = mb;
  bad.features = Array::Zeros(DType::kFloat32, {3, 5});
  CHECK_FALSE(DecodeBatchBytes(Bytes(EncodeMiniBatch(bad)), &got).ok());
  // Without a mean, feature rows are one per input node, as before.
  bad = mb;
  bad.input_neigh_mean = Array();
  bad.features = Array::Zeros(DType::kFloat32, {2, 4});
  CHECK_FALSE(DecodeBatchBytes(Bytes(EncodeMiniBatch(bad, WireDType::kBFloat16)), &got).ok());

  // An unknown rows form or wire dtype code is refused.
  std::string bytes = Bytes(EncodeMiniBatch(mb, WireDType::kFloat16));
  const std::string f32 = Bytes(EncodeMiniBatch(mb));
  size_t at = 0;  // the first byte where the encodings differ: the features' form
  while (bytes[at] == f32[at]) ++at;
  REQUIRE(bytes[at] == 2);
  std::string corrupt = bytes;
  corrupt[at] = 3;
  CHECK_FALSE(DecodeBatchBytes(corrupt, &got).ok());
  corrupt = bytes;
  corrupt[at + 1] = 7;
  st = DecodeBatchBytes(corrupt, &got);
  CHECK(st.message().find("wire dtype code 7") != std::string::npos);
}

TEST_CASE("EPOCH carries the input path (aggregation, wire dtype)", "[codec][minibatch][wire]") {
  EpochRequest r;
  r.seeds = {1, 2};
  r.fanouts = {5, 5};
  EpochRequest got;
  uint32_t credits = 0;
  BatchInput in;
  REQUIRE(DecodeEpoch(MakeFrame(MsgType::kEpoch, Bytes(EncodeEpoch(r, 3))), &got, &credits, &in).ok());
  CHECK_FALSE(in.aggregate);
  CHECK(in.wire == WireDType::kFloat32);
  CHECK_FALSE(in.pulls_blocks());
  for (BatchInput sent : {BatchInput{true, WireDType::kFloat32}, BatchInput{false, WireDType::kBFloat16},
                          BatchInput{true, WireDType::kFloat16}}) {
    const std::string bytes = Bytes(EncodeEpoch(r, 3, sent));
    REQUIRE(DecodeEpoch(MakeFrame(MsgType::kEpoch, bytes), &got, &credits, &in).ok());
    CHECK(in.aggregate == sent.aggregate);
    CHECK(in.wire == sent.wire);
    CHECK(in.pulls_blocks());
    std::string corrupt = bytes;
    corrupt.back() = 3;  // the wire dtype is the last byte
    Status st = DecodeEpoch(MakeFrame(MsgType::kEpoch, corrupt), &got, &credits, &in);
    CHECK(st.message().find("wire dtype code 3") != std::string::npos);
  }
}
