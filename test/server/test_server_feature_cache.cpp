// The feature cache (common/client/feature_cache.h) against real servers on
// 127.0.0.1: batches made through a client with a cache are bit for bit the
// batches of a client without one -- PULL of input rows, FillBlockInput with
// and without aggregation, and SampleBlockInput -- for 2 and 3 partitions,
// machine-local and remote partitions, each wire dtype, a cache of every
// remote row and of a part of them; the cache holds the highest in-degree
// remote rows, never a machine-local one, stays within its budget, and
// counts its hits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "common/client/block_input.h"
#include "common/client/dist_neighbor_source.h"
#include "common/client/feature_cache.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;

namespace {

void RequireSameArray(const Array& a, const Array& b, const char* what) {
  INFO(what);
  REQUIRE(a.dtype == b.dtype);
  REQUIRE(a.shape == b.shape);
  REQUIRE(std::memcmp(a.data, b.data, a.nbytes()) == 0);
}

void RequireSameBatch(const MiniBatch& a, const MiniBatch& b) {
  REQUIRE(a.input_nodes == b.input_nodes);
  REQUIRE(a.blocks.size() == b.blocks.size());
  for (size_t l = 0; l < a.blocks.size(); ++l) {
    const Block &x = a.blocks[l], &y = b.blocks[l];
    REQUIRE(std::vector<int64_t>(x.indptr.begin(), x.indptr.end()) ==
            std::vector<int64_t>(y.indptr.begin(), y.indptr.end()));
    REQUIRE(std::vector<int64_t>(x.indices.begin(), x.indices.end()) ==
            std::vector<int64_t>(y.indices.begin(), y.indices.end()));
  }
  RequireSameArray(a.features, b.features, "features");
  if (b.input_neigh_mean.data) RequireSameArray(a.input_neigh_mean, b.input_neigh_mean, "input_neigh_mean");
}

}  // namespace

TEST_CASE("Batches with the feature cache are bit for bit those without", "[server][pull_block][feature_cache]") {
  for (int parts : {2, 3}) {
    auto tg = MakeTestGraph(3000, 30000, 9, parts, 21, /*power_law=*/true);
    ServerCluster cluster;
    cluster.Start(tg->json, parts, 1);
    for (bool local : {false, true}) {
      ClientOptions co = FastClientOptions();
      if (local) co.local_partitions = {0};
      auto plain = ConnectClient(*tg, cluster, co, "", "sampler");
      int64_t remote_rows = 0;
      for (int p = local ? 1 : 0; p < parts; ++p) remote_rows += tg->config.node_map[p + 1] - tg->config.node_map[p];
      for (double share : {1.0, 0.3}) {
        auto cached = ConnectClient(*tg, cluster, co, "", "sampler");
        const int64_t rows = static_cast<int64_t>(share * remote_rows);
        const int64_t budget = rows * (9 * 4 + 8) + FeatureCache::BitmapBytes(3000);
        auto cache = BuildFeatureCache(cached.get(), "features", budget);
        REQUIRE(cache.ok());
        REQUIRE(*cache);
        const FeatureCache& c = **cache;
        REQUIRE(c.size() == rows);
        REQUIRE(c.bytes() <= budget);
        cached->set_feature_cache(*cache);
        // Only remote rows, the hottest by in-degree, equal to the server's.
        std::vector<int64_t> all;
        for (int64_t v = 0; v < 3000; ++v) all.push_back(v);
        auto deg = plain->InDegrees(all);
        REQUIRE(deg.ok());
        int64_t min_in = INT64_MAX, max_out = -1;
        for (int64_t v = 0; v < 3000; ++v) {
          const bool is_remote = !(local && tg->config.node_map[1] > v);
          if (!is_remote) {
            REQUIRE(c.Find(v) == nullptr);
            continue;
          }
          if (c.Find(v)) min_in = std::min(min_in, (*deg)[v]);
          else max_out = std::max(max_out, (*deg)[v]);
        }
        CHECK(min_in >= max_out);
        auto every = plain->Pull("features", all);
        REQUIRE(every.ok());
        for (int64_t v = 0; v < 3000; ++v)
          if (const float* row = c.Find(v)) REQUIRE(std::memcmp(row, every->as<float>() + v * 9, 36) == 0);

        DistNeighborSource plain_source(plain.get()), cached_source(cached.get());
        for (WireDType wire : {WireDType::kFloat32, WireDType::kFloat16, WireDType::kBFloat16}) {
          {  // one pass over every combination (a section would rerun the whole case for each)
            INFO(parts << " parts, local partition 0: " << local << ", cache share " << share << ", wire "
                                << WireDTypeName(wire));
            MiniBatchOptions mo;
            mo.fanouts = {5, 4};
            mo.feature_name = "";
            mo.label_name = "labels";
            mo.owner_offsets = tg->config.node_map;
            std::vector<int64_t> seeds;
            for (int64_t v = 1; v < 3000; v += 23) seeds.push_back(v);
            auto base = SampleMiniBatch(&plain_source, seeds, mo, 5, 1, 2);
            REQUIRE(base.ok());
            const FeatureCacheStats before = c.stats();
            // PULL of every input row (the path of models without forward_agg).
            auto x0 = plain->Pull("features", base->input_nodes);
            auto x1 = cached->Pull("features", base->input_nodes);
            REQUIRE(x0.ok());
            REQUIRE(x1.ok());
            RequireSameArray(*x1, *x0, "PULL");
            for (bool aggregate : {true, false}) {
              BlockInputOptions o;
              o.wire = wire;
              o.aggregate = aggregate;
              o.max_dst_per_request = 53;  // several requests per partition
              MiniBatch a = *base, b = *base;
              REQUIRE(FillBlockInput(plain.get(), o, &a).ok());
              REQUIRE(FillBlockInput(cached.get(), o, &b).ok());
              RequireSameBatch(b, a);
            }
            BlockInputOptions o;
            o.wire = wire;
            o.max_dst_per_request = 53;
            auto fa = SampleBlockInput(plain.get(), &plain_source, o, seeds, mo, 5, 1, 2);
            auto fb = SampleBlockInput(cached.get(), &cached_source, o, seeds, mo, 5, 1, 2);
            REQUIRE(fa.ok());
            REQUIRE(fb.ok());
            RequireSameBatch(*fb, *fa);
            const FeatureCacheStats after = c.stats();
            CHECK(after.hits > before.hits);
            if (share == 1.0) CHECK(after.misses == before.misses);  // every remote row and sum from the cache
            else CHECK(after.misses > before.misses);
            CHECK(after.bytes_saved > before.bytes_saved);
          }
        }
      }
    }
  }
}

TEST_CASE("BuildFeatureCache: no cache for a zero budget or without remote partitions", "[server][feature_cache]") {
  auto tg = MakeTestGraph(500, 3000, 4, 2, 3);
  ServerCluster cluster;
  cluster.Start(tg->json, 2, 1);
  ClientOptions co = FastClientOptions();
  co.local_partitions = {0, 1};
  auto all_local = ConnectClient(*tg, cluster, co, "", "sampler");
  auto none = BuildFeatureCache(all_local.get(), "features", 1 << 20);
  REQUIRE(none.ok());
  CHECK(*none == nullptr);
  auto remote = ConnectClient(*tg, cluster, FastClientOptions(), "", "sampler");
  auto zero = BuildFeatureCache(remote.get(), "features", 0);
  REQUIRE(zero.ok());
  CHECK(*zero == nullptr);
  auto bad = BuildFeatureCache(remote.get(), "labels", 1 << 20);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("train.feature_cache_mb") != std::string::npos);
}
