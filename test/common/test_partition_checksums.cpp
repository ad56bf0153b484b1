// NAME.json's "checksums": round trip, optional (older configs load), bad
// digests and paths refused naming the key; FileSha256 against known digests.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "common/storage/partition.h"
#include "common/storage/partition_checksum.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

PartitionConfig OnePart() {
  PartitionConfig c;
  c.graph_name = "g";
  c.num_nodes = 2;
  c.num_edges = 0;
  c.num_parts = 1;
  c.node_map = {0, 2};
  c.edge_map = {0, 0};
  c.parts = {PartInfo{"part0", 2, 0, 0, 0}};
  return c;
}

}  // namespace

TEST_CASE("FileSha256 matches the standard digests", "[partition_format][checksum]") {
  test::TempDir tmp;
  std::ofstream(tmp / "empty");
  std::ofstream(tmp / "abc") << "abc";
  auto e = FileSha256(tmp / "empty");
  REQUIRE(e.ok());
  CHECK(*e == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  int64_t bytes = 0;
  auto a = FileSha256(tmp / "abc", &bytes);
  REQUIRE(a.ok());
  CHECK(*a == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(bytes == 3);
  CHECK(!FileSha256(tmp / "missing").ok());
}

TEST_CASE("partition config checksums: recorded, round trip, optional, checked", "[partition_format][checksum]") {
  test::TempDir tmp;
  std::filesystem::create_directories(tmp / "part0");
  std::ofstream(tmp / "part0/x.npy") << "abc";
  std::ofstream(tmp / "orig_nids.npy") << "";
  PartitionConfig c = OnePart();
  c.checksums["old/kept.npy"] = std::string(64, '0');  // already recorded: kept, not re-hashed
  REQUIRE(RecordChecksums(tmp.path(), "g.json", &c).ok());
  CHECK(c.checksums.size() == 3);
  CHECK(c.checksums.at("part0/x.npy") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(c.checksums.at("old/kept.npy") == std::string(64, '0'));
  c.checksums.erase("old/kept.npy");
  std::ofstream(tmp / "g.json") << PartitionConfigToJson(c);
  auto r = LoadPartitionConfig(tmp / "g.json");
  REQUIRE(r.ok());
  CHECK(r->checksums == c.checksums);
  CHECK(PartitionConfigToJson(*r) == PartitionConfigToJson(c));
  auto v = VerifyChecksums(*r, 0);  // part 0's files only
  REQUIRE(v.ok());
  CHECK(v->files == 1);
  CHECK(v->bytes == 3);
  std::ofstream(tmp / "part0/x.npy") << "abd";
  v = VerifyChecksums(*r, -1);
  REQUIRE(!v.ok());
  CHECK(v.status().message() == tmp / "part0/x.npy" + ": SHA-256 " + *FileSha256(tmp / "part0/x.npy") + ", " +
                                    (tmp / "g.json") + " records " + c.checksums.at("part0/x.npy") +
                                    ": the file changed after it was partitioned");
  std::filesystem::remove(tmp / "part0/x.npy");
  v = VerifyChecksums(*r, 0);
  REQUIRE(!v.ok());
  CHECK(v.status().message().find(tmp / "part0/x.npy") != std::string::npos);

  // Without the key (older output) the config loads with none.
  std::ofstream(tmp / "g.json", std::ios::trunc) << PartitionConfigToJson(OnePart());
  r = LoadPartitionConfig(tmp / "g.json");
  REQUIRE(r.ok());
  CHECK(r->checksums.empty());
  v = VerifyChecksums(*r, -1);
  REQUIRE(v.ok());
  CHECK(v->files == 0);
}

TEST_CASE("partition config checksums: a bad digest, path or algorithm is named", "[partition_format][checksum]") {
  test::TempDir tmp;
  const std::string good = PartitionConfigToJson(OnePart());
  const std::string tail = "\"edge_cut\"";
  struct Case {
    std::string value, message;
  };
  const Case cases[] = {
      {R"({"algorithm": "md5", "files": {}})", "key 'checksums.algorithm': unknown algorithm 'md5'"},
      {R"({"algorithm": "sha256"})", "key 'checksums.files': missing"},
      {R"({"algorithm": "sha256", "files": {"part0/a.npy": "xyz"}})",
       "key 'checksums.files.part0/a.npy': 'xyz' is not a SHA-256 digest"},
      {R"({"algorithm": "sha256", "files": {"../a.npy": ")" + std::string(64, 'a') + R"("}})",
       "key 'checksums.files.../a.npy': not a path inside the partition folder"},
      {R"([1, 2])", "key 'checksums': expected an object"},
  };
  for (const Case& k : cases) {
    INFO(k.value);
    std::string json = good;
    json.insert(json.find(tail), "\"checksums\": " + k.value + ",\n  ");
    std::ofstream(tmp / "g.json", std::ios::trunc) << json;
    auto r = LoadPartitionConfig(tmp / "g.json");
    REQUIRE(!r.ok());
    CHECK(r.status().message().find(k.message) != std::string::npos);
  }
}
