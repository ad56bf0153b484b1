// The flags every role shares when it runs from a job YAML:
//   --config JOB.yaml --machine M [--index I] [--job-id ID] [--set key=value ...]
// --job-id only marks the process for the launcher (so teardown can find it);
// --set overrides single keys of the YAML, exactly as `distgnn launch --set`.
#pragma once

#include <string>
#include <vector>

#include "cmd/cli.h"
#include "config/job_config.h"

namespace dg {

struct RoleArgs {
  std::string role, config, job_id, log_level;
  int machine = -1, index = 0;
  std::vector<std::string> sets;
};

void AddRoleOptions(cli::po::options_description* desc, RoleArgs* args);

// Loads the YAML with the overrides and checks --machine and --index against
// it (role_name: "server", "sampler" or "trainer").
Result<JobConfig> LoadRoleJob(const RoleArgs& args, const std::string& role_name);

}  // namespace dg
