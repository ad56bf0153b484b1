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

std::atomic<int64_t> g_last_ns{0};  // 0: no mark yet
std::atomic<int64_t> g_longest_gap_ns{0};
std::atomic<int64_t> g_mpi_marks{0};
std::atomic<const char*> g_stage{"start"};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Resets the clock and keeps the longest gap between two marks.
void Mark() {
  const int64_t now = NowNs();
  const int64_t prev = g_last_ns.exchange(now);
  if (prev == 0) return;
  const int64_t gap = now - prev;
  int64_t longest = g_longest_gap_ns.load(std::memory_order_relaxed);
  while (gap > longest && !g_longest_gap_ns.compare_exchange_weak(longest, gap)) {
  }
}

[[noreturn]] void Abort(const std::string& who, double seconds) {
  std::fprintf(stderr,
               "distgnn-mpi-partition: %s: no progress for %.0f s in stage '%s' (another rank or its host is "
               "unreachable, or --progress-timeout is shorter than this stage); aborting\n",
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

void MpiProgress() {
  g_mpi_marks.fetch_add(1, std::memory_order_relaxed);
  Mark();
}

ProgressStats GetProgressStats() {
  ProgressStats s;
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
      if (NowNs() - g_last_ns.load() > limit) Abort(who, seconds);
    }
  }).detach();
}

}  // namespace dg::mpi
