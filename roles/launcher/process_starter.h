// How the launcher starts a process on its machine, and runs a shell command
// there (remote kills, reachability probes): one ProcessStarter per kind.
//   local  the command runs here, in the config's folder, DISTGNN_TOKEN in its environment;
//   ssh    `ssh ... TARGET 'cd WS && IFS= read -r DISTGNN_TOKEN && ... exec BINARY ...'`,
//          the token on ssh's stdin (launch_plan.h);
//   srun   a step of the Slurm allocation on the machine's node (srun_starter.cpp),
//          the same shell command as over ssh, the token on srun's stdin.
// A remote starter's processes carry their folder and environment in that
// command, so the launcher starts the command itself with neither.
#pragma once

#include <string>
#include <vector>

#include "config/job_config.h"

namespace dg {

struct ProcessSpec;
struct PlanOptions;

class ProcessStarter {
 public:
  virtual ~ProcessStarter() = default;
  // Reached through a command (ssh, srun) rather than started here.
  virtual bool remote() const = 0;
  // The binary for a machine without machines[].binary.
  virtual const std::string& DefaultBinary(const PlanOptions& options) const = 0;
  // argv running the POSIX shell command `command` on machine mc; `probe`:
  // gives up within seconds when the machine does not answer.
  virtual std::vector<std::string> Shell(const MachineConfig& mc, const std::string& command,
                                         bool probe = false) const = 0;
  // How `config check` says the process is started: "(local)", "via ssh TARGET", ...
  virtual std::string Via(const MachineConfig& mc) const = 0;
};

// The starter of machine m of the job: srun when config.scheduler is slurm,
// else ssh when the machine has an ssh target, else local.
const ProcessStarter& StarterFor(const JobConfig& config, int machine);

// The srun starter (srun_starter.cpp).
const ProcessStarter& SrunStarter();

// The shell command a remote starter runs for p: cd to p.workdir, read the
// token from stdin when there is one, set p.env, exec p.role_argv.
std::string RemoteRoleCommand(const ProcessSpec& p, bool token_on_stdin);

}  // namespace dg
