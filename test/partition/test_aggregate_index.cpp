// The aggregation index (common/storage/aggregate_index.h) written by
// `distgnn partition`: over all parts it holds exactly the partition's edges
// (each once, by source owner, destinations increasing), for METIS into 3
// parts and random into 130 (more parts than the writer opens per pass), and
// AggregateIndex::Open accepts every part and refuses a corrupted file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "common/io/npy.h"
#include "common/storage/aggregate_index.h"
#include "common/storage/partition.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

std::vector<std::pair<int64_t, int64_t>> Sorted(std::vector<std::pair<int64_t, int64_t>> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("partition writes an aggregation index holding exactly the edges, by source owner", "[partition][aggregate]") {
  test::TempDir tmp;
  for (auto [parts, method] : {std::pair<int, std::string>{3, "metis"}, {130, "random"}}) {
    INFO(parts << " parts, " << method);
    const std::string out = tmp / ("p" + std::to_string(parts));
    auto r = test::RunDistgnn({"partition", "--dataset", test::CoraDir(), "--undirected", "--num-parts",
                               std::to_string(parts), "--method", method, "--name", "c", "--out", out});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    auto cfg = LoadPartitionConfig(out + "/c.json");
    REQUIRE(cfg.ok());
    std::vector<std::pair<int64_t, int64_t>> csr, index;  // (dst, src) global
    for (int p = 0; p < cfg->num_parts; ++p) {
      const std::string dir = cfg->PartDir(p);
      auto ip = NpyLoad(dir + "/indptr.npy"), ix = NpyLoad(dir + "/indices.npy");
      REQUIRE(ip.ok());
      REQUIRE(ix.ok());
      for (int64_t i = 0; i + 1 < ip->rows(); ++i)
        for (int64_t e = ip->as<int64_t>()[i]; e < ip->as<int64_t>()[i + 1]; ++e)
          csr.emplace_back(cfg->node_map[p] + i, ix->as<int64_t>()[e]);
      const int64_t owned = cfg->node_map[p + 1] - cfg->node_map[p];
      auto idx = AggregateIndex::Open(dir, cfg->num_nodes, owned);
      INFO(idx.status().ToString());
      REQUIRE(idx.ok());
      REQUIRE(idx->present());
      auto dst = NpyLoad(dir + "/agg_dst.npy");
      REQUIRE(dst.ok());
      for (int64_t k = 0; k < dst->rows(); ++k) {
        int64_t b = 0, e = 0;
        idx->Range(dst->as<int64_t>()[k], &b, &e);
        REQUIRE(e > b);
        for (int64_t j = b; j < e; ++j) index.emplace_back(dst->as<int64_t>()[k], cfg->node_map[p] + idx->src()[j]);
      }
    }
    CHECK(static_cast<int64_t>(csr.size()) == cfg->num_edges);
    CHECK(Sorted(csr) == Sorted(index));
    // A source row out of range is refused when the index is opened.
    const std::string d0 = cfg->PartDir(0);
    auto src = NpyLoad(d0 + "/agg_src.npy");
    REQUIRE(src.ok());
    REQUIRE(src->rows() > 0);
    std::vector<int64_t> bad(src->as<int64_t>(), src->as<int64_t>() + src->rows());
    bad[0] = cfg->node_map[1] - cfg->node_map[0];
    NpyWriter w;
    REQUIRE(w.Open(d0 + "/agg_src.npy", DType::kInt64, {src->rows()}).ok());
    REQUIRE(w.Append(bad.data(), bad.size() * 8).ok());
    REQUIRE(w.Finish().ok());
    auto refused = AggregateIndex::Open(d0, cfg->num_nodes, cfg->node_map[1] - cfg->node_map[0]);
    REQUIRE(!refused.ok());
    CHECK_THAT(refused.status().message(), Catch::Contains("agg_src.npy: entry 0"));
  }
}
