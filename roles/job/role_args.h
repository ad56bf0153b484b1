// What every role process shares when it runs from a job YAML: its flags
//   --config JOB.yaml --machine M [--index I] [--job-id ID] [--set key=value ...]
//   [--metrics-port N]
// (parsed by cmd/role_flags.h), loading and checking its job, and its metrics
// endpoint.
// --job-id only marks the process for the launcher (so teardown can find it);
// --set overrides single keys of the YAML, exactly as `distgnn launch --set`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/net/metrics_http.h"
#include "config/job_config.h"

namespace dg {

struct RoleArgs {
  std::string role, config, job_id, log_level;
  int machine = -1, index = 0;
  int metrics_port = -1;  // -1: from the YAML (ports.metrics, derived); 0: any free port; N: that port
  std::vector<std::string> sets;
};

// Loads the YAML with the overrides and checks --machine and --index against
// it (role_name: "server", "sampler" or "trainer").
Result<JobConfig> LoadRoleJob(const RoleArgs& args, const std::string& role_name);

// Starts this process's metrics endpoint on host at --metrics-port, else at
// the YAML's derived port (job may be null: standalone); nullptr when neither
// asks for one. Logs "metrics on http://HOST:PORT/metrics".
Result<std::unique_ptr<MetricsHttpServer>> StartRoleMetrics(const RoleArgs& args, const JobConfig* job,
                                                             MetricsRole role, const std::string& host,
                                                             MetricsHttpServer::Render render);

}  // namespace dg
