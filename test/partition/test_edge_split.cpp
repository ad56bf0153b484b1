// `distgnn partition --edge-split` end to end with the real binary:
// Cora (undirected) into 2 parts; the val/test edges are held out of every
// part's message-passing CSR, stored by the owner of their destination, with
// an edge and its reverse in the same split, and train + val + test = every
// edge of the graph (read back through orig_nids.npy). Bad flag values give a
// non-zero exit naming --edge-split.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "common/storage/partition.h"
#include "test/support/test_support.h"

using namespace dg;

TEST_CASE("CLI: partition --edge-split holds val/test edges out of every part's CSR", "[partition][cli][link]") {
  test::TempDir tmp;
  const std::string out = tmp / "cora2";
  auto r = test::RunDistgnn({"partition", "--dataset", test::CoraDir(), "--undirected", "--num-parts", "2", "--method",
                             "metis", "--name", "cora", "--out", out, "--edge-split", "0.85,0.05,0.10", "--seed", "3"});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto cfg = LoadPartitionConfig(out + "/cora.json");
  REQUIRE(cfg.ok());
  auto info = ReadLinkSplitInfo(out);
  REQUIRE(info.ok());
  REQUIRE(info->present);
  CHECK(info->undirected);
  // The reference: Cora's normalized edge set in original ids.
  EdgeListOptions eo;
  eo.undirected = true;
  auto ds = LoadDataset(test::CoraDir(), eo);
  REQUIRE(ds.ok());
  std::set<std::pair<int64_t, int64_t>> all;
  for (size_t i = 0; i < ds->edges.src.size(); ++i) all.insert({ds->edges.src[i], ds->edges.dst[i]});
  REQUIRE(all.size() == 10556);
  auto orig = NpyLoad(out + "/orig_nids.npy");
  REQUIRE(orig.ok());
  const int64_t* o = orig->as<int64_t>();
  std::set<std::pair<int64_t, int64_t>> train, held[2];
  for (int p = 0; p < cfg->num_parts; ++p) {
    auto indptr = NpyLoad(cfg->PartDir(p) + "/indptr.npy");
    auto indices = NpyLoad(cfg->PartDir(p) + "/indices.npy");
    REQUIRE(indptr.ok());
    REQUIRE(indices.ok());
    for (int64_t row = 0; row + 1 < indptr->rows(); ++row)
      for (int64_t e = indptr->as<int64_t>()[row]; e < indptr->as<int64_t>()[row + 1]; ++e)
        train.insert({o[indices->as<int64_t>()[e]], o[cfg->node_map[p] + row]});
    for (int w = 0; w < 2; ++w) {
      EdgeList h;
      REQUIRE(ReadHeldOutEdges(cfg->PartDir(p), w == 0 ? "val" : "test", &h).ok());
      for (size_t i = 0; i < h.src.size(); ++i) {
        // Stored by the part that owns the destination.
        CHECK(h.dst[i] >= cfg->node_map[p]);
        CHECK(h.dst[i] < cfg->node_map[p + 1]);
        held[w].insert({o[h.src[i]], o[h.dst[i]]});
      }
    }
  }
  CHECK(static_cast<int64_t>(train.size()) == cfg->num_edges);
  CHECK(static_cast<int64_t>(train.size()) == info->num_train);
  CHECK(static_cast<int64_t>(held[0].size()) == info->num_val);
  CHECK(static_cast<int64_t>(held[1].size()) == info->num_test);
  CHECK(train.size() + held[0].size() + held[1].size() == all.size());
  // 5278 undirected pairs: round(0.05 * 5278) = 264 val pairs, 528 test pairs.
  CHECK(held[0].size() == 2 * 264);
  CHECK(held[1].size() == 2 * 528);
  for (int w = 0; w < 2; ++w)
    for (const auto& [s, d] : held[w]) {
      CHECK(all.count({s, d}) == 1);
      CHECK(train.count({s, d}) == 0);        // never in the message-passing graph
      CHECK(train.count({d, s}) == 0);        // nor its reverse
      CHECK(held[w].count({d, s}) == 1);      // the reverse shares the split
      CHECK(held[1 - w].count({s, d}) == 0);
    }
}

TEST_CASE("CLI: partition --edge-split: a bad value is one clear error", "[partition][cli][link]") {
  test::TempDir tmp;
  for (const char* bad : {"0.85,0.05", "0.9,0.2,0.1", "x,y,z"}) {
    auto r = test::RunDistgnn({"partition", "--dataset", test::CoraDir(), "--undirected", "--num-parts", "1", "--name",
                               "cora", "--out", tmp / "bad", "--edge-split", bad});
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find("--edge-split") != std::string::npos);
    CHECK(!std::filesystem::exists(tmp / "bad"));
  }
}

TEST_CASE("CLI: partition takes a dataset's edge_split.npy (one int8 per input edge)", "[partition][cli][link]") {
  test::TempDir tmp;
  const std::string ds = tmp / "ring";
  std::filesystem::create_directories(ds);
  const int64_t n = 40;
  {
    std::ofstream edges(ds + "/edges.tsv");
    for (int64_t i = 0; i < n; ++i) edges << i << "\t" << (i + 1) % n << "\n";
  }
  Array feat = Array::Zeros(DType::kFloat32, {n, 3});
  REQUIRE(NpyWrite(ds + "/features.npy", feat).ok());
  Array split = Array::Zeros(DType::kInt8, {n});
  for (int64_t i = 0; i < n; ++i) split.as<int8_t>()[i] = static_cast<int8_t>(i % 10 == 1 ? 1 : i % 10 == 2 ? 2 : 0);
  REQUIRE(NpyWrite(ds + "/edge_split.npy", split).ok());
  const std::string out = tmp / "parts";
  auto r = test::RunDistgnn({"partition", "--dataset", ds, "--undirected", "--num-parts", "2", "--method", "random",
                             "--name", "ring", "--out", out});
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("edge_split.npy") != std::string::npos);
  auto cfg = LoadPartitionConfig(out + "/ring.json");
  REQUIRE(cfg.ok());
  CHECK(cfg->num_edges == 2 * 32);  // 8 of 40 ring edges held out, both directions
  auto orig = NpyLoad(out + "/orig_nids.npy");
  REQUIRE(orig.ok());
  for (int w = 1; w <= 2; ++w) {
    std::set<std::pair<int64_t, int64_t>> got, want;
    for (int64_t i = 0; i < n; ++i)
      if (split.as<int8_t>()[i] == w) {
        want.insert({i, (i + 1) % n});
        want.insert({(i + 1) % n, i});
      }
    for (int p = 0; p < cfg->num_parts; ++p) {
      EdgeList h;
      REQUIRE(ReadHeldOutEdges(cfg->PartDir(p), w == 1 ? "val" : "test", &h).ok());
      for (size_t i = 0; i < h.src.size(); ++i) got.insert({orig->as<int64_t>()[h.src[i]], orig->as<int64_t>()[h.dst[i]]});
    }
    CHECK(got == want);
  }
  // A malformed edge_split.npy is one clear error naming the file.
  Array bad = Array::Zeros(DType::kInt8, {n - 1});
  REQUIRE(NpyWrite(ds + "/edge_split.npy", bad).ok());
  r = test::RunDistgnn({"partition", "--dataset", ds, "--undirected", "--num-parts", "1", "--name", "ring", "--out",
                        tmp / "bad"});
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("edge_split.npy") != std::string::npos);
}
