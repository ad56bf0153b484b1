// IdBuffer (common/sampling/id_buffer.h): owned ids behave as a vector; a
// view shares its memory until a size change copies it into owned storage.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "common/sampling/id_buffer.h"

using namespace dg;

TEST_CASE("IdBuffer owns ids like a vector") {
  IdBuffer a{3, 1, 4};
  CHECK(a.size() == 3);
  CHECK(!a.is_view());
  a.push_back(1);
  a.resize(5);
  CHECK(a == std::vector<int64_t>{3, 1, 4, 1, 0});
  IdBuffer copy = a;
  copy[0] = 9;
  CHECK(a[0] == 3);  // a copy of owned ids is independent
  a.insert(a.end(), copy.begin(), copy.begin() + 2);
  CHECK(a == std::vector<int64_t>{3, 1, 4, 1, 0, 9, 1});
  IdBuffer moved = std::move(a);
  CHECK(moved.size() == 7);
  CHECK(a.empty());
  std::vector<int64_t> released = moved.Release();
  CHECK(released.size() == 7);
  CHECK(moved.empty());
}

TEST_CASE("IdBuffer views memory it keeps alive and copies it on the first size change") {
  auto payload = std::make_shared<std::vector<int64_t>>(std::vector<int64_t>{10, 20, 30, 40});
  std::weak_ptr<std::vector<int64_t>> alive = payload;
  IdBuffer v = IdBuffer::View(payload->data() + 1, 2, payload);
  payload.reset();
  REQUIRE(!alive.expired());  // the view keeps the payload alive
  CHECK(v.is_view());
  CHECK(v == std::vector<int64_t>{20, 30});
  IdBuffer shared = v;  // a copy of a view views the same memory
  CHECK(shared.data() == v.data());
  v[0] = 21;  // element writes go to the viewed memory
  CHECK(shared[0] == 21);
  v.push_back(50);  // a size change copies the ids into owned storage first
  CHECK(!v.is_view());
  CHECK(v == std::vector<int64_t>{21, 30, 50});
  CHECK(shared == std::vector<int64_t>{21, 30});
  CHECK(alive.lock()->at(3) == 40);  // the payload was not written past the view
  std::vector<int64_t> out = shared.Release();  // releasing a view copies it
  CHECK(out == std::vector<int64_t>{21, 30});
  shared = IdBuffer();
  v = IdBuffer();
  CHECK(alive.expired());
}
