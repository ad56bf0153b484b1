// The server's deferred replies on their own: Barriers and SparseSteps
// (roles/server/barriers.h, sparse_steps.h) driven by real threads, with the
// step deadlines on a running io_context; and the handler table's entries.
#include <atomic>
#include <boost/asio.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "roles/server/barriers.h"
#include "roles/server/handler_table.h"
#include "roles/server/sparse_steps.h"

using namespace dg;

namespace {

// Collects the statuses a set of waiters were answered with.
struct Answers {
  std::mutex mu;
  std::vector<Status> got;
  DeferredReply Reply() {
    return [this](const Status& st) {
      std::lock_guard<std::mutex> l(mu);
      got.push_back(st);
    };
  }
  size_t size() {
    std::lock_guard<std::mutex> l(mu);
    return got.size();
  }
};

SparseUpdateRequest Contribution(const std::string& name, uint64_t step, uint32_t w, uint32_t rank,
                                 std::vector<int64_t>* ids, std::vector<float>* grads) {
  SparseUpdateRequest r;
  r.name = name;
  r.step = step;
  r.contributors = w;
  r.rank = rank;
  r.optimizer = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdagrad, 0.1);
  r.ids = IdsView(ids->data(), ids->size());
  r.grads.dtype = DType::kFloat32;
  r.grads.shape = {static_cast<int64_t>(ids->size()), 1};
  r.grads.data = grads->data();
  return r;
}

bool WaitFor(const std::function<bool()>& done, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace

TEST_CASE("Barriers answer all participants once the last arrives, from many threads", "[server][deferred]") {
  PendingSlots slots(100);
  Barriers barriers(&slots);
  constexpr int kRounds = 50, kThreads = 8;
  Answers answers;
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r)
        if (!barriers.Arrive("round-" + std::to_string(r), kThreads, answers.Reply()).ok()) ++refused;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(refused == 0);
  CHECK(answers.size() == size_t(kRounds * kThreads));
  for (const Status& st : answers.got) CHECK(st.ok());
  CHECK(barriers.open() == 0);
  CHECK(slots.used() == 0);
}

TEST_CASE("Barriers refuse a disagreeing count and the pending limit, and Close fails the waiters", "[server][deferred]") {
  PendingSlots slots(2);
  Barriers barriers(&slots);
  Answers answers;
  REQUIRE(barriers.Arrive("a", 3, answers.Reply()).ok());
  Status wrong = barriers.Arrive("a", 2, answers.Reply());
  CHECK(wrong.code() == Status::Code::kInvalidArgument);
  CHECK(wrong.message().find("2 participants, but others use 3") != std::string::npos);
  REQUIRE(barriers.Arrive("b", 2, answers.Reply()).ok());
  Status full = barriers.Arrive("c", 2, answers.Reply());
  CHECK(full.code() == Status::Code::kResourceExhausted);
  CHECK(full.message().find("limits.max_pending") != std::string::npos);
  CHECK(answers.size() == 0);
  barriers.Close();
  REQUIRE(answers.size() == 2);
  for (const Status& st : answers.got) CHECK(st.code() == Status::Code::kPeerLost);
  CHECK(slots.used() == 0);
  CHECK(barriers.Arrive("d", 1, answers.Reply()).code() == Status::Code::kPeerLost);
}

TEST_CASE("SparseSteps apply a step once, in rank order, when its last contributor arrives", "[server][deferred]") {
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  std::thread io_thread([&] { io.run(); });
  PendingSlots slots(100);
  std::mutex mu;
  std::vector<std::pair<uint64_t, std::vector<float>>> applied;  // (step, each rank's first grad)
  SparseSteps steps(io, SparseSteps::Limits{int64_t(1) << 30, 30.0}, &slots,
                    [&](const std::string&, const SparseOptimizerSpec&, uint64_t step,
                        const std::vector<SparseGrad>& by_rank) {
                      std::vector<float> firsts;
                      for (const SparseGrad& g : by_rank) firsts.push_back(g.grads.as<float>()[0]);
                      std::lock_guard<std::mutex> l(mu);
                      applied.emplace_back(step, firsts);
                      return Status::OK();
                    });
  constexpr uint32_t kW = 6;
  constexpr int kSteps = 20;
  std::vector<std::vector<int64_t>> ids(kW, std::vector<int64_t>{1});
  std::vector<std::vector<std::vector<float>>> grads(kW);
  Answers answers;
  std::vector<std::thread> ranks;
  for (uint32_t r = 0; r < kW; ++r) {
    grads[r].resize(kSteps);
    ranks.emplace_back([&, r] {
      for (int s = 0; s < kSteps; ++s) {
        grads[r][s] = {float(r)};
        REQUIRE(steps.Contribute(Contribution("emb", s, kW, r, &ids[r], &grads[r][s]), 64, answers.Reply()).ok());
      }
    });
  }
  for (auto& t : ranks) t.join();
  REQUIRE(WaitFor([&] { return answers.size() == kW * kSteps; }, 10));
  for (const Status& st : answers.got) CHECK(st.ok());
  REQUIRE(applied.size() == size_t(kSteps));
  std::set<uint64_t> stepped;
  for (auto& [step, firsts] : applied) {
    stepped.insert(step);
    CHECK(firsts == std::vector<float>{0, 1, 2, 3, 4, 5});
  }
  CHECK(stepped.size() == size_t(kSteps));  // each step applied once, with its own number
  CHECK(*stepped.rbegin() == uint64_t(kSteps - 1));
  CHECK(steps.open() == 0);
  CHECK(steps.pending_bytes() == 0);
  CHECK(slots.used() == 0);
  guard.reset();
  io.stop();
  io_thread.join();
}

