#include "roles/partition/mpi/mpi_watchdog.h"

#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "roles/partition/mpi/mpi_exchange.h"
#include "roles/partition/mpi/mpi_stage.h"

namespace dg::mpi {

namespace {

std::atomic<int64_t> g_last_ns{0};  // the clock; 0: no mark yet
std::atomic<int> g_in_mpi{0};       // threads inside a blocking MPI call
std::atomic<bool> g_polling{false};  // a test found a request incomplete since the last mark
std::atomic<int64_t> g_longest_wait_ns{0}, g_longest_gap_ns{0}, g_mpi_marks{0};
std::atomic<const char*> g_stage{"start"};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void KeepMax(std::atomic<int64_t>* m, int64_t v) {
  int64_t cur = m->load(std::memory_order_relaxed);
  while (v > cur && !m->compare_exchange_weak(cur, v)) {
  }
}

// Resets the clock; returns how long it ran (0 for the first mark).
int64_t Mark() {
  const int64_t now = NowNs();
  const int64_t prev = g_last_ns.exchange(now);
  if (prev == 0) return 0;
  KeepMax(&g_longest_gap_ns, now - prev);
  return now - prev;
}

// A completed MPI call: the clock ran while the rank waited.
void MarkCompleted() {
  g_mpi_marks.fetch_add(1, std::memory_order_relaxed);
  g_polling.store(false, std::memory_order_relaxed);
  KeepMax(&g_longest_wait_ns, Mark());
}

bool Waiting() { return g_in_mpi.load() > 0 || g_polling.load(); }

[[noreturn]] void Abort(const std::string& who, double seconds) {
  std::fprintf(stderr,
               "distgnn-mpi-partition: %s: no progress for %.0f s in stage '%s' (another rank or its host is "
               "unreachable, or --progress-timeout is shorter than a wait of this stage); aborting\n",
               who.c_str(), seconds, g_stage.load());
  std::fflush(stderr);
  RemoveStageAndScratch();
  std::thread([] {  // MPI_Abort may wait on the host that is cut off
    std::this_thread::sleep_for(std::chrono::seconds(10));
    ::_exit(1);
  }).detach();
  MPI_Abort(MPI_COMM_WORLD, 1);
  ::_exit(1);
}

}  // namespace

void Progress(const char* stage) {
  g_stage.store(stage);
  Mark();
}

void Progress() { Mark(); }

void EnterMpi() {
  // The first thread in after computing: the wait starts now.
  if (g_in_mpi.fetch_add(1) == 0 && !g_polling.load()) Mark();
}

void LeaveMpi(bool completed) {
  if (completed) MarkCompleted();
  g_in_mpi.fetch_sub(1);
}

void Polled(bool completed) {
  if (completed) MarkCompleted();
  else if (!g_polling.exchange(true) && g_in_mpi.load() == 0) Mark();  // the first miss starts the wait
}

ProgressStats GetProgressStats() {
  ProgressStats s;
  s.longest_wait_s = static_cast<double>(g_longest_wait_ns.load()) / 1e9;
  s.longest_gap_s = static_cast<double>(g_longest_gap_ns.load()) / 1e9;
  s.mpi_marks = g_mpi_marks.load();
  return s;
}

void StartWatchdog(const Rank& r, double seconds) {
  if (seconds <= 0) return;
  Progress();
  const std::string who = r.Name();
  std::thread([who, seconds] {
    const int64_t limit = static_cast<int64_t>(seconds * 1e9);
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (Waiting() && NowNs() - g_last_ns.load() > limit) Abort(who, seconds);
    }
  }).detach();
}

}  // namespace dg::mpi
