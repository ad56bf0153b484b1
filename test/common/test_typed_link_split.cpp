// HoldOutTypedEdges on a small hand-built typed graph: parallel copies of a
// pair share their split, each held-out copy takes exactly one swapped copy
// out of the reverse type, other edge types are untouched, ids come back
// type-major, and the split depends only on the set of pairs and the seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <utility>

#include "common/sampling/typed_link.h"

using namespace dg;

namespace {

// user (3), item (50); buys: user -> item with parallel copies; rev_buys; views: user -> item.
TypedGraphInput Shop(bool shuffled) {
  TypedGraphInput in;
  in.node_types.push_back({"user", 3, Array()});
  in.node_types.push_back({"item", 50, Array()});
  TypedGraphInput::EdgeType buys{0, 1, "buys", {}, {}}, views{0, 1, "views", {}, {}}, rev{1, 0, "rev_buys", {}, {}};
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t u = 0; u < 3; ++u)
    for (int64_t i = 0; i < 50; i += 1 + u) {
      pairs.emplace_back(u, i);
      if (i % 7 == 0) pairs.emplace_back(u, i);  // a parallel copy
    }
  if (shuffled) std::reverse(pairs.begin(), pairs.end());
  for (auto [u, i] : pairs) {
    buys.src.push_back(u);
    buys.dst.push_back(i);
    rev.src.push_back(i);
    rev.dst.push_back(u);
    views.src.push_back(u);
    views.dst.push_back(i);
  }
  in.edge_types = {buys, views, rev};
  in.labels = Array::Zeros(DType::kInt64, {3});
  in.split = Array::Zeros(DType::kInt8, {3});
  return in;
}

std::map<std::pair<int64_t, int64_t>, int> Count(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::map<std::pair<int64_t, int64_t>, int> m;
  for (size_t k = 0; k < a.size(); ++k) ++m[{a[k], b[k]}];
  return m;
}

}  // namespace

TEST_CASE("typed link split: parallel copies share a split, the reverse type loses one copy per held-out edge",
          "[typed][link]") {
  TypedGraphInput in = Shop(false);
  const size_t total = in.edge_types[0].src.size();
  REQUIRE(ReverseEdgeType(in, 0) == 2);
  REQUIRE(ReverseEdgeType(in, 1) == -1);
  auto r = HoldOutTypedEdges(&in, 0, {0.6, 0.2, 0.2}, 11);
  REQUIRE(r.ok());
  CHECK(r->reverse_etype == 2);
  CHECK(r->dst_first == 3);
  CHECK(r->dst_count == 50);
  const size_t held = r->val.src.size() + r->test.src.size();
  CHECK(r->train.src.size() + held == total);
  CHECK(held > 0);
  // Type-major ids: users 0..2, items 3..52.
  for (const EdgeList* l : {&r->train, &r->val, &r->test})
    for (size_t k = 0; k < l->src.size(); ++k) {
      CHECK(l->src[k] < 3);
      CHECK(l->dst[k] >= 3);
    }
  // A pair is in one split only, with all of its copies.
  auto train = Count(r->train.src, r->train.dst), val = Count(r->val.src, r->val.dst),
       test = Count(r->test.src, r->test.dst);
  for (const auto& [pair, n] : val) {
    CHECK(train.count(pair) == 0);
    CHECK(test.count(pair) == 0);
  }
  for (const auto& [pair, n] : test) CHECK(train.count(pair) == 0);
  // The graph keeps the train copies of buys and exactly their reverses in rev_buys; views is untouched.
  std::vector<int64_t> train_items;  // type-local
  for (int64_t d : r->train.dst) train_items.push_back(d - 3);
  CHECK(Count(in.edge_types[0].src, in.edge_types[0].dst) == Count(r->train.src, train_items));
  CHECK(Count(in.edge_types[2].dst, in.edge_types[2].src) == Count(in.edge_types[0].src, in.edge_types[0].dst));
  CHECK(in.edge_types[1].src.size() == total);
  // Input order does not matter.
  TypedGraphInput other = Shop(true);
  auto r2 = HoldOutTypedEdges(&other, 0, {0.6, 0.2, 0.2}, 11);
  REQUIRE(r2.ok());
  CHECK(Count(r2->val.src, r2->val.dst) == val);
  CHECK(Count(r2->test.src, r2->test.dst) == test);
  // Nothing left to train on is an error naming the edge type.
  TypedGraphInput none = Shop(false);
  auto r3 = HoldOutTypedEdges(&none, 0, {0.0, 0.5, 0.5}, 11);
  REQUIRE(!r3.ok());
  CHECK(r3.status().message().find("user:buys:item: no training edges") != std::string::npos);
}
