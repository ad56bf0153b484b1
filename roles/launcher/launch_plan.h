// The resolved launch plan of a job: every process the launcher starts, where,
// on which port, and with exactly which command line. Pure (no processes are
// started here), so `distgnn config check` prints it and tests check it.
//
// Every role is started as
//   BINARY --role server|trainer|sampler --config CONFIG --machine M --index I
//          --job-id JOB_ID [--set KEY=VALUE ...]
// where I is the process's index on its machine (servers 0..S-1, trainers
// 0..T-1, samplers 0..T*K-1; sampler I serves trainer I / K of that machine),
// JOB_ID is a per-launch marker the launcher uses to find the job's processes
// on remote hosts (pkill -f), and the --set overrides are the launch's own.
// The cluster token never goes into an argv (`ps` shows those to everyone):
// local processes get it in their environment (DISTGNN_TOKEN); ssh processes
// read it from ssh's stdin (ProcessSpec::stdin_text), srun steps from srun's.
//
// Each machine's processes are started by its ProcessStarter
// (process_starter.h). Local machines (no `ssh` key) run the command directly
// in the config's folder; ssh machines run `ssh -o BatchMode=yes ... TARGET 'cd WS && IFS= read
// -r DISTGNN_TOKEN && export DISTGNN_TOKEN && exec BINARY ...'` (CONFIG is then the config's file name inside
// the workspace, where `distgnn copy` puts it; without a workspace the same
// absolute paths are assumed on a shared filesystem). With `scheduler: slurm`
// (machines: {from: slurm}) every process is an srun step on its machine's
// node running the same shell command as over ssh (srun_starter.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config/job_config.h"

namespace dg {

enum class Role { kServer, kTrainer, kSampler };
const char* RoleName(Role role);

struct ProcessSpec {
  int machine = 0;
  Role role = Role::kServer;
  int index = 0;  // on its machine
  int rank = 0;   // global: server m*S+i, trainer m*T+t, sampler m*T*K+i
  std::string host;
  int port = 0;   // listening port (servers, trainers); 0 for samplers
  bool remote = false;                 // started through ssh or srun (process_starter.h)
  std::string workdir;                 // where the role runs (cd there first)
  std::vector<std::string> role_argv;  // BINARY --role ... (what runs on the host)
  std::vector<std::pair<std::string, std::string>> env;  // extra environment (local processes)
  std::string stdin_text;              // written to the process's stdin (ssh, srun: the token line)
  std::vector<std::string> command;    // what the launcher execs: role_argv, ssh ... or srun ...
  std::string label;                   // "machine/role/rank", e.g. "1/trainer/1"
  std::string log_file;                // RUN_DIR/logs/<machine>-<role>-<index>.log
  std::string kill_pattern;            // pkill -f regex matching exactly this process
};

struct LaunchPlan {
  std::string job_id;
  std::string log_dir;
  std::vector<ProcessSpec> processes;  // servers first, then trainers, then samplers
  std::string host_kill_pattern;       // pkill -f regex matching every process of the job
};

struct PlanOptions {
  std::string local_binary = "distgnn";   // for local machines (the launcher's own path)
  std::string remote_binary = "distgnn";  // for ssh machines without machines[].binary
  std::string override_binary;            // if set, used for every process (tests)
  std::string job_id;                     // empty = "JOB-<random hex>"
  // Jobs other than training (`distgnn propagate`): extra flags for every
  // trainer (e.g. --mode propagate ...) and whether samplers are started.
  std::vector<std::string> trainer_args;
  bool samplers = true;
};

Result<LaunchPlan> BuildLaunchPlan(const JobConfig& config, const PlanOptions& options);

// A readable table of the plan (for `distgnn config check`).
std::string FormatPlan(const JobConfig& config, const LaunchPlan& plan);

// True for loopback names and this machine's host name and interface addresses.
bool IsLocalHost(const std::string& host);

// 'text' for a POSIX shell ('\'' inside).
std::string ShellQuote(const std::string& text);
std::string ShellJoin(const std::vector<std::string>& argv);

// ssh argv prefix for a machine: ssh -o BatchMode=yes [-o opts] [-p P] [-i K] TARGET
std::vector<std::string> SshPrefix(const MachineConfig& machine);

// A job without a cluster token gets a fresh random one (64 hex digits) for
// this launch; returns true if it made one. Every process the plan starts
// then receives it (environment / ssh stdin), so the job is never open.
Result<bool> EnsureJobToken(JobConfig* config);

// Warnings for `distgnn config check`: no token in the YAML or environment,
// servers on non-loopback addresses, ... (empty when all is well).
std::vector<std::string> SecurityWarnings(const JobConfig& config);

// "JOB-<12 random hex digits>".
std::string NewJobId(const std::string& job);

}  // namespace dg
