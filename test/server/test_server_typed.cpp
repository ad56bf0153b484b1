// SAMPLE_NEIGHBORS with a fanout per edge type against real servers of a typed
// partition: counts per type, every edge a real in-edge of its type,
// determinism, a type's draw independent of the others' fanouts, and clear
// errors (untyped partition, too few fanouts, too many types) after which the
// server keeps serving.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/io/npy.h"
#include "common/net/codec.h"
#include "common/net/messages.h"
#include "common/storage/neighbor_sampling.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

struct TypedReply {
  std::vector<int64_t> counts, src, eids;
  std::vector<uint8_t> etypes;
};

std::string TypedSamplePayload(const std::vector<int64_t>& seeds, const std::vector<int>& fanouts, uint64_t seed) {
  Encoder e;
  SampleSpec spec = Hop(-1, false, seed);
  spec.etype_fanouts = fanouts;
  EncodeSample(&e, IdsView(seeds.data(), seeds.size()), spec);
  return e.Finish().Flatten();
}

TypedReply Call(RawClient& c, uint64_t id, const std::string& payload) {
  c.SendFrame(uint16_t(MsgType::kSampleNeighbors), id, payload);
  FrameHeader h;
  std::string p;
  REQUIRE(c.ReadFrame(&h, &p, 30));
  INFO("message: " << ErrorMessage(p));
  REQUIRE(h.type == uint16_t(MsgType::kSampleNeighbors));
  Decoder d(p.data(), p.size(), nullptr, "SAMPLE_NEIGHBORS reply");
  TypedReply r;
  Array counts = d.Ids(), src = d.Ids(), eids = d.Ids();
  Array etypes = d.ArrayView();
  REQUIRE(d.Finish().ok());
  REQUIRE(etypes.dtype == DType::kUInt8);
  r.counts.assign(counts.as<int64_t>(), counts.as<int64_t>() + counts.numel());
  r.src.assign(src.as<int64_t>(), src.as<int64_t>() + src.numel());
  r.eids.assign(eids.as<int64_t>(), eids.as<int64_t>() + eids.numel());
  r.etypes.assign(etypes.as<uint8_t>(), etypes.as<uint8_t>() + etypes.numel());
  REQUIRE(r.src.size() == r.etypes.size());
  REQUIRE(r.src.size() == r.eids.size());
  return r;
}

void ExpectError(RawClient& c, uint64_t id, const std::string& text) {
  FrameHeader h;
  std::string p;
  REQUIRE(c.ReadFrame(&h, &p, 30));
  INFO("message: " << ErrorMessage(p));
  REQUIRE(h.type == uint16_t(MsgType::kError));
  CHECK(h.request_id == id);
  CHECK(ErrorMessage(p).find(text) != std::string::npos);
}

}  // namespace

TEST_CASE("typed SAMPLE_NEIGHBORS draws each edge type's fanout from its own in-edges", "[server][typed]") {
  SyntheticGraph g = MakeRandomGraph(600, 9000, 4, 77);
  Rng rng(5);
  for (size_t e = 0; e < g.src.size(); ++e) g.edge_types.push_back(static_cast<uint8_t>(rng.Uniform(3)));
  TempDir dir;
  auto json = WriteContiguousPartition(g, 2, dir.path());
  REQUIRE(json.ok());
  auto orig = NpyLoad(dir.path() + "/orig_eids.npy");
  REQUIRE(orig.ok());
  const int64_t* orig_eid = orig->as<int64_t>();
  // (dst, type) -> input edge indices.
  std::map<std::pair<int64_t, int>, std::set<int64_t>> ref;
  for (size_t e = 0; e < g.src.size(); ++e) ref[{g.dst[e], g.edge_types[e]}].insert(static_cast<int64_t>(e));
  ServerCluster cluster;
  cluster.Start(*json, 2, 1);
  const std::vector<int> fanouts{3, -1, 0};
  for (int part = 0; part < 2; ++part) {
    RawClient c(cluster.port(part, 0));
    c.Hello();
    std::vector<int64_t> seeds;
    for (int64_t v = part * 300; v < (part + 1) * 300; v += 2) seeds.push_back(v);
    TypedReply r = Call(c, 1, TypedSamplePayload(seeds, fanouts, 11));
    REQUIRE(r.counts.size() == seeds.size());
    size_t k = 0;
    for (size_t i = 0; i < seeds.size(); ++i) {
      std::map<int, std::set<int64_t>> got;
      for (int64_t j = 0; j < r.counts[i]; ++j, ++k) {
        const int64_t e = orig_eid[r.eids[k]];
        CHECK(g.dst[e] == seeds[i]);
        CHECK(g.src[e] == r.src[k]);
        CHECK(g.edge_types[e] == r.etypes[k]);
        CHECK(got[r.etypes[k]].insert(e).second);  // no edge twice without replacement
      }
      for (int t = 0; t < 3; ++t) {
        auto it = ref.find({seeds[i], t});
        const std::set<int64_t> all = it == ref.end() ? std::set<int64_t>{} : it->second;
        const int64_t want = fanouts[t] < 0 ? static_cast<int64_t>(all.size())
                                            : std::min<int64_t>(fanouts[t], static_cast<int64_t>(all.size()));
        CHECK(static_cast<int64_t>(got[t].size()) == want);
        if (fanouts[t] < 0) CHECK(got[t] == all);
      }
    }
    CHECK(k == r.src.size());
    // Deterministic; type 0's draw does not depend on the other types' fanouts.
    TypedReply again = Call(c, 2, TypedSamplePayload(seeds, fanouts, 11));
    CHECK(again.eids == r.eids);
    TypedReply other = Call(c, 3, TypedSamplePayload(seeds, {3, 0, 5}, 11));
    std::vector<int64_t> a, b;
    for (size_t j = 0; j < r.eids.size(); ++j)
      if (r.etypes[j] == 0) a.push_back(r.eids[j]);
    for (size_t j = 0; j < other.eids.size(); ++j)
      if (other.etypes[j] == 0) b.push_back(other.eids[j]);
    CHECK(a == b);
    // Too few fanouts, too many types: errors, and the server keeps serving.
    c.SendFrame(uint16_t(MsgType::kSampleNeighbors), 4, TypedSamplePayload(seeds, {1, 1}, 1));
    ExpectError(c, 4, "give a fanout for each");
    c.SendFrame(uint16_t(MsgType::kSampleNeighbors), 5, TypedSamplePayload(seeds, std::vector<int>(300, 1), 1));
    ExpectError(c, 5, "at most 255");
    CHECK(Call(c, 6, TypedSamplePayload(seeds, fanouts, 11)).eids == r.eids);
  }
}

