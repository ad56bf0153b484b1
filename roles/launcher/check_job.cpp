// `distgnn config check FILE [--set key=value ...]`: validate a job YAML and
// print the resolved launch plan (every process, host, port, command line).
#include <cstdio>
#include <iostream>

#include "roles/launcher/launcher.h"
#include "config/job_config.h"
#include "roles/launcher/check_job.h"
#include "roles/launcher/launch_plan.h"

namespace dg {

int CheckJob(const CheckJobOptions& options, const std::string& program) {
  const std::string& file = options.config;
  const std::vector<std::string>& sets = options.sets;

  auto cfg = LoadJobConfigOrSay(program, file, sets);
  if (!cfg) return 1;
  PlanOptions opt = DefaultPlanOptions();
  if (!options.job_id.empty()) opt.job_id = options.job_id;
  auto plan = BuildLaunchPlan(*cfg, opt);
  if (!plan.ok()) return ToolExitCode(program, plan.status());
  std::cout << file << ": OK\n";
  for (const std::string& w : SecurityWarnings(*cfg)) std::cout << "warning: " << w << "\n";
  std::cout << "\n" << FormatPlan(*cfg, *plan);
  return 0;
}

}  // namespace dg
