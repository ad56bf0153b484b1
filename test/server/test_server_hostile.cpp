// Hostile clients against a live server:
// - one client hammering a 2-thread server with expensive SAMPLE_NEIGHBORS
//   requests must not starve another client's PULL (p99 is printed);
// - several clients sending mutated valid requests (bit flips, truncation,
//   extreme integers, random types) for a bounded time: the server's RSS stays
//   bounded and afterwards a fresh client gets bit-identical answers.
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "common/net/codec.h"
#include "common/net/messages.h"
#include "test/server/server_fixture.h"

using namespace dg;
using namespace dg::test;
using Clock = std::chrono::steady_clock;

namespace {

const char kToken[] = "hostile-token";

int64_t RssBytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return -1;
}

std::string SamplePayload(const std::vector<int64_t>& seeds, int64_t fanout, bool replace, uint64_t seed) {
  Encoder e;
  EncodeSample(&e, IdsArray(seeds), Hop(fanout, replace, seed));
  return e.Finish().Flatten();
}

// Sends expensive requests as fast as the server answers them, keeping
// `depth` in flight, until stop.
void Hammer(int port, const std::string& payload, int depth, std::atomic<bool>* stop, std::atomic<int64_t>* done) {
  RawClient c(port, /*quiet=*/true);
  if (!c.ok() || !c.TryHello(kToken)) return;
  uint64_t id = 1;
  for (int i = 0; i < depth; ++i) c.SendFrame(uint16_t(MsgType::kSampleNeighbors), id++, payload);
  FrameHeader h;
  std::string p;
  while (!stop->load()) {
    if (!c.ReadFrame(&h, &p, 30)) return;
    ++*done;
    c.SendFrame(uint16_t(MsgType::kSampleNeighbors), id++, payload);
  }
}

struct Latency {
  double p50_ms, p99_ms, max_ms;
  size_t count;
};

// Sequential PULLs of 64 rows from a fresh client, at least `n` and until the
// hostile client has had `hostile_more` more requests answered (so the two
// overlap); checks every answer.
Latency MeasurePulls(const TestGraph& tg, const ServerCluster& cluster, int n, const std::atomic<int64_t>* hostile,
                     int64_t hostile_more) {
  auto client = ConnectClient(tg, cluster, FastClientOptions(), kToken);
  std::vector<double> ms;
  std::mt19937_64 rng(5);
  const int64_t f = tg.g.features.row_elems();
  const int64_t hostile_until = hostile->load() + hostile_more;
  const auto give_up = Clock::now() + std::chrono::seconds(120);
  for (int k = 0; k < n || (hostile->load() < hostile_until && Clock::now() < give_up); ++k) {
    std::vector<int64_t> ids(64);
    for (auto& v : ids) v = static_cast<int64_t>(rng() % tg.g.num_nodes);
    auto t0 = Clock::now();
    auto rows = client->Pull("features", ids);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    REQUIRE(rows.ok());
    for (size_t i = 0; i < ids.size(); ++i)
      REQUIRE(std::memcmp(rows->as<float>() + i * f, tg.g.features.as<float>() + ids[i] * f, f * 4) == 0);
  }
  std::sort(ms.begin(), ms.end());
  return Latency{ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back(), ms.size()};
}

Latency PullsUnderHammer(const TestGraph& tg, const std::vector<std::string>& extra, int64_t* hammer_done) {
  ServerCluster cluster;
  std::vector<std::string> args = {"--max-frame-bytes", "67108864"};  // the fixture runs 2 threads
  args.insert(args.end(), extra.begin(), extra.end());
  cluster.Start(tg.json, 1, 1, kToken, args);
  std::vector<int64_t> seeds;
  for (int64_t v = 0; v < 200; ++v) seeds.push_back(v);
  // 200 seeds x 20000 with replacement = 4M samples, 64 MB answers: each
  // request keeps a pool thread busy for tens of milliseconds.
  const std::string payload = SamplePayload(seeds, 20000, true, 9);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> done{0};
  std::thread hammer(Hammer, cluster.port(0, 0), payload, 32, &stop, &done);
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (done.load() < 4 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(done.load() >= 4);  // the hammer is in full swing
  Latency l = MeasurePulls(tg, cluster, 300, &done, 20);
  stop = true;
  hammer.join();
  *hammer_done = done.load();
  return l;
}

}  // namespace

TEST_CASE("one client hammering a 2-thread server does not starve another's PULL", "[server][hostile]") {
  auto tg = MakeTestGraph(20000, 200000, 32, 1, 131, /*power_law=*/true);
  int64_t hammered = 0;
  Latency fair = PullsUnderHammer(*tg, {}, &hammered);
  WARN("PULL under a hostile SAMPLE_NEIGHBORS client, fair scheduling: p50 " << fair.p50_ms << " ms, p99 "
                                                                          << fair.p99_ms << " ms, max " << fair.max_ms
                                                                          << " ms over " << fair.count
                                                                          << " PULLs (" << hammered
                                                                          << " hostile requests answered)");
  int64_t hammered_unfair = 0;
  Latency unfair = PullsUnderHammer(*tg, {"--max-threads-per-connection", "2"}, &hammered_unfair);
  WARN("same with the hostile client allowed both threads: p50 " << unfair.p50_ms << " ms, p99 " << unfair.p99_ms
                                                                 << " ms, max " << unfair.max_ms << " ms over "
                                                                 << unfair.count << " PULLs");
  CHECK(fair.p99_ms < 100);
}

