// A rank's progress deadline. When a host is cut off from the others while
// its processes live (a pulled cable, a dead switch port), the ranks that
// wait on it block in MPI calls without end: TCP retransmits for many minutes
// and OpenMPI sees no failed process. Every rank therefore runs a thread
// that watches a progress clock, reset at each stage start (Progress(stage))
// and each exchange round or message (Progress()). When the clock is older
// than the deadline (--progress-timeout), the rank prints one line naming its
// rank, host and stage, removes its staging and scratch directories (as on
// SIGTERM, mpi_stage.h) and calls MPI_Abort; if the process is still alive
// 10 s later (an abort that waits on the unreachable host) it exits itself.
// PT-Scotch's partitioning is one call without progress marks, so the
// deadline must exceed its longest run.
#pragma once

namespace dg::mpi {

struct Rank;

// seconds <= 0: no watchdog.
void StartWatchdog(const Rank& r, double seconds);
// A new stage (a string literal: kept by pointer) and a reset clock.
void Progress(const char* stage);
// The clock reset within the stage.
void Progress();

}  // namespace dg::mpi