TEST_CASE("SparseSteps refuse bad contributions and expire late steps naming the missing ranks", "[server][deferred]") {
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  std::thread io_thread([&] { io.run(); });
  PendingSlots slots(100);
  std::atomic<int> applies{0};
  SparseSteps steps(io, SparseSteps::Limits{1000, 0.3}, &slots,
                    [&](const std::string&, const SparseOptimizerSpec&, uint64_t, const std::vector<SparseGrad>&) {
                      ++applies;
                      return Status::OK();
                    });
  std::vector<int64_t> ids{1};
  std::vector<float> g{1};
  Answers answers;
  REQUIRE(steps.Contribute(Contribution("emb", 7, 3, 1, &ids, &g), 64, answers.Reply()).ok());
  // The same rank twice, another W, another optimizer: refused, the step keeps waiting.
  CHECK(steps.Contribute(Contribution("emb", 7, 3, 1, &ids, &g), 64, answers.Reply()).message().find(
            "rank 1 already contributed") != std::string::npos);
  CHECK(steps.Contribute(Contribution("emb", 7, 4, 2, &ids, &g), 64, answers.Reply()).message().find(
            "4 contributors, but this step's first contribution said 3") != std::string::npos);
  SparseUpdateRequest adam = Contribution("emb", 7, 3, 2, &ids, &g);
  adam.optimizer = SparseOptimizerSpec::Defaults(SparseOptimizerKind::kAdam, 0.1);
  CHECK(steps.Contribute(adam, 64, answers.Reply()).code() == Status::Code::kInvalidArgument);
  // Over max_pending_bytes: refused.
  CHECK(steps.Contribute(Contribution("emb", 8, 2, 0, &ids, &g), 5000, answers.Reply()).code() ==
        Status::Code::kResourceExhausted);
  REQUIRE(steps.Contribute(Contribution("emb", 7, 3, 0, &ids, &g), 64, answers.Reply()).ok());
  REQUIRE(WaitFor([&] { return answers.size() == 2; }, 10));
  for (const Status& st : answers.got) {
    CHECK(st.code() == Status::Code::kTimeout);
    CHECK(st.message().find("only 2 of 3 contributors arrived") != std::string::npos);
    CHECK(st.message().find("missing ranks 2") != std::string::npos);
  }
  CHECK(applies == 0);
  CHECK(steps.open() == 0);
  CHECK(slots.used() == 0);
  // Close: an open step fails with PeerLost; later contributions are refused.
  Answers closing;
  REQUIRE(steps.Contribute(Contribution("emb", 9, 2, 0, &ids, &g), 64, closing.Reply()).ok());
  steps.Close();
  REQUIRE(closing.size() == 1);
  CHECK(closing.got[0].code() == Status::Code::kPeerLost);
  CHECK(steps.Contribute(Contribution("emb", 10, 1, 0, &ids, &g), 64, closing.Reply()).code() ==
        Status::Code::kPeerLost);
  guard.reset();
  io.stop();
  io_thread.join();
}

TEST_CASE("handler table: every server request has a handler and a role policy, and nothing else does",
          "[server][deferred]") {
  for (uint16_t t = 0; t < 256; ++t) {
    const HandlerEntry* e = FindHandler(t);
    const bool request = t >= uint16_t(MsgType::kPull) && t <= uint16_t(kLastServerRequest) && IsKnownMsgType(t);
    INFO(MsgTypeName(t));
    CHECK((e != nullptr) == request);
  }
  CHECK(FindHandler(uint16_t(MsgType::kPull))->access == Access::kRead);
  CHECK(FindHandler(uint16_t(MsgType::kPush))->access == Access::kWrite);
  CHECK(FindHandler(uint16_t(MsgType::kShutdown))->access == Access::kStop);
  CHECK(FindHandler(uint16_t(MsgType::kBarrier))->run_on == RunOn::kStrand);
  CHECK(CheckRoleAllows("sampler", 3, uint16_t(MsgType::kPush), Access::kWrite).message() ==
        "sampler 3 may not send PUSH (samplers only read: PULL, SAMPLE_NEIGHBORS, IN_DEGREES, METADATA, STATS, "
        "PULL_AGGREGATE, PULL_BLOCK, SAMPLE_BLOCK)");
  CHECK(CheckRoleAllows("client", 0, uint16_t(MsgType::kShutdown), Access::kStop).code() ==
        Status::Code::kInvalidArgument);
  CHECK(CheckRoleAllows("trainer", 0, uint16_t(MsgType::kShutdown), Access::kStop).ok());
}
