// Partition config (NAME.json) round trip and validation, PartitionBook::Owner,
// and OpenLocalPartition's dtype/shape checks against the config.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "common/storage/partition_seeds.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

PartitionConfig SampleConfig() {
  PartitionConfig c;
  c.graph_name = "toy \"g\"";
  c.part_method = "metis";
  c.num_nodes = 5;
  c.num_edges = 4;
  c.num_parts = 2;
  c.node_map = {0, 3, 5};
  c.edge_map = {0, 1, 4};
  c.node_data["feat"] = ArrayInfo{DType::kFloat32, {5, 2}};
  c.node_data["labels"] = ArrayInfo{DType::kInt64, {5}};
  c.edge_data["w"] = ArrayInfo{DType::kFloat64, {4}};
  c.orig_nids = "orig_nids.npy";
  c.orig_eids = "orig_eids.npy";
  c.parts = {PartInfo{"part0", 3, 1, 2, 1}, PartInfo{"part1", 2, 3, 0, 2}};
  c.edge_cut = 3;
  return c;
}

void WriteFile(const std::string& path, const std::string& s) { std::ofstream(path) << s; }

Array I64(std::vector<int64_t> v) {
  Array a = Array::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.as<int64_t>());
  return a;
}

// Writes the arrays SampleConfig describes.
void WriteParts(const std::string& dir) {
  namespace fs = std::filesystem;
  for (int p = 0; p < 2; ++p) {
    fs::create_directories(dir + "/part" + std::to_string(p) + "/node_data");
    fs::create_directories(dir + "/part" + std::to_string(p) + "/edge_data");
  }
  REQUIRE(NpyWrite(dir + "/part0/indptr.npy", I64({0, 0, 1, 1})).ok());
  REQUIRE(NpyWrite(dir + "/part0/indices.npy", I64({4})).ok());
  REQUIRE(NpyWrite(dir + "/part1/indptr.npy", I64({0, 2, 3})).ok());
  REQUIRE(NpyWrite(dir + "/part1/indices.npy", I64({0, 1, 2})).ok());
  REQUIRE(NpyWrite(dir + "/part0/node_data/feat.npy", Array::Zeros(DType::kFloat32, {3, 2})).ok());
  REQUIRE(NpyWrite(dir + "/part1/node_data/feat.npy", Array::Zeros(DType::kFloat32, {2, 2})).ok());
  REQUIRE(NpyWrite(dir + "/part0/node_data/labels.npy", I64({0, 1, 2})).ok());
  REQUIRE(NpyWrite(dir + "/part1/node_data/labels.npy", I64({3, 4})).ok());
  REQUIRE(NpyWrite(dir + "/part0/edge_data/w.npy", Array::Zeros(DType::kFloat64, {1})).ok());
  REQUIRE(NpyWrite(dir + "/part1/edge_data/w.npy", Array::Zeros(DType::kFloat64, {3})).ok());
}

}  // namespace

TEST_CASE("partition config JSON round trip", "[partition_format]") {
  test::TempDir tmp;
  PartitionConfig c = SampleConfig();
  WriteFile(tmp / "g.json", PartitionConfigToJson(c));
  auto r = LoadPartitionConfig(tmp / "g.json");
  REQUIRE(r.ok());
  CHECK(r->graph_name == c.graph_name);
  CHECK(r->part_method == "metis");
  CHECK(r->node_map == c.node_map);
  CHECK(r->edge_map == c.edge_map);
  CHECK(r->node_data.at("feat").shape == std::vector<int64_t>{5, 2});
  CHECK(r->node_data.at("labels").dtype == DType::kInt64);
  CHECK(r->edge_data.at("w").dtype == DType::kFloat64);
  CHECK(r->parts[1].num_halo == 2);
  CHECK(r->parts[0].num_train == 2);
  CHECK(r->edge_cut == 3);
  CHECK(r->base_dir == tmp.path());
  CHECK(r->PartDir(1) == tmp / "part1");
  CHECK(PartitionConfigToJson(*r) == PartitionConfigToJson(c));
}

