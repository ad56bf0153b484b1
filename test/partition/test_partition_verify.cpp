// Every writer of partitions records checksums that `distgnn partition verify`
// accepts (in memory, out of core, typed, merged types, --edge-split), and
// verify refuses typed damage naming the file and entry: an edge type out of
// range, an edge whose source is of another node type than its edge type says,
// a held-out edge whose destination another part owns.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>

#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "test/support/test_support.h"

using namespace dg;

namespace {

std::string ImdbDir() { return test::SourceDir() + "/data/imdb-hetero"; }

void Partition(const std::string& dataset, const std::vector<std::string>& extra, const std::string& out,
               const std::string& name) {
  std::vector<std::string> args = {"partition", "--dataset", dataset, "--name", name, "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = test::RunDistgnn(args);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

// `partition verify` of json: exit code and output.
test::RunResult Verify(const std::string& json, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"partition", "verify", json};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::RunDistgnn(args);
}

// Verify passes, and every file under the folder but the json has a checksum.
void ExpectVerified(const std::string& json) {
  auto c = LoadAnyPartitionConfig(json);
  REQUIRE(c.ok());
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(c->base_dir))
    if (e.is_regular_file() && e.path() != json) {
      INFO(e.path());
      CHECK(c->checksums.count(std::filesystem::relative(e.path(), c->base_dir).generic_string()) == 1);
      ++files;
    }
  CHECK(c->checksums.size() == files);
  auto v = Verify(json);
  INFO(v.output);
  CHECK(v.exit_code == 0);
  CHECK(v.output.find(std::to_string(files) + " files match their SHA-256 checksums") != std::string::npos);
}

void EditNpy(const std::string& path, const std::function<void(Array*)>& fn) {
  auto a = NpyRead(path);
  REQUIRE(a.ok());
  Array copy = std::move(*a);
  fn(&copy);
  REQUIRE(NpyWrite(path, copy).ok());
}

void ExpectRefused(const std::string& json, const std::string& refusal) {
  auto v = Verify(json);
  INFO(v.output);
  CHECK(v.exit_code == 1);
  CHECK(v.output.find(refusal) != std::string::npos);
  CHECK(std::count(v.output.begin(), v.output.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("partition verify accepts what every partition writer wrote", "[partition][verify]") {
  test::TempDir tmp;
  SECTION("in memory") {
    Partition(test::CoraDir(), {"--undirected", "--num-parts", "2", "--method", "metis"}, tmp / "p", "cora");
    ExpectVerified(tmp / "p/cora.json");
  }
  SECTION("out of core") {
    Partition(test::CoraDir(),
              {"--undirected", "--num-parts", "2", "--method", "random", "--memory-budget", "64M", "--run-size", "64K"},
              tmp / "p", "cora");
    ExpectVerified(tmp / "p/cora.json");
  }
  SECTION("typed") {
    Partition(ImdbDir(), {"--undirected", "--num-parts", "2", "--method", "metis"}, tmp / "p", "imdb");
    ExpectVerified(tmp / "p/imdb.json");
  }
  SECTION("typed, merged into one type") {
    Partition(ImdbDir(), {"--undirected", "--merge-types", "--num-parts", "2", "--method", "random"}, tmp / "p",
              "imdb");
    ExpectVerified(tmp / "p/imdb.json");
  }
  SECTION("--edge-split: the held-out edges and link_split.json written after the commit") {
    Partition(test::CoraDir(), {"--undirected", "--num-parts", "2", "--method", "random", "--edge-split", "0.8,0.1,0.1"},
              tmp / "p", "cora");
    auto c = LoadPartitionConfig(tmp / "p/cora.json");
    REQUIRE(c.ok());
    CHECK(c->checksums.count("part1/val_edges.npy") == 1);
    CHECK(c->checksums.count("link_split.json") == 1);
    ExpectVerified(tmp / "p/cora.json");
    // A held-out edge into a node of the other part.
    const int64_t foreign = c->node_map[0];
    EditNpy(tmp / "p/part1/test_edges.npy", [&](Array* a) { a->as<int64_t>()[3] = foreign; });
    ExpectRefused(tmp / "p/cora.json", "p/part1/test_edges.npy: entry 3 is " + std::to_string(foreign) +
                                           ", outside [" + std::to_string(c->node_map[1]) + ", " +
                                           std::to_string(c->node_map[2]) + ") (destination of row 1)");
  }
}

TEST_CASE("partition verify refuses typed damage naming the file and entry", "[partition][verify]") {
  test::TempDir tmp;
  Partition(ImdbDir(), {"--undirected", "--num-parts", "2", "--method", "metis"}, tmp / "p", "imdb");
  const std::string json = tmp / "p/imdb.json";
  auto c = LoadAnyPartitionConfig(json);
  REQUIRE(c.ok());
  REQUIRE(c->EdgeTypeDType() == DType::kUInt8);
  const std::string f = tmp / "p/part1/edge_types.npy";
  auto before = NpyRead(f);
  REQUIRE(before.ok());
  const int num_etypes = static_cast<int>(c->edge_types.size());

  SECTION("an edge type out of range") {
    EditNpy(f, [&](Array* a) { a->as<uint8_t>()[a->rows() - 1] = static_cast<uint8_t>(num_etypes); });
    ExpectRefused(json, f + ": entry " + std::to_string(before->rows() - 1) + " is " + std::to_string(num_etypes) +
                            ", outside [0, " + std::to_string(num_etypes) + "), the edge types NAME.json lists");
  }
  SECTION("an edge type whose source type differs from the edge's source") {
    // An edge at the start (end) of its row gets a smaller (larger) edge type
    // into the same node type from another one, so the row stays sorted
    // (IMDB undirected: movie <- director, actor, keyword).
    auto ip = NpyRead(tmp / "p/part1/indptr.npy");
    REQUIRE(ip.ok());
    const int64_t* indptr = ip->as<int64_t>();
    const uint8_t* et = before->as<uint8_t>();
    int64_t edge = -1;
    int other = -1;
    auto swap_type = [&](int t, bool smaller) {
      for (int u = 0; u < num_etypes; ++u)
        if ((smaller ? u < t : u > t) && c->edge_types[u].dst_type == c->edge_types[t].dst_type &&
            c->edge_types[u].src_type != c->edge_types[t].src_type)
          return u;
      return -1;
    };
    for (int64_t i = 0; i + 1 < ip->rows() && edge < 0; ++i) {
      if (indptr[i + 1] == indptr[i]) continue;
      if ((other = swap_type(et[indptr[i]], true)) >= 0) edge = indptr[i];
      else if ((other = swap_type(et[indptr[i + 1] - 1], false)) >= 0) edge = indptr[i + 1] - 1;
    }
    REQUIRE(edge >= 0);
    EditNpy(f, [&](Array* a) { a->as<uint8_t>()[edge] = static_cast<uint8_t>(other); });
    ExpectRefused(json, f + ": entry " + std::to_string(edge) + " is edge type " + std::to_string(other) + " (" +
                            c->edge_types[other].relation + ", from " + c->edge_types[other].src + ") but its source ");
  }
  SECTION("checksums: verify --part 1 catches the change, --part 0 does not look at part 1") {
    EditNpy(tmp / "p/part1/node_data/movie/features.npy", [](Array* a) { a->as<float>()[3] += 1.0f; });
    auto v = Verify(json, {"--part", "1"});
    INFO(v.output);
    CHECK(v.exit_code == 1);
    CHECK(v.output.find("p/part1/node_data/movie/features.npy: SHA-256 ") != std::string::npos);
    v = Verify(json, {"--part", "0"});
    INFO(v.output);
    CHECK(v.exit_code == 0);
  }
}