namespace {

// A valid request of each kind, against the test graph.
std::vector<std::pair<uint16_t, std::string>> ValidRequests(const TestGraph& tg) {
  std::vector<std::pair<uint16_t, std::string>> out;
  Encoder e;
  EncodePull(&e, TensorKind::kNode, "features", IdsArray({1, 2, 3, 4}));
  out.emplace_back(uint16_t(MsgType::kPull), e.Finish().Flatten());
  EncodePull(&e, TensorKind::kNode, "mut", IdsArray({0, 1}));
  out.emplace_back(uint16_t(MsgType::kPull), e.Finish().Flatten());
  Array rows = Array::Zeros(DType::kFloat32, {2, 8});
  EncodePush(&e, "mut", PushMode::kAdd, IdsArray({0, 5}), rows);
  out.emplace_back(uint16_t(MsgType::kPush), e.Finish().Flatten());
  InitTensorSpec s;
  s.name = "mut";
  s.shape = {tg.g.num_nodes, 8};
  s.init = Initializer::kUniform;
  s.a = -1;
  s.b = 1;
  EncodeInitTensor(&e, s);
  out.emplace_back(uint16_t(MsgType::kInitTensor), e.Finish().Flatten());
  EncodeSample(&e, IdsArray({1, 2, 3, 50}), Hop(5, false, 3));
  out.emplace_back(uint16_t(MsgType::kSampleNeighbors), e.Finish().Flatten());
  EncodeSample(&e, IdsArray({7, 8}), Hop(100, true, 3));
  out.emplace_back(uint16_t(MsgType::kSampleNeighbors), e.Finish().Flatten());
  e.ArrayRef(IdsArray({1, 2, 3}));
  out.emplace_back(uint16_t(MsgType::kInDegrees), e.Finish().Flatten());
  out.emplace_back(uint16_t(MsgType::kMetadata), "");
  out.emplace_back(uint16_t(MsgType::kStats), "");
  EncodeBarrier(&e, BarrierRequest{"b", 1});
  out.emplace_back(uint16_t(MsgType::kBarrier), e.Finish().Flatten());
  SparseUpdateRequest r;
  r.name = "mut";
  r.optimizer.lr = 0.1;
  r.optimizer.eps = 1e-10;
  r.contributors = 1;
  r.ids = IdsArray({0, 1});
  r.grads = rows;
  EncodeSparseUpdate(&e, r);
  out.emplace_back(uint16_t(MsgType::kSparseUpdate), e.Finish().Flatten());
  return out;
}

void Mutate(std::mt19937_64& rng, uint16_t* type, std::string* p) {
  const int kind = static_cast<int>(rng() % 6);
  if (kind == 0 && !p->empty()) {  // bit flips
    for (int k = 1 + rng() % 4; k > 0; --k) (*p)[rng() % p->size()] ^= char(1u << (rng() % 8));
  } else if (kind == 1 && !p->empty()) {  // truncation
    p->resize(rng() % p->size());
  } else if (kind == 2 && p->size() >= 8) {  // an extreme integer at a random offset
    static const int64_t kExtreme[] = {INT64_MAX, INT64_MIN, -1, int64_t(1) << 62, int64_t(1) << 40, 0x7fffffff,
                                       0xffffffffLL};
    int64_t v = kExtreme[rng() % 7];
    std::memcpy(p->data() + rng() % (p->size() - 7), &v, 8);
  } else if (kind == 3) {  // a random type
    *type = static_cast<uint16_t>(rng() % 40);
  } else if (kind == 4) {  // appended garbage
    for (int k = rng() % 16; k > 0; --k) p->push_back(char(rng()));
  }  // kind 5: unchanged
}

void MutationClient(int port, uint64_t seed, const std::vector<std::pair<uint16_t, std::string>>* valid,
                    std::atomic<bool>* stop, std::atomic<int64_t>* sent) {
  std::mt19937_64 rng(seed);
  while (!stop->load()) {
    RawClient c(port, /*quiet=*/true);
    if (!c.ok() || !c.TryHello(kToken)) continue;
    uint64_t id = 1;
    // Pipelined bursts; read what comes back; a closed connection is redialled.
    bool open = true;
    while (open && !stop->load()) {
      for (int k = 0; k < 8; ++k) {
        auto [type, payload] = (*valid)[rng() % valid->size()];
        Mutate(rng, &type, &payload);
        c.SendFrame(type, id++, payload);
        ++*sent;
      }
      FrameHeader h;
      std::string p;
      for (int k = 0; k < 8 && open; ++k) open = c.ReadFrame(&h, &p, 0.1) || !c.WaitClosed(0.01);
    }
  }
}

}  // namespace

