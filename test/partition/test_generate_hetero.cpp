// `distgnn generate --hetero mag`: ogbn-mag's types and proportions, power-law
// degrees (hubs), learnable paper labels (neighbours share the class),
// output independent of the thread count, and the result partitions into a
// valid typed partition in memory and out of core (same bytes).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/storage/typed_dataset.h"
#include "test/partition/partition_checks.h"
#include "test/support/test_support.h"

using namespace dg;
namespace fs = std::filesystem;

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void Generate(const std::string& out, int threads) {
  auto r = test::RunDistgnn({"generate", "--hetero", "mag", "--nodes", "20000", "--feat-dim", "8", "--classes", "8",
                             "--seed", "3", "--threads", std::to_string(threads), "--out", out});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

// Share of all in-degree held by the top 1 % of nodes.
double TopShare(const std::vector<int64_t>& ids, int64_t n) {
  std::vector<int64_t> deg(static_cast<size_t>(n), 0);
  for (int64_t v : ids) ++deg[v];
  std::sort(deg.rbegin(), deg.rend());
  int64_t top = 0;
  for (int64_t i = 0; i < n / 100; ++i) top += deg[i];
  return static_cast<double>(top) / static_cast<double>(ids.size());
}

}  // namespace

TEST_CASE("generate --hetero mag: types, counts, power-law degrees, learnable labels", "[generate_hetero]") {
  test::TempDir tmp;
  Generate(tmp / "mag", 2);
  auto ds = LoadTypedDataset(tmp / "mag", false);
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  REQUIRE(ds->node_types.size() == 4);
  CHECK(ds->node_types[0].name == "paper");
  CHECK(ds->node_types[0].count == 20000);
  CHECK(ds->node_types[1].name == "author");
  CHECK(ds->node_types[1].count == std::llround(20000 * 1134649.0 / 736389));
  CHECK(ds->node_types[2].name == "institution");
  CHECK(ds->node_types[3].name == "field_of_study");
  REQUIRE(ds->edge_types.size() == 4);
  CHECK(ds->edge_types[0].CanonicalName() == "author__writes__paper");
  CHECK(ds->edge_types[1].CanonicalName() == "paper__cites__paper");
  CHECK(ds->edge_types[2].CanonicalName() == "author__affiliated_with__institution");
  CHECK(ds->edge_types[3].CanonicalName() == "paper__has_topic__field_of_study");
  CHECK(ds->edge_types[1].size() == std::llround(20000 * 5416271.0 / 736389));
  CHECK(ds->edge_types[3].size() == std::llround(20000 * 7505078.0 / 736389));
  CHECK(ds->target == "paper");
  CHECK(ds->num_classes == 8);
  const NodeTypeData& paper = ds->node_types[0];
  CHECK(paper.Find("features")->shape == std::vector<int64_t>{20000, 8});
  CHECK(ds->node_types[1].data.empty());
  // Power law: the top 1 % of papers hold far more than 1 % of the citations they receive.
  const double top = TopShare(ds->edge_types[1].dst, 20000);
  INFO("top 1% share of cites in-degree " << top);
  CHECK(top > 0.08);
  // Learnable: cited and citing papers share the class far above chance (1/8).
  const int64_t* label = paper.Find("labels")->as<int64_t>();
  int64_t same = 0;
  const EdgeTypeData& cites = ds->edge_types[1];
  for (int64_t k = 0; k < cites.size(); ++k) same += label[cites.src[k]] == label[cites.dst[k]];
  const double frac = static_cast<double>(same) / cites.size();
  INFO("same-class citations " << frac);
  CHECK(frac > 0.6);
  for (int64_t k = 0; k < cites.size(); ++k) REQUIRE(cites.src[k] != cites.dst[k]);  // no self citations
  // Split: about 60 / 20 / 20.
  int64_t train = 0;
  for (int64_t i = 0; i < 20000; ++i) train += paper.Find("split")->as<int8_t>()[i] == 0;
  CHECK(train > 11000);
  CHECK(train < 13000);
}

TEST_CASE("generate --hetero mag: the same bytes whatever the thread count, partitionable in and out of core",
          "[generate_hetero]") {
  test::TempDir tmp;
  Generate(tmp / "a", 1);
  Generate(tmp / "b", 3);
  for (const char* f : {"meta.json", "edges/author__writes__paper.npy", "edges/paper__cites__paper.npy",
                        "nodes/paper/features.npy", "nodes/paper/labels.npy", "nodes/paper/split.npy"}) {
    INFO(f);
    CHECK(ReadAll(tmp / "a/" + f) == ReadAll(tmp / "b/" + f));
  }
  for (const char* extra : {"", "--memory-budget"}) {
    std::vector<std::string> args = {"partition", "--dataset", tmp / "a", "--undirected", "--num-parts", "2",
                                     "--method", "metis", "--name", "mag", "--out",
                                     tmp / (std::string("p") + (extra[0] ? "_ooc" : ""))};
    if (extra[0]) args.insert(args.end(), {"--memory-budget", "512M", "--run-size", "1M"});
    auto r = test::RunDistgnn(args);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  auto ds = LoadTypedDataset(tmp / "a", true);
  REQUIRE(ds.ok());
  test::CheckTypedPartition(tmp / "p/mag.json", *ds, 2);
  CHECK(ReadAll(tmp / "p/mag.json") == ReadAll(tmp / "p_ooc/mag.json"));
  CHECK(ReadAll(tmp / "p/part1/edge_types.npy") == ReadAll(tmp / "p_ooc/part1/edge_types.npy"));
  CHECK(ReadAll(tmp / "p/part1/indices.npy") == ReadAll(tmp / "p_ooc/part1/indices.npy"));
  CHECK(ReadAll(tmp / "p/type_nids/author.npy") == ReadAll(tmp / "p_ooc/type_nids/author.npy"));
}
