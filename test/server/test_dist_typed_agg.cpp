// Block 0 of a typed batch aggregated per relation by real servers of a
// 2-partition IMDB (--undirected) on 127.0.0.1 (common/client/block_input.h):
// for a remote client and one that reads partition 0 from the mmap, in
// float32 and float16, FillBlockInput's means equal the per-relation means of
// the rows PullTypedNodeRows gives (computed here in double; float32 to 1e-6,
// float16 to its rounding of a partial sum, 1e-3), relation by
// relation and destination by destination; the feature rows of block 0's
// destinations and of the featureless relations' sources are those rows, the
// rest zero; the relations aggregated are the ones whose source type has
// features; fewer bytes come back than for every source row; the batch
// crosses a MINIBATCH (a sampler process's) unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/client/block_input.h"
#include "common/client/dist_neighbor_source.h"
#include "common/client/typed_node_rows.h"
#include "common/net/message_bytes.h"
#include "common/net/protocol.h"
#include "common/sampling/minibatch_codec.h"
#include "common/storage/partition.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

Frame MiniBatchFrame(const std::string& bytes) {
  auto holder = std::make_shared<std::string>(bytes);
  Frame f;
  f.header.type = static_cast<uint16_t>(MsgType::kMinibatch);
  f.header.payload_length = holder->size();
  f.holder = holder;
  f.data = reinterpret_cast<const uint8_t*>(holder->data());
  f.size = holder->size();
  return f;
}

// Bytes this process received in PULL and PULL_BLOCK replies since `before`.
uint64_t RowBytesSince(const std::vector<MessageByteCount>& before) {
  uint64_t n = 0;
  for (const MessageByteCount& c : MessageBytesSince(MessageBytesSnapshot(), before))
    if (c.type == "PULL" || c.type == "PULL_BLOCK") n += c.received;
  return n;
}

// The means FillBlockInput gives, from every source's row (`x`, float32
// [num_src, F]) in double: relation by relation, each destination with an
// edge of it.
std::vector<std::vector<double>> ReferenceMeans(const MiniBatch& mb, const Array& x, const std::vector<int>& rels) {
  const Block& b = mb.blocks[0];
  const int64_t F = x.shape[1];
  std::vector<std::vector<double>> out;
  for (int r : rels)
    for (int64_t d = 0; d < b.num_dst; ++d) {
      std::vector<double> m(static_cast<size_t>(F), 0.0);
      int64_t deg = 0;
      for (int64_t e = b.indptr[d]; e < b.indptr[d + 1]; ++e) {
        if (b.etypes[e] != r) continue;
        ++deg;
        for (int64_t j = 0; j < F; ++j) m[j] += x.as<float>()[b.indices[e] * F + j];
      }
      if (deg == 0) continue;
      for (double& v : m) v /= static_cast<double>(deg);
      out.push_back(std::move(m));
    }
  return out;
}

// Means within `tol` of the reference, relative to max(1, |mean|): each
// partition's partial sum is rounded once to the wire dtype.
void CheckAggregated(const PartitionConfig& cfg, const MiniBatch& mb, const Array& x, const std::vector<int>& rels,
                     double tol) {
  const Block& b = mb.blocks[0];
  const int64_t F = x.shape[1];
  REQUIRE(mb.features.shape == x.shape);
  std::vector<char> aggregated(cfg.edge_types.size(), 0), read(static_cast<size_t>(b.num_src), 0);
  for (int r : rels) aggregated[r] = 1;
  for (int64_t i = 0; i < b.num_dst; ++i) read[i] = 1;
  for (size_t e = 0; e < b.indices.size(); ++e)
    if (!aggregated[b.etypes[e]]) read[b.indices[e]] = 1;
  int64_t zeroed = 0;
  for (int64_t i = 0; i < b.num_src; ++i) {
    const float* got = mb.features.as<float>() + i * F;
    if (read[i]) {
      REQUIRE(std::memcmp(got, x.as<float>() + i * F, static_cast<size_t>(F) * 4) == 0);
      continue;
    }
    ++zeroed;
    for (int64_t j = 0; j < F; ++j) REQUIRE(got[j] == 0.0f);
  }
  CHECK(zeroed > 0);  // movies reached by the rev_ relations alone
  const auto want = ReferenceMeans(mb, x, rels);
  REQUIRE(mb.input_neigh_mean.shape == std::vector<int64_t>{static_cast<int64_t>(want.size()), F});
  double worst = 0;
  for (size_t g = 0; g < want.size(); ++g)
    for (int64_t j = 0; j < F; ++j)
      worst = std::max(worst, std::abs(mb.input_neigh_mean.as<float>()[g * F + j] - want[g][j]) /
                                  std::max(1.0, std::abs(want[g][j])));
  INFO("worst relative difference " << worst);
  CHECK(worst < tol);
}

}  // namespace