TEST_CASE("mutated requests from several clients: RSS bounded, answers identical afterwards", "[server][hostile]") {
  auto tg = MakeTestGraph(3000, 20000, 8, 1, 132, /*power_law=*/true);
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken,
                {"--max-frame-bytes", "4194304", "--mutable-tensor-bytes", "67108864"});
  const pid_t pid = cluster.proc(0, 0).pid();
  std::vector<int64_t> ids = {0, 17, 2999, 1500};
  std::vector<int64_t> seeds = {1, 2, 3, 100, 2999};
  auto fixed = [&](Array* rows, SampledEdges* sampled) {
    auto client = ConnectClient(*tg, cluster, FastClientOptions(), kToken);
    auto r = client->Pull("features", ids);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    *rows = *r;
    auto s = client->SampleNeighbors(seeds, Hop(7, false, 42));
    REQUIRE(s.ok());
    *sampled = *s;
  };
  Array before_rows;
  SampledEdges before_sampled;
  fixed(&before_rows, &before_sampled);
  const int64_t rss0 = RssBytes(pid);

  const auto valid = ValidRequests(*tg);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> sent{0};
  std::vector<std::thread> clients;
  for (int k = 0; k < 4; ++k) clients.emplace_back(MutationClient, cluster.port(0, 0), 100 + k, &valid, &stop, &sent);
  int64_t peak = rss0;
  const auto t_end = Clock::now() + std::chrono::seconds(8);
  while (Clock::now() < t_end) {
    peak = std::max(peak, RssBytes(pid));
    REQUIRE(cluster.proc(0, 0).running());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // sampling period, not synchronisation
  }
  stop = true;
  for (auto& t : clients) t.join();
  WARN(sent.load() << " mutated requests; server RSS " << rss0 / 1048576 << " MB before, peak " << peak / 1048576
                   << " MB");
  REQUIRE(cluster.proc(0, 0).running());
  CHECK(peak < rss0 + (int64_t(512) << 20));

  Array after_rows;
  SampledEdges after_sampled;
  fixed(&after_rows, &after_sampled);
  REQUIRE(after_rows.nbytes() == before_rows.nbytes());
  CHECK(std::memcmp(after_rows.data, before_rows.data, before_rows.nbytes()) == 0);
  CHECK(after_sampled.offsets == before_sampled.offsets);
  CHECK(after_sampled.src == before_sampled.src);
  CHECK(after_sampled.eids == before_sampled.eids);
}

TEST_CASE("a client that never reads its answers cannot grow the server's memory", "[server][hostile]") {
  auto tg = MakeTestGraph(2000, 10000, 1024, 1, 133);  // 4 KB rows
  ServerCluster cluster;
  cluster.Start(tg->json, 1, 1, kToken, {"--max-frame-bytes", "2097152"});
  const pid_t pid = cluster.proc(0, 0).pid();
  const int64_t rss0 = RssBytes(pid);
  std::vector<int64_t> ids(256);
  for (int i = 0; i < 256; ++i) ids[i] = i;
  Encoder e;
  EncodePull(&e, TensorKind::kNode, "features", IdsArray(ids));
  const std::string pull = e.Finish().Flatten();  // ~2 KB asking for 1 MB
  std::atomic<bool> sent{false};
  RawClient greedy(cluster.port(0, 0), /*quiet=*/true);
  REQUIRE(greedy.TryHello(kToken));
  // 600 requests = 600 MB of answers if the server queued them all. The
  // sender may block once the server stops reading: that is the point.
  struct Joiner {  // unblocks and joins the sender on every exit path
    RawClient& c;
    std::thread t;
    ~Joiner() {
      ::shutdown(c.fd(), SHUT_RDWR);
      if (t.joinable()) t.join();
    }
  } joiner{greedy, {}};
  joiner.t = std::thread([&] {
    for (int k = 0; k < 600; ++k) greedy.SendFrame(uint16_t(MsgType::kPull), k + 1, pull);
    sent = true;
  });
  // Wait until answers pile up unread in the greedy client's socket.
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  int unread = 0;
  while (Clock::now() < deadline && (::ioctl(greedy.fd(), FIONREAD, &unread) != 0 || unread < (64 << 10)))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(unread >= (64 << 10));  // (the loopback receive buffer of a socket never read stays small)
  // Others are still served while the greedy client's answers pile up.
  for (int round = 0; round < 20; ++round) {
    auto client = ConnectClient(*tg, cluster, FastClientOptions(), kToken);
    auto rows = client->Pull("features", std::vector<int64_t>{5, 1999});
    REQUIRE(rows.ok());
    CHECK(std::memcmp(rows->as<float>(), tg->g.features.as<float>() + 5 * 1024, 4096) == 0);
  }
  const int64_t rss = RssBytes(pid);
  WARN("server RSS " << rss0 / 1048576 << " MB before, " << rss / 1048576 << " MB with a client not reading "
                     << (sent ? "(all 600 requests sent)" : "(its sends blocked: the server stopped reading)"));
  CHECK(rss < rss0 + (int64_t(128) << 20));
  REQUIRE(cluster.proc(0, 0).running());
}
