#include "cmd/launch_lease.h"

#include <algorithm>

namespace dg {

std::string LeaseHolderId(const ProcessSpec& p) {
  return std::string(RoleName(p.role)) + "/" + std::to_string(p.machine) + "/" + std::to_string(p.index);
}

double LaunchLease::SilentFor(const ProcessSpec& p) const {
  return granter ? granter->SilenceSeconds(LeaseHolderId(p)) : -1;
}

Result<LaunchLease> StartLaunchLease(const JobConfig& cfg, LaunchPlan* plan) {
  // The address each machine reaches us at: the one our kernel picks towards it.
  std::vector<std::string> toward(cfg.machines.size()), listen;
  for (size_t m = 0; m < cfg.machines.size(); ++m) {
    auto a = LocalAddressToward(cfg.machines[m].host);
    if (!a.ok()) return Status::InvalidArgument("machines[" + std::to_string(m) + "].host: " + a.status().message());
    toward[m] = *a;
    if (std::find(listen.begin(), listen.end(), *a) == listen.end()) listen.push_back(*a);
  }
  LeaseGranter::Options o;
  o.addresses = listen;
  o.token = cfg.token;
  o.job_id = plan->job_id;
  o.timeout_seconds = cfg.peer_timeout_seconds;
  LaunchLease lease;
  DG_ASSIGN_OR_RETURN(lease.granter, LeaseGranter::Start(o));
  lease.timeout_seconds = cfg.peer_timeout_seconds;
  for (ProcessSpec& p : plan->processes) {
    const std::string& a = toward[p.machine];
    const std::string arg = (a.find(':') != std::string::npos ? "[" + a + "]" : a) + ":" +
                            std::to_string(lease.granter->port());
    p.role_argv.insert(p.role_argv.end(), {"--lease", arg});
    if (p.remote) p.command.back() += " --lease " + ShellQuote(arg);
    else p.command.insert(p.command.end(), {"--lease", arg});
  }
  return lease;
}

}  // namespace dg