TEST_CASE("a typed block 0 aggregated per relation by the servers equals the means of its source rows",
          "[server][typed][aggregate]") {
  TempDir tmp;
  const std::string out = tmp.path() + "/p";
  auto r = RunDistgnn({"partition", "--dataset", test::SourceDir() + "/data/imdb-hetero", "--undirected",
                       "--num-parts", "2", "--method", "random", "--name", "imdb", "--out", out});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadAnyPartitionConfig(out + "/imdb.json");
  REQUIRE(cfg.ok());
  // IMDB: movies have features, directors, actors and keywords none: the
  // relations out of movies are aggregated, the rev_ ones into movies are not.
  const std::vector<int> rels = TypedAggregatedRelations(*cfg);
  REQUIRE(!rels.empty());
  REQUIRE(rels.size() < cfg->edge_types.size());
  for (int e = 0; e < static_cast<int>(cfg->edge_types.size()); ++e)
    CHECK((std::find(rels.begin(), rels.end(), e) != rels.end()) == (cfg->edge_types[e].src == "movie"));
  ServerCluster cluster;
  cluster.Start(out + "/imdb.json", 2, 1);
  ClientOptions with_local = FastClientOptions();
  with_local.local_partitions = {0};
  auto remote = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 0, FastClientOptions());
  auto local = DistGraphClient::Connect(*cfg, cluster.endpoints(), "", "client", 1, with_local);
  REQUIRE(remote.ok());
  REQUIRE(local.ok());

  DistNeighborSource source(remote->get());
  std::vector<int64_t> seeds;
  for (int64_t g = 0; g < cfg->num_nodes && seeds.size() < 200; g += 3)
    if (cfg->NodeTypeOf(g) == cfg->NodeTypeId(cfg->target)) seeds.push_back(g);
  MiniBatchOptions opts;
  opts.fanouts = {4, 4};
  opts.feature_name = "";
  opts.label_name = "";
  opts.owner_offsets = source.owner_offsets();
  auto mb = SampleMiniBatch(&source, seeds, opts, 9, 0, 0);
  REQUIRE(mb.ok());
  auto x = PullTypedNodeRows(remote->get(), "features", mb->input_nodes);
  REQUIRE(x.ok());

  for (WireDType wire : {WireDType::kFloat32, WireDType::kFloat16})
    for (bool machine_local : {false, true}) {
      INFO(WireDTypeName(wire) << (machine_local ? ", partition 0 from the mmap" : ", remote"));
      DistGraphClient* client = machine_local ? local->get() : remote->get();
      BlockInputOptions o;
      o.aggregate = true;
      o.wire = wire;
      o.max_dst_per_request = 50;  // several requests per partition and relation
      MiniBatch agg = *mb;
      auto before = MessageBytesSnapshot();
      REQUIRE(FillBlockInput(client, o, &agg).ok());
      const uint64_t agg_bytes = RowBytesSince(before);
      // IMDB's feature values are exact in float16, so the rows are x's in
      // either dtype; a sum of them is rounded to float16's 11 bits.
      const double tol = wire == WireDType::kFloat32 ? 1e-6 : 1e-3;
      CheckAggregated(*cfg, agg, *x, rels, tol);
      MiniBatch rows = *mb;
      o.aggregate = false;
      before = MessageBytesSnapshot();
      REQUIRE(FillBlockInput(client, o, &rows).ok());
      const uint64_t row_bytes = RowBytesSince(before);
      CHECK(rows.input_neigh_mean.shape.empty());
      INFO("aggregated " << agg_bytes << " bytes, every row " << row_bytes);
      CHECK(agg_bytes < row_bytes);

      MiniBatch decoded;  // a sampler process's MINIBATCH to its trainer
      const std::string bytes = EncodeMiniBatch(agg, wire).Flatten();
      REQUIRE(DecodeMiniBatch(MiniBatchFrame(bytes), &decoded).ok());
      CheckAggregated(*cfg, decoded, *x, rels, tol);
    }
}
