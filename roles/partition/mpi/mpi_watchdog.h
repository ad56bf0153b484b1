// A rank's progress deadline. When a host is cut off from the others while
// its processes live (a pulled cable, a dead switch port), the ranks that
// wait on it block in MPI calls without end: TCP retransmits for many minutes
// and OpenMPI sees no failed process. Every rank therefore runs a thread
// that watches a progress clock, reset at each stage start (Progress(stage)),
// each exchange round or message (Progress()) and each MPI call that
// completes communication, PT-Scotch's included (the PMPI wrappers of
// mpi_progress_shim.cpp). The clock counts only waiting: it runs while a
// thread of the rank is inside a blocking MPI call (or polls a request that
// has not completed) and is reset when the rank enters one after computing,
// so a long computation between two MPI calls (PT-Scotch refining a band
// graph on every rank for minutes) is never a stall, while a wait on a peer
// that is gone is. When the clock is older than the deadline
// (--progress-timeout), the rank prints one line naming its rank, host and
// stage, removes its staging and scratch directories (as on SIGTERM,
// mpi_stage.h) and calls MPI_Abort; if the process is still alive 10 s later
// (an abort that waits on the unreachable host) it exits itself. The run's
// summary prints the longest wait it saw (GetProgressStats).
#pragma once

#include <cstdint>

namespace dg::mpi {

struct Rank;

// seconds <= 0: no watchdog.
void StartWatchdog(const Rank& r, double seconds);
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

struct ProgressStats {
  double longest_wait_s = 0;  // the clock's longest run inside MPI, ended by a completed call
  double longest_gap_s = 0;   // between two marks, computing included
  int64_t mpi_marks = 0;      // completed MPI calls so far
};
ProgressStats GetProgressStats();

}  // namespace dg::mpi
