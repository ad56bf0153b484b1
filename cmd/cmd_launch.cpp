// `distgnn launch FILE [--set key=value ...] [--mode infer] [--resume]`: start every role of a job on
// every machine, stream their output, and tear everything down at the end or on
// the first failure (see cmd/launcher.h).
#include <csignal>
#include <cstdio>
#include <cstring>

#include "cmd/cli.h"
#include "cmd/launcher.h"
#include "config/job_config.h"
#include "config/launch_plan.h"

namespace dg {

int RunLaunch(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn launch FILE [options]");
  std::string file;
  std::vector<std::string> sets;
  LaunchSettings settings;
  std::string mode;
  desc.add_options()("help,h", "show this help")
      ("mode", po::value(&mode)->default_value("train"),
       "train | infer: layer-wise inference of train.model over all nodes (servers and trainers only)")
      ("resume", "trainers continue from trainer 0's RUN_DIR/checkpoint.pt (e.g. with --set train.epochs=N)")
      ("config", po::value(&file)->required(), "the job YAML")
      ("set", po::value(&sets)->composing(), "override one key, e.g. --set train.epochs=3 (repeatable)")
      ("server-timeout", po::value(&settings.server_timeout_s)->default_value(60),
       "seconds for every server to accept connections")
      ("grace", po::value(&settings.grace_s)->default_value(5), "seconds between SIGTERM and SIGKILL")
      ("quiet", "do not echo process output (it still goes to the log files)")
      ("dry-run", "print the plan and exit");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  settings.echo = !vm.count("quiet");

  auto cfg = LoadJobConfig(file, sets);
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], cfg.status().message().c_str());
    return 1;
  }
  if (auto made = EnsureJobToken(&*cfg); !made.ok()) {
    return cli::ExitCode(argv[0], made.status());
  } else if (*made) {
    std::fprintf(stderr, "launch: no cluster token configured; using a random one for this job\n");
  }
  if (mode != "train" && mode != "infer")
    return cli::ExitCode(argv[0], Status::InvalidArgument("--mode: expected train or infer, got '" + mode + "'"));
  PlanOptions plan_options = DefaultPlanOptions();
  if (mode == "infer") {
    plan_options.trainer_args = {"--mode", "infer"};
    plan_options.samplers = false;
  } else if (vm.count("resume")) {
    plan_options.trainer_args = {"--resume"};
  }
  auto plan = BuildLaunchPlan(*cfg, plan_options);
  if (!plan.ok()) return cli::ExitCode(argv[0], plan.status());
  for (const auto& p : plan->processes) {
    if (!p.remote && !IsLocalHost(p.host)) {
      std::fprintf(stderr,
                   "%s: error: %s: machines[%d].host %s is not this machine and has no ssh target; "
                   "add `ssh: user@%s` to start its processes remotely\n",
                   argv[0], file.c_str(), p.machine, p.host.c_str(), p.host.c_str());
      return 1;
    }
  }
  if (vm.count("dry-run")) {
    std::fputs(FormatPlan(*cfg, *plan).c_str(), stdout);
    return 0;
  }
  st = RunLaunchPlan(*cfg, *plan, settings);
  if (st.ok()) return 0;
  std::fprintf(stderr, "%s: error: %s\n", argv[0], st.message().c_str());
  int sig = LaunchInterruptSignal();
  return sig ? 128 + sig : 1;
}

}  // namespace dg
