// FeatureCache (common/client/feature_cache.h) on its own: what fits a
// budget, lookups by global id (held, not held, out of range), and counters
// and lookups from many threads at once. Per-message byte counters
// (common/net/message_bytes.h): differences, the JSON and the log line the
// report reads back.
#include <catch2/catch.hpp>

#include <thread>

#include "common/client/feature_cache.h"
#include "common/net/message_bytes.h"
#include "common/net/protocol.h"

using namespace dg;

namespace {

// Rows of ids `ids` of a table whose row v is v*1000 + column.
FeatureCache MakeCache(int64_t num_nodes, std::vector<int64_t> ids, int64_t F) {
  Array rows = Array::Zeros(DType::kFloat32, {static_cast<int64_t>(ids.size()), F});
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t j = 0; j < F; ++j) rows.as<float>()[i * F + j] = static_cast<float>(ids[i] * 1000 + j);
  return FeatureCache("features", num_nodes, std::move(ids), std::move(rows));
}

}  // namespace

TEST_CASE("FeatureCache holds no more than its budget", "[feature_cache]") {
  for (int64_t F : {1, 100, 602}) {
    for (int64_t budget : {int64_t(0), int64_t(4096), int64_t(1) << 20, int64_t(10) << 20}) {
      const int64_t N = 100000;
      const int64_t rows = FeatureCache::RowsThatFit(budget, F, N);
      INFO("F " << F << " budget " << budget);
      REQUIRE(rows >= 0);
      std::vector<int64_t> ids;
      for (int64_t v = 0; v < std::min(rows, N); ++v) ids.push_back(v);
      FeatureCache c = MakeCache(N, ids, F);
      CHECK(c.bytes() <= std::max<int64_t>(budget, FeatureCache::BitmapBytes(N)));
      // One more row would not fit.
      if (rows < N && budget > FeatureCache::BitmapBytes(N))
        CHECK(c.bytes() + F * 4 + 8 > budget);
    }
  }
}

TEST_CASE("FeatureCache finds the rows it holds and only those", "[feature_cache]") {
  FeatureCache c = MakeCache(1000, {3, 64, 65, 500, 999}, 4);
  REQUIRE(c.size() == 5);
  REQUIRE(c.cols() == 4);
  for (int64_t v : {3, 64, 65, 500, 999}) {
    const float* row = c.Find(v);
    REQUIRE(row != nullptr);
    for (int j = 0; j < 4; ++j) CHECK(row[j] == static_cast<float>(v * 1000 + j));
  }
  for (int64_t v : {0, 2, 4, 63, 66, 998}) CHECK(c.Find(v) == nullptr);
  CHECK(c.Find(-1) == nullptr);
  CHECK(c.Find(1000) == nullptr);
  CHECK(c.Find(int64_t(1) << 40) == nullptr);
  const FeatureCacheStats s = c.stats();
  CHECK(s.hits == 0);
  CHECK(s.misses == 0);
  CHECK(s.hit_rate() == 0.0);
}

TEST_CASE("FeatureCache counts and reads from many threads", "[feature_cache]") {
  std::vector<int64_t> ids;
  for (int64_t v = 0; v < 5000; v += 2) ids.push_back(v);
  const FeatureCache c = MakeCache(5000, ids, 8);
  constexpr int kThreads = 4, kRounds = 20000;
  std::vector<std::thread> threads;
  std::vector<int64_t> wrong(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const int64_t v = (r * 7 + t) % 5000;
        const float* row = c.Find(v);
        if ((v % 2 == 0) != (row != nullptr) || (row && row[3] != static_cast<float>(v * 1000 + 3))) ++wrong[t];
        c.Count(row ? 1 : 0, row ? 0 : 1, row ? 32 : 0);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(wrong[t] == 0);
  uint64_t hits = 0;
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRounds; ++r) hits += ((r * 7 + t) % 5000) % 2 == 0;
  const FeatureCacheStats s = c.stats();
  CHECK(s.hits == hits);
  CHECK(s.hits + s.misses == uint64_t(kThreads) * kRounds);
  CHECK(s.bytes_saved == hits * 32);
  CHECK(s.hit_rate() == Approx(double(hits) / (kThreads * kRounds)));
  FeatureCacheStats before;
  before.hits = 10;
  before.misses = 5;
  const std::string json = FeatureCacheJson(s, before);
  CHECK(json.find("\"hits\": " + std::to_string(hits - 10)) != std::string::npos);
  CHECK(json.find("\"rows\": 2500") != std::string::npos);
}

TEST_CASE("Per-message byte counts: differences, JSON and the log line", "[feature_cache][message_bytes]") {
  const std::vector<MessageByteCount> before = MessageBytesSnapshot();
  CountMessageBytes(static_cast<uint16_t>(MsgType::kPullBlock), true, 100);
  CountMessageBytes(static_cast<uint16_t>(MsgType::kPullBlock), false, 7000);
  CountMessageBytes(static_cast<uint16_t>(MsgType::kInDegrees), false, 24);
  const std::vector<MessageByteCount> d = MessageBytesSince(MessageBytesSnapshot(), before);
  REQUIRE(d.size() == 2);
  CHECK(d[0].type == "IN_DEGREES");
  CHECK(d[0].sent == 0);
  CHECK(d[0].received == 24);
  CHECK(d[1].type == "PULL_BLOCK");
  CHECK(d[1].sent == 100);
  CHECK(d[1].received == 7000);
  CHECK(MessageBytesJson(d) ==
        "{\"IN_DEGREES\": {\"sent\": 0, \"received\": 24}, \"PULL_BLOCK\": {\"sent\": 100, \"received\": 7000}}");
  std::vector<MessageByteCount> back;
  REQUIRE(ParseMessageBytesLogLine("[2026-11-24 23:00:00] [info] " + MessageBytesLogLine(d), &back));
  REQUIRE(back.size() == 2);
  CHECK(back[1].type == "PULL_BLOCK");
  CHECK(back[1].received == 7000);
  CHECK_FALSE(ParseMessageBytesLogLine("peak RSS 12 MB", &back));
}
