// The launcher's side of the job lease (common/net/job_lease.h): a granter on
// the `host:` address of the job's machine the launcher runs on (else on the
// address(es) this machine uses to reach the job's machines), and
// `--lease ADDRESS:PORT` added to every process of the plan (to its argv, and
// at the end of its ssh command, which ends with that argv). The launcher
// names a machine unreachable when one of its processes' lease has been silent
// for network.peer_timeout_seconds (LaunchLease::SilentFor). With tls on, the
// granter presents the launcher's certificate (job.tls.context) and accepts
// TLS holders only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/net/job_lease.h"
#include "config/job_config.h"
#include "roles/launcher/launch_plan.h"

namespace dg {

struct LaunchLease {
  std::unique_ptr<LeaseGranter> granter;
  double timeout_seconds = 0;
  // Seconds the lease of this process has been silent, or -1 (none open: not
  // dialled yet, or its process exited).
  double SilentFor(const ProcessSpec& p) const;
};

// "role/machine/index": how a process names itself to the granter.
std::string LeaseHolderId(const ProcessSpec& p);

// Starts the granter for the job and adds --lease to every process in *plan.
Result<LaunchLease> StartLaunchLease(const JobConfig& config, LaunchPlan* plan);

}  // namespace dg
