// A rank's progress clock: reset at each stage start (Progress(stage)), each
// exchange round or message (Progress()) and each MPI call that completes
// communication, PT-Scotch's included (the PMPI wrappers of
// runtime/progress_shim.cpp). It counts only waiting: it runs while a thread
// of the rank is inside a blocking MPI call (or polls a request that has not
// completed) and is reset when the rank enters one after computing, so a long
// computation between two MPI calls is never a stall, while a wait on a peer
// that is gone is. The watchdog (runtime/watchdog.h) reads it; the run's
// summary prints the longest wait it saw (GetProgressStats).
#pragma once

#include <cstdint>

namespace dg::mpi {

// A new stage (a string literal: kept by pointer) and a reset clock.
void Progress(const char* stage);
// The clock reset within the stage.
void Progress();

// From the PMPI wrappers (any thread; a few atomic operations, cheap beside
// the call). Around a blocking call: EnterMpi() before, LeaveMpi(completed)
// after. A test: Polled(completed).
void EnterMpi();
void LeaveMpi(bool completed);
void Polled(bool completed);

// The stage the rank is in, and how long it has waited inside MPI since the
// last mark (0 while it computes).
const char* CurrentStage();
double SecondsWaiting();

struct ProgressStats {
  double longest_wait_s = 0;  // the clock's longest run inside MPI, ended by a completed call
  double longest_gap_s = 0;   // between two marks, computing included
  int64_t mpi_marks = 0;      // completed MPI calls so far
};
ProgressStats GetProgressStats();

}  // namespace dg::mpi
