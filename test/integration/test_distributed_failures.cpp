// Failure behaviour of a distributed job, tested as gloo tests its transports:
// start the real processes (2 partitions of Cora, 1 server, 1 trainer and 1
// sampler per machine), SIGKILL or SIGSTOP one of them mid-training, and check
// that every trainer and sampler that depends on it exits non-zero within 10 s
// with a message naming it. Servers are long-lived and keep serving.
#include <catch2/catch.hpp>

#include "test/integration/dist_job.h"

using namespace dg::test;

namespace {

constexpr double kBoundSeconds = 10;

struct Expectation {
  std::string process;  // must exit non-zero within the bound
  std::string names;    // regex its output must match (names the victim)
};

// `someone_names`: a regex at least one of the expected processes' output
// matches (the first to notice names the victim; others may name whoever
// stopped because of it).
void KillMidTraining(const std::string& victim, int sig, const std::vector<Expectation>& expect,
                     const std::string& someone_names = "") {
  DistJobOptions o;
  o.parts = 2;
  o.samplers = 1;
  o.epochs = 100000;  // never ends by itself
  o.peer_timeout_seconds = 3;
  DistJob job(o);
  job.StartAll();
  INFO("victim " << victim << ", signal " << sig);
  bool started = WaitFor(120, [&] { return job.TrainingStarted(); });
  INFO(job.Logs());
  REQUIRE(started);
  job.Proc(victim).Signal(sig);
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& e : expect) {
    INFO(e.process);
    double left = kBoundSeconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int rc = job.Proc(e.process).Wait(std::max(0.0, left));
    INFO(job.Logs());
    CHECK(rc != -1);  // exited within the bound
    CHECK(rc != 0);
    CHECK(rc < 128);  // by its own exit, not a crash
    CHECK(std::regex_search(job.Proc(e.process).Output(), std::regex(e.names)));
  }
  if (!someone_names.empty()) {
    bool named = false;
    for (const auto& e : expect) named |= std::regex_search(job.Proc(e.process).Output(), std::regex(someone_names));
    INFO(job.Logs());
    CHECK(named);
  }
  if (sig == SIGSTOP) job.Proc(victim).Signal(SIGCONT);
}

}  // namespace

TEST_CASE("a sampler killed mid-epoch: its trainer names it, the other trainer names that trainer",
          "[distributed][failure]") {
  KillMidTraining("sampler-1-0", SIGKILL,
                  {{"trainer-1", "lost sampler 1 "}, {"trainer-0", "lost trainer 1"}, {"sampler-0-0", "trainer 0 "}});
}

TEST_CASE("a frozen sampler (SIGSTOP): its trainer names it by deadline", "[distributed][failure]") {
  KillMidTraining("sampler-0-0", SIGSTOP,
                  {{"trainer-0", "lost sampler 0 "}, {"trainer-1", "trainer 0 "}, {"sampler-1-0", "trainer 1 "}});
}

TEST_CASE("a trainer killed mid-run: the other trainer and its samplers name it", "[distributed][failure]") {
  KillMidTraining("trainer-1", SIGKILL,
                  {{"trainer-0", "lost trainer 1"}, {"sampler-1-0", "lost trainer 1 "}, {"sampler-0-0", "trainer 0 "}});
}

TEST_CASE("a frozen trainer (SIGSTOP): the other trainer and its samplers name it by deadline",
          "[distributed][failure]") {
  KillMidTraining("trainer-0", SIGSTOP,
                  {{"trainer-1", "trainer 0 "}, {"sampler-0-0", "lost trainer 0 "}, {"sampler-1-0", "trainer 1 "}});
}

TEST_CASE("a server killed mid-run: samplers and trainers that need it name it", "[distributed][failure]") {
  KillMidTraining("server-1", SIGKILL,
                  {{"sampler-0-0", "server, partition 1|trainer 0 "},
                   {"sampler-1-0", "server, partition 1|trainer 1 "},
                   {"trainer-0", "server, partition 1|trainer 1"},
                   {"trainer-1", "server, partition 1|trainer 0"}},
                  "\\(server, partition 1, index 0\\)");
}

TEST_CASE("a frozen server (SIGSTOP): samplers and trainers name it by deadline", "[distributed][failure]") {
  KillMidTraining("server-0", SIGSTOP,
                  {{"sampler-0-0", "server, partition 0|trainer 0 "},
                   {"sampler-1-0", "server, partition 0|trainer 1 "},
                   {"trainer-0", "server, partition 0|trainer 1"},
                   {"trainer-1", "server, partition 0|trainer 0"}},
                  "\\(server, partition 0, index 0\\)");
}
