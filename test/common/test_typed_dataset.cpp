// The typed dataset reader on the bundled IMDB graph (counts from
// data/imdb-hetero/README.md), --undirected's reverse relations, the
// type-major CSR view, and the errors of a malformed directory.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/io/npy.h"
#include "common/storage/typed_dataset.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

std::string ImdbDir() { return test::SourceDir() + "/data/imdb-hetero"; }

void WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary);
  f << text;
}

}  // namespace

TEST_CASE("typed dataset: the bundled IMDB graph has the README's counts", "[typed_dataset]") {
  REQUIRE(IsTypedDatasetDir(ImdbDir()));
  auto ds = LoadTypedDataset(ImdbDir(), false);
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  REQUIRE(ds->node_types.size() == 4);
  CHECK(ds->node_types[0].name == "movie");
  CHECK(ds->node_types[0].count == 4181);
  CHECK(ds->node_types[1].name == "director");
  CHECK(ds->node_types[1].count == 2082);
  CHECK(ds->node_types[2].name == "actor");
  CHECK(ds->node_types[2].count == 5257);
  CHECK(ds->node_types[3].name == "keyword");
  CHECK(ds->node_types[3].count == 2669);
  REQUIRE(ds->edge_types.size() == 3);
  CHECK(ds->edge_types[0].relation == "directed_by");
  CHECK(ds->edge_types[0].size() == 4181);
  CHECK(ds->edge_types[1].relation == "starring");
  CHECK(ds->edge_types[1].size() == 12534);
  CHECK(ds->edge_types[2].relation == "has_keyword");
  CHECK(ds->edge_types[2].size() == 15607);
  CHECK(ds->target == "movie");
  CHECK(ds->target_type == 0);
  CHECK(ds->num_classes == 3);
  const NodeTypeData& movie = ds->node_types[0];
  REQUIRE(movie.Find("features"));
  CHECK(movie.Find("features")->shape == std::vector<int64_t>{4181, 2669});
  CHECK(movie.Find("labels")->dtype == DType::kInt64);
  CHECK(ds->node_types[1].Find("features") == nullptr);
  // Class and split counts of the README.
  int64_t cls[3] = {0, 0, 0}, split[3] = {0, 0, 0};
  for (int64_t i = 0; i < 4181; ++i) {
    ++cls[movie.Find("labels")->as<int64_t>()[i]];
    ++split[movie.Find("split")->as<int8_t>()[i]];
  }
  CHECK(cls[0] == 1095);
  CHECK(cls[1] == 1564);
  CHECK(cls[2] == 1522);
  CHECK(split[0] == 836);
  CHECK(split[1] == 418);
  CHECK(split[2] == 2927);
  // Features equal the has_keyword adjacency (README rule 7).
  const float* f = movie.Find("features")->as<float>();
  double sum = 0;
  for (int64_t i = 0; i < 4181LL * 2669; ++i) sum += f[i];
  CHECK(sum == 15607.0);
  for (int64_t k = 0; k < 100; ++k) {
    const EdgeTypeData& hk = ds->edge_types[2];
    CHECK(f[hk.src[k] * 2669 + hk.dst[k]] == 1.0f);
  }
}

TEST_CASE("typed dataset: --undirected adds rev_<relation> per edge type", "[typed_dataset]") {
  auto fwd = LoadTypedDataset(ImdbDir(), false);
  auto und = LoadTypedDataset(ImdbDir(), true);
  REQUIRE(fwd.ok());
  REQUIRE(und.ok());
  REQUIRE(und->edge_types.size() == 6);
  for (int r = 0; r < 3; ++r) {
    const EdgeTypeData& f = fwd->edge_types[r];
    const EdgeTypeData& rev = und->edge_types[3 + r];
    CHECK(rev.relation == "rev_" + f.relation);
    CHECK(rev.src_type == f.dst_type);
    CHECK(rev.dst_type == f.src_type);
    CHECK(rev.src_type_id == f.dst_type_id);
    CHECK(rev.src == f.dst);
    CHECK(rev.dst == f.src);
    CHECK(und->edge_types[r].src == f.src);
  }
  CHECK(und->NumEdges() == 2 * (4181 + 12534 + 15607));
}

