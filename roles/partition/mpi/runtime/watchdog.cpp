#include "roles/partition/mpi/runtime/watchdog.h"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "roles/partition/mpi/runtime/exchange.h"
#include "roles/partition/mpi/runtime/progress_clock.h"
#include "roles/partition/mpi/runtime/stage.h"

namespace dg::mpi {

namespace {

[[noreturn]] void Abort(const std::string& who, double seconds) {
  std::fprintf(stderr,
               "distgnn-mpi-partition: %s: no progress for %.0f s in stage '%s' (another rank or its host is "
               "unreachable, or --progress-timeout is shorter than a wait of this stage); aborting\n",
               who.c_str(), seconds, CurrentStage());
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

void StartWatchdog(const Rank& r, double seconds) {
  if (seconds <= 0) return;
  Progress();
  const std::string who = r.Name();
  std::thread([who, seconds] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (SecondsWaiting() > seconds) Abort(who, seconds);
    }
  }).detach();
}

}  // namespace dg::mpi
