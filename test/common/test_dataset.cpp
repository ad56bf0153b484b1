// Edge-list and dataset-directory ingest: formats, gzip, comments, errors with
// file:line, normalization (Cora must give exactly 10,556 directed edges).
#include <zlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "common/storage/dataset.h"
#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

void WriteGz(const std::string& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz != nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

Array Ids(std::vector<int64_t> v) {
  Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.as<int64_t>());
  return a;
}

}  // namespace

TEST_CASE("edge list: whitespace, tabs, commas, comments, blank lines, CRLF", "[dataset]") {
  test::TempDir tmp;
  WriteText(tmp / "e.txt",
            "# a comment\n"
            "0 1\n"
            "\n"
            "1\t2\n"
            "  2 ,3  # trailing comment\n"
            "3,4\r\n"
            "4 \t 0");  // no final newline
  auto el = ReadEdgeListText(tmp / "e.txt", -1);
  REQUIRE(el.ok());
  CHECK(el->src == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(el->dst == std::vector<int64_t>{1, 2, 3, 4, 0});
  CHECK(el->max_id == 4);

  WriteGz(tmp / "e.tsv.gz", "5\t6\n7\t8\n");
  auto gz = ReadEdgeListText(tmp / "e.tsv.gz", -1);
  REQUIRE(gz.ok());
  CHECK(gz->src == std::vector<int64_t>{5, 7});
  CHECK(gz->dst == std::vector<int64_t>{6, 8});
}

TEST_CASE("edge list errors name file:line", "[dataset]") {
  test::TempDir tmp;
  struct Case {
    std::string text, expect;
    int64_t num_nodes;
  };
  std::vector<Case> cases = {
      {"0 1\n1 x\n", ":2: expected", -1},
      {"0 1\n\n# c\n5\n", ":4: expected", -1},
      {"0 1 2\n", ":1: expected 2 columns", -1},
      {"0 -1\n", ":1: negative node id -1", -1},
      {"0 1\n1 10\n", ":2: node id 10 is out of range", 10},
      {"src dst\n0 1\n", ":1:", -1},
      {"0 99999999999999999999999\n", ":1:", -1},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    WriteText(tmp / "bad.tsv", c.text);
    auto el = ReadEdgeListText(tmp / "bad.tsv", c.num_nodes);
    REQUIRE(!el.ok());
    CHECK(el.status().message().find(tmp / "bad.tsv") != std::string::npos);
    CHECK(el.status().message().find(c.expect) != std::string::npos);
  }
  auto missing = ReadEdgeListText(tmp / "missing.tsv", -1);
  REQUIRE(!missing.ok());
  CHECK(missing.status().message().find("missing.tsv") != std::string::npos);
}

TEST_CASE("NormalizeEdges: undirected, self loops, duplicates, origin", "[dataset]") {
  EdgeList e;
  e.src = {0, 1, 2, 2, 0, 3};
  e.dst = {1, 0, 2, 3, 1, 3};
  EdgeListOptions o;
  o.drop_self_loops = true;
  o.drop_duplicates = true;
  EdgeList a = e;
  NormalizeEdges(&a, o);
  CHECK(a.src == std::vector<int64_t>{0, 1, 2});
  CHECK(a.dst == std::vector<int64_t>{1, 0, 3});

  EdgeList b = e;
  EdgeListOptions u;
  u.undirected = true;
  u.drop_self_loops = true;
  std::vector<int64_t> origin;
  NormalizeEdges(&b, u, &origin);
  CHECK(b.src == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(b.dst == std::vector<int64_t>{1, 0, 3, 2});
  CHECK(origin == std::vector<int64_t>{0, 1, 3, 3});  // (1,0) is input edge 1 itself

  EdgeList c = e;
  NormalizeEdges(&c, EdgeListOptions{});  // nothing asked: unchanged
  CHECK(c.src == e.src);
  CHECK(c.dst == e.dst);
}

TEST_CASE("NormalizeEdges dedupe matches a reference on a random multigraph", "[dataset]") {
  Rng rng(7);
  EdgeList e;
  for (int i = 0; i < 50000; ++i) {
    e.src.push_back(static_cast<int64_t>(rng.Uniform(3000)));
    e.dst.push_back(static_cast<int64_t>(rng.Uniform(3000)));
  }
  std::set<std::pair<int64_t, int64_t>> ref;
  for (size_t i = 0; i < e.src.size(); ++i) {
    if (e.src[i] == e.dst[i]) continue;
    ref.insert({e.src[i], e.dst[i]});
    ref.insert({e.dst[i], e.src[i]});
  }
  EdgeListOptions o;
  o.undirected = true;
  o.drop_self_loops = true;
  EdgeList fast = e, slow = e;
  NormalizeEdges(&fast, o);
  std::vector<int64_t> origin;
  NormalizeEdges(&slow, o, &origin);
  REQUIRE(fast.src.size() == ref.size());
  REQUIRE(slow.src == fast.src);
  REQUIRE(slow.dst == fast.dst);
  size_t k = 0;
  for (const auto& [s, d] : ref) {
    REQUIRE(fast.src[k] == s);
    REQUIRE(fast.dst[k] == d);
    int64_t o_i = origin[k];
    bool same = e.src[o_i] == s && e.dst[o_i] == d;
    bool rev = e.src[o_i] == d && e.dst[o_i] == s;
    REQUIRE((same || rev));
    ++k;
  }
}

TEST_CASE("LoadDataset on bundled Cora", "[dataset][cora]") {
  EdgeListOptions o;
  o.undirected = true;
  auto ds = LoadDataset(test::CoraDir(), o);
  REQUIRE(ds.ok());
  CHECK(ds->num_nodes == 2708);
  CHECK(ds->edges.src.size() == 10556);
  CHECK(ds->node_data.count("features") == 1);
  CHECK(ds->node_data.at("features").shape == std::vector<int64_t>{2708, 1433});
  CHECK(ds->node_data.at("labels").dtype == DType::kInt64);
  CHECK(ds->node_data.at("split").dtype == DType::kInt8);
  for (size_t i = 0; i < ds->edges.src.size(); ++i) REQUIRE(ds->edges.src[i] != ds->edges.dst[i]);

  auto raw = LoadDataset(test::CoraDir(), EdgeListOptions{});
  REQUIRE(raw.ok());
  CHECK(raw->edges.src.size() == 5429);
}

TEST_CASE("LoadDataset: src/dst npy, gzip edges, row mismatch, missing edges", "[dataset]") {
  test::TempDir tmp;
  std::string dir = tmp / "ds";
  REQUIRE(system(("mkdir -p " + dir).c_str()) == 0);
  REQUIRE(NpyWrite(dir + "/src.npy", Ids({0, 1, 2})).ok());
  REQUIRE(NpyWrite(dir + "/dst.npy", Ids({1, 2, 3})).ok());
  REQUIRE(NpyWrite(dir + "/labels.npy", Ids({0, 1, 0, 1, 1})).ok());
  auto ds = LoadDataset(dir, EdgeListOptions{});
  REQUIRE(ds.ok());
  CHECK(ds->num_nodes == 5);
  CHECK(ds->edges.dst == std::vector<int64_t>{1, 2, 3});
  CHECK(ds->node_data.size() == 1);

  // A node array with the wrong number of rows is named.
  REQUIRE(NpyWrite(dir + "/weights.npy", Array::Zeros(DType::kFloat32, {4, 2})).ok());
  auto bad = LoadDataset(dir, EdgeListOptions{});
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("weights.npy") != std::string::npos);
  std::remove((dir + "/weights.npy").c_str());

  // Edge ids beyond the node arrays' row count.
  REQUIRE(NpyWrite(dir + "/dst.npy", Ids({1, 2, 5})).ok());
  auto range = LoadDataset(dir, EdgeListOptions{});
  REQUIRE(!range.ok());
  CHECK(range.status().message().find("dst.npy") != std::string::npos);

  // A gzip'd text edge list takes precedence over src/dst.
  WriteGz(dir + "/edges.tsv.gz", "# gz\n4 3\n3 4\n");
  auto gz = LoadDataset(dir, EdgeListOptions{});
  REQUIRE(gz.ok());
  CHECK(gz->edges.src == std::vector<int64_t>{4, 3});

  std::string empty = tmp / "empty";
  REQUIRE(system(("mkdir -p " + empty).c_str()) == 0);
  auto none = LoadDataset(empty, EdgeListOptions{});
  REQUIRE(!none.ok());
  CHECK(none.status().message().find("edge") != std::string::npos);
  auto nodir = LoadDataset(tmp / "nodir", EdgeListOptions{});
  REQUIRE(!nodir.ok());
}

TEST_CASE("edge list larger than one 8 MB read block: streamed parse, line numbers across blocks", "[dataset]") {
  test::TempDir tmp;
  const std::string path = tmp / "big.tsv";
  const int64_t n = 1500000;  // ~17 MB of text: three blocks
  {
    std::ofstream f(path);
    f << "# header\n";
    for (int64_t i = 0; i < n; ++i) f << i << '\t' << (i * 7 + 3) % n << (i % 5 == 0 ? "\r\n" : "\n");
  }
  auto el = ReadEdgeListText(path, -1);
  REQUIRE(el.ok());
  REQUIRE(static_cast<int64_t>(el->src.size()) == n);
  for (int64_t i = 0; i < n; ++i) {
    REQUIRE(el->src[i] == i);
    REQUIRE(el->dst[i] == (i * 7 + 3) % n);
  }
  CHECK(el->max_id == n - 1);
  int64_t chunks = 0, seen = 0, max_id = -1;
  REQUIRE(ForEachEdgeText(path, n, [&](const int64_t*, const int64_t*, int64_t c) {
    ++chunks;
    seen += c;
    return Status::OK();
  }, &max_id).ok());
  CHECK(chunks >= 2);
  CHECK(seen == n);
  {
    std::ofstream f(path, std::ios::app);
    f << "7 x\n";
  }
  auto bad = ReadEdgeListText(path, -1);
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("big.tsv:" + std::to_string(n + 2) + ":") != std::string::npos);
}