TEST_CASE("partition config errors name the file and key", "[partition_format]") {
  test::TempDir tmp;
  std::string good = PartitionConfigToJson(SampleConfig());
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  struct Case {
    std::string text, expect;
  };
  std::vector<Case> cases = {
      {replace("\"node_map\": [0, 3, 5]", "\"node_map\": [0, 3]"), "node_map"},
      {replace("\"node_map\": [0, 3, 5]", "\"node_map\": [0, 6, 5]"), "node_map"},
      {replace("\"num_nodes\": 5", "\"num_nodes\": \"five\""), "num_nodes"},
      {replace("\"float32\"", "\"float16\""), "node_data.feat.dtype"},
      {replace("\"format_version\": 1", "\"format_version\": 7"), "format_version"},
      {replace("\"graph_name\"", "\"graph\""), "graph_name"},
      {replace("\"num_edges\": 3, \"num_train\"", "\"num_edges\": 2, \"num_train\""), "parts[1].num_edges"},
      {"{ \"format_version\": 1, ", "not valid JSON"},
      {"[1, 2]", "expected a JSON object"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    WriteFile(tmp / "bad.json", c.text);
    auto r = LoadPartitionConfig(tmp / "bad.json");
    REQUIRE(!r.ok());
    CHECK(r.status().message().find(tmp / "bad.json") != std::string::npos);
    CHECK(r.status().message().find(c.expect) != std::string::npos);
  }
  auto missing = LoadPartitionConfig(tmp / "none.json");
  REQUIRE(!missing.ok());
  CHECK(missing.status().message().find("none.json") != std::string::npos);
}

TEST_CASE("a partition without per-part seed files is refused with a re-partition hint", "[partition_format]") {
  PartitionConfig c;
  c.path = "/data/old/graph.json";
  c.num_parts = 1;
  c.parts.resize(1);
  c.num_classes = 0;  // written before per-part seed files and num_classes
  Status st = RequirePartSeeds(c);
  REQUIRE(!st.ok());
  CHECK(st.message().find("/data/old/graph.json") != std::string::npos);
  CHECK(st.message().find("re-partition") != std::string::npos);
  c.num_classes = 3;
  c.parts[0].num_val = c.parts[0].num_test = 0;
  CHECK(RequirePartSeeds(c).ok());
}

TEST_CASE("PartitionBook::Owner is a binary search over node_map, incl. empty parts", "[partition_format]") {
  PartitionBook b({0, 3, 3, 7, 10});
  CHECK(b.num_parts() == 4);
  CHECK(b.num_nodes() == 10);
  std::vector<int> want = {0, 0, 0, 2, 2, 2, 2, 3, 3, 3};
  for (int64_t g = 0; g < 10; ++g) CHECK(b.Owner(g) == want[g]);
  PartitionBook one({0, 5});
  for (int64_t g = 0; g < 5; ++g) CHECK(one.Owner(g) == 0);
}

TEST_CASE("OpenLocalPartition maps the arrays and checks them against the config", "[partition_format]") {
  test::TempDir tmp;
  WriteFile(tmp / "g.json", PartitionConfigToJson(SampleConfig()));
  WriteParts(tmp.path());
  auto cfg = LoadPartitionConfig(tmp / "g.json");
  REQUIRE(cfg.ok());
  auto lp = OpenLocalPartition(*cfg, 1);
  REQUIRE(lp.ok());
  CHECK(lp->node_begin == 3);
  CHECK(lp->node_end == 5);
  CHECK(lp->edge_begin == 1);
  CHECK(lp->num_owned() == 2);
  CHECK(lp->num_edges() == 3);
  CHECK(lp->node_data.at("labels").as<int64_t>()[1] == 4);
  CHECK(lp->edge_data.at("w").shape == std::vector<int64_t>{3});
  CHECK(!OpenLocalPartition(*cfg, 2).ok());

  // Wrong dtype, wrong shape, missing file: each names the file.
  REQUIRE(NpyWrite(tmp / "part1/node_data/labels.npy", Array::Zeros(DType::kInt32, {2})).ok());
  auto bad = OpenLocalPartition(*cfg, 1);
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("labels.npy") != std::string::npos);
  CHECK(bad.status().message().find("dtype") != std::string::npos);
  REQUIRE(NpyWrite(tmp / "part1/node_data/labels.npy", I64({3, 4, 5})).ok());
  bad = OpenLocalPartition(*cfg, 1);
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("shape") != std::string::npos);
  std::filesystem::remove(tmp / "part0/indices.npy");
  bad = OpenLocalPartition(*cfg, 0);
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("part0/indices.npy") != std::string::npos);
}
