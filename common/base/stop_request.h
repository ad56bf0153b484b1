// A request to stop at the next safe point: SIGTERM, as systemd (`systemctl
// stop`), Slurm (`scancel`, the time limit, `--signal`), Kubernetes (pod
// deletion) and `distgnn launch` send it.
//
// A process that calls InstallStopOnSigterm() no longer dies on SIGTERM: the
// signal only sets a flag (every time; repeated signals change nothing) that
// the process reads at its safe points. Trainers finish the step they are in,
// write a step checkpoint and exit with kExitPreempted (roles/trainer/loop/
// epoch_loop.h); servers and samplers keep serving the trainers still
// connected to them, at most network.stop_seconds (docs/clusters.md). SIGINT
// keeps its default: Ctrl-C stops at once. Async-signal-safe; torch-free.
#pragma once

namespace dg {

// Makes SIGTERM set the stop flag. Idempotent.
void InstallStopOnSigterm();
// Whether SIGTERM (or RequestStop) arrived since the start.
bool StopRequested();
// Sets the flag as SIGTERM does (tests; a process that stops itself).
void RequestStop();
// Clears the flag (tests that run again in the process after a stop).
void ClearStopRequest();

}  // namespace dg
