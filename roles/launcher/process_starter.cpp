#include "roles/launcher/process_starter.h"

#include "roles/launcher/launch_plan.h"

namespace dg {

namespace {

// "cd WS" for a remote shell; keeps a leading ~/ unquoted so it expands.
std::string CdCommand(const std::string& dir) {
  if (dir == "~") return "cd";
  if (dir.rfind("~/", 0) == 0) return "cd ~/" + ShellQuote(dir.substr(2));
  return "cd " + ShellQuote(dir);
}

class LocalStarter : public ProcessStarter {
 public:
  bool remote() const override { return false; }
  const std::string& DefaultBinary(const PlanOptions& o) const override { return o.local_binary; }
  std::vector<std::string> Shell(const MachineConfig&, const std::string& command, bool) const override {
    return {"/bin/sh", "-c", command};
  }
  std::string Via(const MachineConfig&) const override { return "(local)"; }
};

class SshStarter : public ProcessStarter {
 public:
  bool remote() const override { return true; }
  const std::string& DefaultBinary(const PlanOptions& o) const override { return o.remote_binary; }
  std::vector<std::string> Shell(const MachineConfig& mc, const std::string& command, bool probe) const override {
    std::vector<std::string> argv = SshPrefix(mc);
    if (probe) argv.insert(argv.begin() + 1, {"-o", "ConnectTimeout=3"});  // ssh keeps the first value
    argv.push_back(command);
    return argv;
  }
  std::string Via(const MachineConfig& mc) const override { return "via ssh " + mc.ssh; }
};

}  // namespace

const ProcessStarter& StarterFor(const JobConfig& cfg, int machine) {
  static const LocalStarter local;
  static const SshStarter ssh;
  if (cfg.scheduler == Scheduler::kSlurm) return SrunStarter();
  return cfg.machines.at(static_cast<size_t>(machine)).ssh.empty() ? static_cast<const ProcessStarter&>(local) : ssh;
}

std::string RemoteRoleCommand(const ProcessSpec& p, bool token_on_stdin) {
  std::string remote = CdCommand(p.workdir) + " && ";
  if (token_on_stdin) remote += "IFS= read -r DISTGNN_TOKEN && export DISTGNN_TOKEN && ";
  remote += "exec ";
  if (!p.env.empty()) {
    remote += "env";
    for (const auto& [k, v] : p.env) remote += " " + k + "=" + ShellQuote(v);
    remote += " ";
  }
  // '--job-id' is quoted on purpose: the local ssh or srun client's own command
  // line then never matches the pkill patterns (when a "remote" host shares
  // this host's processes).
  for (size_t a = 0; a < p.role_argv.size(); ++a)
    remote += (a ? " " : "") + (p.role_argv[a] == "--job-id" ? "'--job-id'" : ShellQuote(p.role_argv[a]));
  return remote;
}

}  // namespace dg
