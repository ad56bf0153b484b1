// The input rows' mean L1 size that the default learning rate reads
// (common/storage/row_l1.h): sampling, all-zero rows, dataset directories.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "common/io/npy.h"
#include "common/storage/row_l1.h"
#include "test/support/test_support.h"

using namespace dg;
using dg::test::CoraDir;
using dg::test::TempDir;

namespace {

Array Matrix(const std::vector<std::vector<float>>& rows) {
  Array a = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())});
  float* p = static_cast<float*>(a.data);
  for (const auto& r : rows)
    for (float v : r) *p++ = v;
  return a;
}

}  // namespace

TEST_CASE("EvenlySpacedIds: every id up to the count, then evenly spaced ones", "[row_l1]") {
  CHECK(EvenlySpacedIds(3, 5) == std::vector<int64_t>{0, 1, 2});
  CHECK(EvenlySpacedIds(10, 4) == std::vector<int64_t>{0, 2, 5, 7});
  CHECK(EvenlySpacedIds(0, 4).empty());
  const auto big = EvenlySpacedIds(int64_t{3} << 40, 4096);
  REQUIRE(big.size() == 4096);
  CHECK(big.back() < (int64_t{3} << 40));
}

TEST_CASE("RowL1Mean: the mean of |x| row sums, all-zero rows left out", "[row_l1]") {
  RowL1Mean m;
  CHECK_FALSE(m.Mean().has_value());
  m.AddAll(Matrix({{1, -2, 0}, {0, 0, 0}, {0.5, 0.5, 1}}));
  REQUIRE(m.Mean().has_value());
  CHECK(*m.Mean() == Approx((3.0 + 2.0) / 2));
  m.Add(Matrix({{4, 0, 0}, {9, 9, 9}}), {0, 7});  // id 7 is past the rows: skipped
  CHECK(*m.Mean() == Approx((3.0 + 2.0 + 4.0) / 3));
}

TEST_CASE("DatasetRowL1: Cora's rows, a typed directory's featured types, none", "[row_l1]") {
  auto cora = DatasetRowL1(CoraDir(), 4096);
  REQUIRE(cora.ok());
  REQUIRE(cora->has_value());
  // Cora: 1433 binary bag-of-words columns, 18.17 ones per row.
  CHECK(**cora == Approx(18.17).margin(0.01));

  TempDir dir;
  std::filesystem::create_directories(dir / "nodes/paper");
  std::filesystem::create_directories(dir / "nodes/author");
  std::filesystem::create_directories(dir / "edges");
  std::ofstream(dir / "meta.json") << R"({"node_types": {"paper": 2, "author": 3},
    "edge_types": [["author", "writes", "paper"]], "target": "paper", "num_classes": 2})";
  std::ofstream(dir / "edges/author__writes__paper.tsv") << "0\t0\n1\t1\n";
  REQUIRE(NpyWrite(dir / "nodes/paper/features.npy", Matrix({{1, 1}, {2, 2}})).ok());
  auto typed = DatasetRowL1(dir.path(), 4096);
  REQUIRE(typed.ok());
  REQUIRE(typed->has_value());
  CHECK(**typed == Approx(3.0));  // the paper rows only: authors have no features

  TempDir empty;
  std::ofstream(empty / "edges.tsv") << "0\t1\n";
  auto none = DatasetRowL1(empty.path(), 4096);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
}
