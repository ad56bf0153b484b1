#include "roles/launcher/launch_lease.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <algorithm>

namespace dg {

std::string LeaseHolderId(const ProcessSpec& p) {
  return std::string(RoleName(p.role)) + "/" + std::to_string(p.machine) + "/" + std::to_string(p.index);
}

namespace {

// host's first address, numeric.
Result<std::string> NumericAddress(const std::string& host) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res) return Status::InvalidArgument("cannot resolve " + host + ": " + gai_strerror(rc));
  char buf[INET6_ADDRSTRLEN] = {0};
  if (res->ai_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, buf, sizeof(buf));
  else
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(res->ai_addr)->sin6_addr, buf, sizeof(buf));
  freeaddrinfo(res);
  return std::string(buf);
}

}  // namespace

double LaunchLease::SilentFor(const ProcessSpec& p) const {
  return granter ? granter->SilenceSeconds(LeaseHolderId(p)) : -1;
}

Result<LaunchLease> StartLaunchLease(const JobConfig& cfg, LaunchPlan* plan) {
  // The address each machine reaches us at: when the launcher runs on one of the
  // job's machines, that machine's `host:` (the job's machines reach each other
  // there, and the job listens on nothing else); otherwise the address our
  // kernel picks towards each machine.
  std::string own;
  for (const MachineConfig& mc : cfg.machines) {
    if (!IsLocalHost(mc.host)) continue;
    auto a = NumericAddress(mc.host);
    if (a.ok()) own = *a;
    break;
  }
  std::vector<std::string> toward(cfg.machines.size()), listen;
  for (size_t m = 0; m < cfg.machines.size(); ++m) {
    auto a = own.empty() ? LocalAddressToward(cfg.machines[m].host) : Result<std::string>(own);
    if (!a.ok()) return Status::InvalidArgument("machines[" + std::to_string(m) + "].host: " + a.status().message());
    toward[m] = *a;
    if (std::find(listen.begin(), listen.end(), *a) == listen.end()) listen.push_back(*a);
  }
  // With TLS on the lease is TLS too (the launcher's certificate): never a plaintext one.
  if (cfg.tls.enabled && !cfg.tls.context)
    return Status::Internal("tls is on but the launcher's TLS identity is not loaded (PrepareLauncherTls)");
  LeaseGranter::Options o;
  o.addresses = listen;
  o.tls = cfg.tls.context;
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
