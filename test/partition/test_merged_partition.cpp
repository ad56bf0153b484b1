// `partition --merge-types` end to end with the binary, on the bundled IMDB
// graph (--undirected): every part's rows (in-edges as a multiset of sources),
// features, labels and split, mapped back through orig_nids, equal the merged
// graph train-local builds in memory (TypedInMemoryGraph with merged = true,
// not the partitioner's code); out of core writes the same bytes as in
// memory; --merge-types on an untyped input is refused with a message.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/io/npy.h"
#include "common/sampling/typed_graph.h"
#include "common/storage/partition.h"
#include "common/storage/typed_dataset.h"
#include "test/support/test_support.h"

using namespace dg;
namespace fs = std::filesystem;

namespace {

std::string ImdbDir() { return test::SourceDir() + "/data/imdb-hetero"; }

void Partition(const std::vector<std::string>& extra, const std::string& out) {
  std::vector<std::string> args = {"partition", "--dataset", ImdbDir(), "--undirected", "--merge-types",
                                   "--num-parts", "2", "--name", "imdb", "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = test::RunDistgnn(args);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

std::unique_ptr<TypedInMemoryGraph> TrainLocalMergedGraph() {
  auto ds = LoadTypedDataset(ImdbDir(), /*undirected=*/true);
  REQUIRE(ds.ok());
  auto in = TypedGraphInputOf(std::move(*ds), ImdbDir());
  REQUIRE(in.ok());
  auto g = TypedInMemoryGraph::Create(std::move(*in), /*merged=*/true);
  REQUIRE(g.ok());
  return std::move(*g);
}

// Compares the partition at json with g row by row; returns the config.
PartitionConfig RequireEqualsMerged(const std::string& json, TypedInMemoryGraph& g) {
  auto cfg_r = LoadPartitionConfig(json);  // a homogeneous (format_version 1) config
  INFO(json);
  REQUIRE(cfg_r.ok());
  const PartitionConfig& cfg = *cfg_r;
  REQUIRE(cfg.num_nodes == g.num_nodes());
  REQUIRE(cfg.num_edges == g.num_edges());
  CHECK(cfg.num_classes == 3);
  auto on = NpyMap(cfg.base_dir + "/" + cfg.orig_nids);
  REQUIRE(on.ok());
  const int64_t* orig = on->as<int64_t>();
  const auto& ip = g.indptr();
  const auto& ix = g.indices();
  int64_t rows = 0, edge_rows_differ = 0, feature_rows_differ = 0, labels_differ = 0, split_differ = 0;
  std::vector<int64_t> got, want;
  for (int p = 0; p < cfg.num_parts; ++p) {
    auto lp_r = OpenLocalPartition(cfg, p);
    REQUIRE(lp_r.ok());
    const LocalPartition& lp = *lp_r;
    const int64_t* pip = lp.indptr.as<int64_t>();
    const int64_t* pix = lp.indices.as<int64_t>();
    const Array& feats = lp.node_data.at("features");
    const Array& labels = lp.node_data.at("labels");
    const Array& split = lp.node_data.at("split");
    REQUIRE(feats.shape == std::vector<int64_t>{lp.num_owned(), g.max_feature_dim()});
    std::vector<int64_t> origs(static_cast<size_t>(lp.num_owned()));
    for (int64_t i = 0; i < lp.num_owned(); ++i) origs[i] = orig[lp.node_begin + i];
    auto want_feats = g.Gather("features", origs);
    auto want_labels = g.Gather("labels", origs);
    auto want_split = g.Gather("split", origs);
    REQUIRE(want_feats.ok());
    REQUIRE(want_labels.ok());
    REQUIRE(want_split.ok());
    const size_t fw = feats.row_bytes();
    for (int64_t i = 0; i < lp.num_owned(); ++i, ++rows) {
      const int64_t o = origs[i];
      got.clear();
      for (int64_t j = pip[i]; j < pip[i + 1]; ++j) got.push_back(orig[pix[j]]);
      want.assign(ix.begin() + ip[o], ix.begin() + ip[o + 1]);
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      edge_rows_differ += got != want;
      feature_rows_differ += std::memcmp(static_cast<const char*>(feats.data) + i * fw,
                                         static_cast<const char*>(want_feats->data) + i * fw, fw) != 0;
      labels_differ += labels.as<int64_t>()[i] != want_labels->as<int64_t>()[i];
      split_differ += split.as<int8_t>()[i] != want_split->as<int8_t>()[i];
    }
  }
  CHECK(rows == g.num_nodes());
  CHECK(edge_rows_differ == 0);
  CHECK(feature_rows_differ == 0);
  CHECK(labels_differ == 0);
  CHECK(split_differ == 0);
  return cfg;
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("partition --merge-types: IMDB's parts equal train-local's merged graph, in memory and out of core",
          "[merged_partition]") {
  test::TempDir tmp;
  auto g = TrainLocalMergedGraph();
  // Featureless types (director, actor, keyword) have all-zero rows; labels and split are -1 off movie.
  REQUIRE(g->max_feature_dim() == 2669);
  Partition({"--method", "metis"}, tmp / "mem");
  PartitionConfig cfg = RequireEqualsMerged(tmp / "mem/imdb.json", *g);
  CHECK(cfg.edge_cut > 0);
  Partition({"--method", "metis", "--memory-budget", "256M", "--run-size", "64K"}, tmp / "ooc");
  RequireEqualsMerged(tmp / "ooc/imdb.json", *g);
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(tmp / "mem"))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), tmp / "mem").string());
  REQUIRE(files.size() > 8);
  for (const std::string& f : files) {
    INFO(f);
    CHECK(ReadAll(tmp / ("mem/" + f)) == ReadAll(tmp / ("ooc/" + f)));
  }
}

TEST_CASE("partition --merge-types refuses an untyped input with a message", "[merged_partition]") {
  test::TempDir tmp;
  auto r = test::RunDistgnn({"partition", "--dataset", test::SourceDir() + "/data/cora", "--merge-types",
                             "--num-parts", "2", "--name", "cora", "--out", tmp / "p"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--merge-types") != std::string::npos);
  CHECK(r.output.find("no meta.json with node_types") != std::string::npos);
  std::ofstream(tmp / "edges.tsv") << "0\t1\n1\t2\n";
  r = test::RunDistgnn({"partition", "--edges", tmp / "edges.tsv", "--merge-types", "--num-parts", "2", "--name", "e",
                        "--out", tmp / "p"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("has one of each") != std::string::npos);
  CHECK(!fs::exists(tmp / "p"));
}
