// What every role process shares when it runs from a job YAML: its flags
//   --config JOB.yaml [--machine M|auto] [--index I|auto] [--job-id ID] [--set key=value ...]
//   [--metrics-port N] [--lease HOST:PORT]
// (parsed by cmd/role_flags.h), loading and checking its job, and its metrics
// endpoint. --machine auto (the default) and --index auto take the indices
// from the environment (Slurm, Kubernetes, torchrun: roles/job/machine_identity.h).
// --job-id only marks the process for the launcher (so teardown can find it);
// --set overrides single keys of the YAML, exactly as `distgnn launch --set`.
// --lease (set by distgnn launch) ties the process to its launcher: see
// HoldLaunchLease and common/net/job_lease.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/net/metrics_http.h"
#include "config/job_config.h"
#include "roles/job/machine_identity.h"

namespace dg {

// The exit code of a role process that ends because it lost a peer (a
// PeerLost error): a consequence, not a cause. `launch` names the peer's own
// end instead when it sees it (roles/launcher/launcher.cpp, RootCause).
constexpr int kExitPeerLost = 3;
// The exit code of a trainer stopped by SIGTERM after writing its checkpoint
// (a Stopped status): preempted, not failed; `launch` reports it as such and
// `--resume` continues the run.
constexpr int kExitPreempted = 4;

struct RoleArgs {
  std::string role, config, job_id, log_level;
  std::string lease;  // HOST:PORT of the launcher's lease; "" = none (started by hand or by systemd)
  int machine = -1, index = 0;
  // Where machine and index came from (roles/job/machine_identity.h): the
  // variable and its text with auto; variable "" when the flag gave them.
  IndexSource machine_from, index_from;
  int metrics_port = -1;  // -1: from the YAML (ports.metrics, derived); 0: any free port; N: that port
  std::vector<std::string> sets;
};

// Loads the YAML with the overrides, checks --machine and --index against it
// (role: server, sampler or trainer) and resolves its hosts
// (roles/job/machine_hosts.h). When the environment gave the machine or the
// index, logs where from ("trainer: machine 1 from SLURM_NODEID=1"), the
// process's first line.
Result<JobConfig> LoadRoleJob(const RoleArgs& args, MetricsRole role);
// The same with the role's word ("server", "sampler", "trainer").
Result<JobConfig> LoadRoleJob(const RoleArgs& args, const std::string& role_word);

// Starts this process's metrics endpoint on host at --metrics-port, else at
// the YAML's derived port (job may be null: standalone); nullptr when neither
// asks for one. Logs "metrics on http://HOST:PORT/metrics". It also answers
// /healthz and /readyz (common/net/metrics_http.h); `ready` says why the role
// is not ready yet (null: ready while the endpoint runs).
Result<std::unique_ptr<MetricsHttpServer>> StartRoleMetrics(const RoleArgs& args, const JobConfig* job,
                                                             MetricsRole role, const std::string& host,
                                                             MetricsHttpServer::Render render,
                                                             MetricsHttpServer::ReadyCheck ready = nullptr);

// With --lease, holds a lease on the launcher (network.peer_timeout_seconds,
// the job's token; with tls on, over TLS with job.tls.context, never
// plaintext): when it ends (launcher killed, cut off or frozen) the
// process logs why and stops: SIGINT to itself (servers shut down cleanly and
// release their ports), _exit a second later if it is still there. Without
// --lease it does nothing. Call once, after SetupLogging. (roles/job/role_lease.cpp)
void HoldLaunchLease(const RoleArgs& args, const JobConfig& job, const std::string& role_name);

}  // namespace dg
