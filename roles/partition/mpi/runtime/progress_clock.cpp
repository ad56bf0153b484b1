#include "roles/partition/mpi/runtime/progress_clock.h"

#include <atomic>
#include <chrono>

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

const char* CurrentStage() { return g_stage.load(); }

double SecondsWaiting() {
  if (!Waiting()) return 0;
  return static_cast<double>(NowNs() - g_last_ns.load()) / 1e9;
}

}  // namespace dg::mpi
