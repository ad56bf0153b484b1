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

std::atomic<int64_t> g_last_ns{0};
std::atomic<const char*> g_stage{"start"};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
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
  g_last_ns.store(NowNs());
}

void Progress() { g_last_ns.store(NowNs()); }

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
