// A rank's progress deadline. When a host is cut off from the others while
// its processes live (a pulled cable, a dead switch port), the ranks that
// wait on it block in MPI calls without end: TCP retransmits for many minutes
// and OpenMPI sees no failed process. Every rank therefore runs a thread
// that watches the progress clock (runtime/progress_clock.h), which counts
// only waiting inside MPI, so a long computation between two MPI calls
// (PT-Scotch refining a band graph on every rank for minutes) is never a
// stall, while a wait on a peer that is gone is. When the clock is older than the deadline
// (--progress-timeout), the rank prints one line naming its rank, host and
// stage, removes its staging and scratch directories (as on SIGTERM,
// runtime/stage.h) and calls MPI_Abort; if the process is still alive 10 s later
// (an abort that waits on the unreachable host) it exits itself.
#pragma once

namespace dg::mpi {

struct Rank;

// seconds <= 0: no watchdog.
void StartWatchdog(const Rank& r, double seconds);

}  // namespace dg::mpi
