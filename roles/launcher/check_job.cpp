// `distgnn config check FILE [--set key=value ...]`: validate a job YAML and
// print the resolved launch plan (every process, host, port, command line).
#include <cstdio>
#include <iostream>

#include "cmd/cli.h"
#include "roles/launcher/launcher.h"
#include "config/job_config.h"
#include "roles/launcher/launch_plan.h"

namespace dg {

int RunConfig(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn config check FILE [options]");
  std::string file;
  std::vector<std::string> sets;
  desc.add_options()("help,h", "show this help")
      ("config", po::value(&file)->required(), "the job YAML")
      ("set", po::value(&sets)->composing(), "override one key, e.g. --set train.epochs=3 (repeatable)")
      ("job-id", po::value<std::string>(), "job id to show in the command lines (default: random)");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);

  auto cfg = LoadJobConfig(file, sets);
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], cfg.status().message().c_str());
    return 1;
  }
  PlanOptions opt = DefaultPlanOptions();
  if (vm.count("job-id")) opt.job_id = vm["job-id"].as<std::string>();
  auto plan = BuildLaunchPlan(*cfg, opt);
  if (!plan.ok()) return cli::ExitCode(argv[0], plan.status());
  std::cout << file << ": OK\n";
  for (const std::string& w : SecurityWarnings(*cfg)) std::cout << "warning: " << w << "\n";
  std::cout << "\n" << FormatPlan(*cfg, *plan);
  return 0;
}

}  // namespace dg