TEST_CASE("typed SAMPLE_NEIGHBORS on an untyped partition is refused", "[server][typed]") {
  auto tg = MakeTestGraph(300, 2000, 4, 1, 78);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1);
  RawClient c(cluster.port(0, 0));
  c.Hello();
  c.SendFrame(uint16_t(MsgType::kSampleNeighbors), 1, TypedSamplePayload({0, 1, 2}, {2, 2}, 1));
  ExpectError(c, 1, "has no edge types");
  auto client = ConnectClient(*tg, cluster);
  auto s = client->SampleNeighbors(std::vector<int64_t>{0, 1, 2}, Hop(-1, false, 1));  // untyped still works
  REQUIRE(s.ok());
  CHECK(s->offsets.size() == 4);
}

TEST_CASE("a server of a typed IMDB partition samples by edge type and pulls by type", "[server][typed]") {
  const std::string imdb = test::SourceDir() + "/data/imdb-hetero";
  TempDir tmp;
  const std::string out = tmp.path() + "/p";
  auto r = RunDistgnn({"partition", "--dataset", imdb, "--undirected", "--num-parts", "2", "--method", "random",
                       "--name", "imdb", "--out", out});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadAnyPartitionConfig(out + "/imdb.json");
  REQUIRE(cfg.ok());
  auto ds = LoadTypedDataset(imdb, true);
  REQUIRE(ds.ok());
  auto orig = NpyLoad(out + "/orig_nids.npy");  // global -> type-local
  REQUIRE(orig.ok());
  const int64_t* local = orig->as<int64_t>();
  const int movie = cfg->NodeTypeId("movie");
  REQUIRE(movie >= 0);
  // Reference: in-edges of each movie as (edge type, type-local source), from the dataset.
  std::map<int64_t, std::multiset<std::pair<int, int64_t>>> ref;
  for (size_t t = 0; t < ds->edge_types.size(); ++t) {
    const auto& et = ds->edge_types[t];
    if (et.dst_type_id != movie) continue;
    for (int64_t i = 0; i < et.size(); ++i) ref[et.dst[i]].insert({static_cast<int>(t), et.src[i]});
  }
  const Array* features = ds->node_types[movie].Find("features");
  REQUIRE(features != nullptr);
  const int64_t f = features->shape[1];
  ServerCluster cluster;
  cluster.Start(out + "/imdb.json", 2, 1);
  for (int part = 0; part < 2; ++part) {
    RawClient c(cluster.port(part, 0));
    c.Hello();
    std::vector<int64_t> seeds;
    for (int64_t g = cfg->node_type_offsets[part][movie]; g < cfg->node_type_offsets[part][movie + 1] && seeds.size() < 60; ++g)
      seeds.push_back(g);
    TypedReply s = Call(c, 1, TypedSamplePayload(seeds, std::vector<int>(cfg->edge_types.size(), -1), 3));
    size_t k = 0;
    for (size_t i = 0; i < seeds.size(); ++i) {
      std::multiset<std::pair<int, int64_t>> got;
      for (int64_t j = 0; j < s.counts[i]; ++j, ++k) {
        const auto& et = cfg->edge_types[s.etypes[k]];
        CHECK(et.dst_type == movie);
        CHECK(cfg->NodeTypeOf(s.src[k]) == et.src_type);
        got.insert({s.etypes[k], local[s.src[k]]});
      }
      CHECK(got == ref[local[seeds[i]]]);
    }
    // PULL by type: the owned movies' rows, in dataset order of their type-local ids.
    Encoder e;
    EncodePull(&e, TensorKind::kNode, "movie/features", IdsView(seeds.data(), seeds.size()));
    c.SendFrame(uint16_t(MsgType::kPull), 2, e.Finish().Flatten());
    FrameHeader h;
    std::string p;
    REQUIRE(c.ReadFrame(&h, &p, 30));
    INFO(ErrorMessage(p));
    REQUIRE(h.type == uint16_t(MsgType::kPull));
    Decoder d(p.data(), p.size(), nullptr, "PULL reply");
    Array rows = d.ArrayView();
    REQUIRE(d.Finish().ok());
    REQUIRE(rows.shape == std::vector<int64_t>{static_cast<int64_t>(seeds.size()), f});
    for (size_t i = 0; i < seeds.size(); ++i)
      CHECK(std::equal(rows.as<float>() + i * f, rows.as<float>() + (i + 1) * f,
                       features->as<float>() + local[seeds[i]] * f));
    // An id of another type is refused, naming the range.
    Encoder bad;
    const int64_t other = cfg->node_type_offsets[part][movie + 1];
    EncodePull(&bad, TensorKind::kNode, "movie/features", IdsView(&other, 1));
    c.SendFrame(uint16_t(MsgType::kPull), 3, bad.Finish().Flatten());
    ExpectError(c, 3, "is not a movie node");
  }
}
