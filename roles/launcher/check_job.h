// `distgnn config check`: validate a job YAML and print the resolved launch
// plan (every process, host, port, command line) and security warnings.
#pragma once

#include <string>
#include <vector>

namespace dg {

struct CheckJobOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string job_id;  // shown in the command lines; empty = random
};

// The process's exit code (0 or 1); errors are printed as "PROGRAM: error: ...".
int CheckJob(const CheckJobOptions& options, const std::string& program);

}  // namespace dg
