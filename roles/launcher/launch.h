// `distgnn launch`: start every role of a job on every machine, stream their
// output, and tear everything down at the end or on the first failure
// (launcher.h). Records RUN_DIR/run.json and job.yaml (token redacted) first
// and writes RUN_DIR/report.html at the end (train mode).
#pragma once

#include <string>
#include <vector>

#include "roles/launcher/launcher.h"

namespace dg {

struct LaunchJobOptions {
  std::string config;             // the job YAML
  std::vector<std::string> sets;  // key=value overrides
  std::string mode = "train";     // train | infer
  bool resume = false;            // trainers continue from their last complete checkpoint
  int max_restarts = -1;          // automatic restarts (restart.h); -1 = the YAML's restart.max
  int metrics_port = 0;           // = --set ports.metrics=N when given
  bool metrics_port_given = false;
  bool dry_run = false;           // print the plan only
  // Preempted inside a Slurm job (SLURM_JOB_ID): `scontrol requeue` it, so
  // the same batch script runs again and `--resume` continues the run.
  bool requeue = false;
  LaunchSettings settings;
};

// The process's exit code: 0; kExitPreempted (4) when the trainers stopped
// on SIGTERM with a checkpoint ("launch: preempted: ..."); 1 on a failure; or
// 128 + the signal that stopped the job at once. Errors are printed as
// "PROGRAM: error: ...".
int LaunchJob(const LaunchJobOptions& options, const std::string& program);

}  // namespace dg
