// The launcher: runs a LaunchPlan (launch_plan.h) and tears it down.
//
// Order: every server; wait until each server's port accepts TCP connections
// (deadline; a server that does not come up is named with its last log lines);
// then the trainers, then the samplers. Each process's stdout/stderr goes into
// its own log file; the console shows what console_view.h says (trainer 0's
// progress and epoch summaries, every process's warnings and errors; with
// `verbose` every line as "[machine/role/rank] line").
// When every trainer has exited 0, samplers get a short grace to finish, then
// samplers and servers are stopped (SHUTDOWN frames, then SIGINT, SIGKILL after
// the grace period; remote processes by `ssh TARGET pkill -f <job-id pattern>`),
// and Run returns OK.
// SIGTERM to the launcher (scancel, systemd, a pod's deletion), or a trainer
// that exits kExitPreempted because it got SIGTERM itself, makes the launcher
// send SIGTERM to every trainer: they finish their step, write the step
// checkpoint of the same step and exit kExitPreempted within
// network.stop_seconds; then samplers and servers are stopped as above and
// Run returns a Stopped status ("preempted: ..."; `launch --resume` continues).
// If any process fails (non-zero exit, a signal, ssh exit 255 = host
// unreachable, a server exiting early), the launcher gets SIGINT/SIGHUP (or
// SIGTERM before the trainers started), or trainers outlive
// network.stop_seconds after SIGTERM, everything is stopped the same way at
// once and Run returns an error naming it.
// Local children run in their own process group with PR_SET_PDEATHSIG, and every
// child is waited for: nothing is left behind.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "config/job_config.h"
#include "roles/launcher/launch_plan.h"

namespace dg {

struct LaunchSettings {
  double server_timeout_s = 60;  // servers must accept connections by then
  double grace_s = 5;            // SIGTERM -> SIGKILL
  double sampler_grace_s = 5;    // after the trainers finish, samplers may exit on their own
  bool echo = true;              // false: process output only to the log files
  bool verbose = false;          // every process line to the console, not only trainer 0's progress
  bool tty = false;              // the console is a terminal: redraw a progress bar in place
};

Status RunLaunchPlan(const JobConfig& config, const LaunchPlan& plan, const LaunchSettings& settings);

// The signal (SIGINT/SIGTERM/SIGHUP) the last RunLaunchPlan received, or 0.
int LaunchInterruptSignal();

// Plan options for this process: local binary = this executable; the env var
// DISTGNN_LAUNCH_BINARY (tests) replaces the binary of every process.
PlanOptions DefaultPlanOptions();

// The path of the running executable (/proc/self/exe).
std::string SelfExecutable();

// The launcher tools' exit code for `status`: 0 when ok, else 1 after printing
// "PROGRAM: error: CODE: message" to stderr.
int ToolExitCode(const std::string& program, const Status& status);

// The launcher tools' config load: the job YAML with `sets` applied, or
// nullopt after printing "PROGRAM: error: message" to stderr.
std::optional<JobConfig> LoadJobConfigOrSay(const std::string& program, const std::string& file,
                                            const std::vector<std::string>& sets);

}  // namespace dg