TEST_CASE("typed dataset: the type-major CSR view", "[typed_dataset]") {
  auto ds = LoadTypedDataset(ImdbDir(), true);
  REQUIRE(ds.ok());
  TypeMajorGraph g = ds->ToTypeMajorGraph();
  CHECK(g.type_offsets == std::vector<int64_t>{0, 4181, 4181 + 2082, 4181 + 2082 + 5257, 4181 + 2082 + 5257 + 2669});
  REQUIRE(g.indptr.size() == static_cast<size_t>(g.num_nodes()) + 1);
  REQUIRE(g.indptr.back() == ds->NumEdges());
  CHECK(g.NodeType(0) == 0);
  CHECK(g.NodeType(4181) == 1);
  CHECK(g.NodeType(g.num_nodes() - 1) == 3);
  // Every edge of the dataset appears once, with its type, in its destination's row.
  std::multiset<std::tuple<int64_t, int64_t, int32_t>> want, got;
  for (size_t r = 0; r < ds->edge_types.size(); ++r) {
    const EdgeTypeData& et = ds->edge_types[r];
    for (int64_t k = 0; k < et.size(); ++k)
      want.emplace(g.type_offsets[et.src_type_id] + et.src[k], g.type_offsets[et.dst_type_id] + et.dst[k],
                   static_cast<int32_t>(r));
  }
  for (int64_t v = 0; v < g.num_nodes(); ++v) {
    for (int64_t j = g.indptr[v]; j < g.indptr[v + 1]; ++j) {
      got.emplace(g.indices[j], v, g.edge_types[j]);
      if (j > g.indptr[v]) CHECK(g.edge_types[j - 1] <= g.edge_types[j]);  // sorted by type in a row
      const EdgeTypeData& et = ds->edge_types[g.edge_types[j]];
      REQUIRE(g.NodeType(v) == et.dst_type_id);
      REQUIRE(g.NodeType(g.indices[j]) == et.src_type_id);
    }
  }
  CHECK(got == want);
}

TEST_CASE("typed dataset: malformed directories give one message naming the file", "[typed_dataset]") {
  test::TempDir tmp;
  auto expect_error = [&](const std::string& needle) {
    auto ds = LoadTypedDataset(tmp.path(), false);
    REQUIRE(!ds.ok());
    INFO(ds.status().ToString());
    CHECK(ds.status().ToString().find(needle) != std::string::npos);
  };
  expect_error("meta.json");
  WriteText(tmp / "meta.json", "{\"node_types\": {\"a\": 3, \"b\": 2}, \"edge_types\": [[\"a\", \"r\", \"c\"]]}");
  expect_error("unknown node type");
  WriteText(tmp / "meta.json", "{\"node_types\": {\"a\": 3, \"b\": 2}, \"edge_types\": [[\"a\", \"r\", \"b\"]]}");
  expect_error("a__r__b.tsv");  // the missing edge file
  WriteText(tmp / "edges/a__r__b.tsv", "0 1\n2 2\n");
  expect_error("a__r__b.tsv: edge 2 (2, 2)");  // b has 2 nodes: id 2 is out of range
  WriteText(tmp / "edges/a__r__b.tsv", "0 1\n2 0\n");
  Array labels = Array::Zeros(DType::kInt64, {4});
  REQUIRE(NpyWrite(tmp / "nodes/a/labels.npy", labels).ok() == false);  // nodes/a does not exist yet
  std::filesystem::create_directories(tmp / "nodes/a");
  REQUIRE(NpyWrite(tmp / "nodes/a/labels.npy", labels).ok());
  expect_error("nodes/a/labels.npy");  // 4 rows, the type has 3
  labels = Array::Zeros(DType::kInt64, {3});
  labels.as<int64_t>()[2] = 4;
  REQUIRE(NpyWrite(tmp / "nodes/a/labels.npy", labels).ok());
  WriteText(tmp / "meta.json",
            "{\"node_types\": {\"a\": 3, \"b\": 2}, \"edge_types\": [[\"a\", \"r\", \"b\"]], \"target\": \"z\"}");
  expect_error("'z' is not a node type");
  WriteText(tmp / "meta.json",
            "{\"node_types\": {\"a\": 3, \"b\": 2}, \"edge_types\": [[\"a\", \"r\", \"b\"]], \"target\": \"a\"}");
  auto ok = LoadTypedDataset(tmp.path(), false);
  REQUIRE(ok.ok());
  CHECK(ok->num_classes == 5);  // 1 + the largest target label
  CHECK(ok->edge_types[0].src == std::vector<int64_t>{0, 2});
}
