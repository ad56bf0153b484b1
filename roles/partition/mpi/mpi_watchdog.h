// A rank's progress deadline. When a host is cut off from the others while
// its processes live (a pulled cable, a dead switch port), the ranks that
// wait on it block in MPI calls without end: TCP retransmits for many minutes
// and OpenMPI sees no failed process. Every rank therefore runs a thread
// that watches a progress clock, reset at each stage start (Progress(stage)),
// each exchange round or message (Progress()) and each MPI call that
// completes communication, PT-Scotch's included (MpiProgress(), from the
// PMPI wrappers of mpi_progress_shim.cpp). When the clock is older than the
// deadline (--progress-timeout), the rank prints one line naming its rank,
// host and stage, removes its staging and scratch directories (as on
// SIGTERM, mpi_stage.h) and calls MPI_Abort; if the process is still alive
// 10 s later (an abort that waits on the unreachable host) it exits itself.
// The deadline must exceed the longest compute between two completed MPI
// calls; the run's summary prints the longest gap it saw.
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
// The clock reset by a completed MPI call (any thread; an atomic exchange and
// a rarely taken compare-exchange, cheap beside the call).
void MpiProgress();

struct ProgressStats {
  double longest_gap_s = 0;  // between two marks of this rank
  int64_t mpi_marks = 0;     // MpiProgress() calls so far
};
ProgressStats GetProgressStats();

}  // namespace dg::mpi
