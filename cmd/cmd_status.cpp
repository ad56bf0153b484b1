// `distgnn status JOB.yaml [--once] [--interval S]`: flags of the live job table
// (roles/launcher/status.h).
#include <cstdio>

#include "cmd/cli.h"
#include "roles/launcher/status.h"

namespace dg {

int RunStatus(int argc, char** argv) {
  namespace po = cli::po;
  JobStatusOptions o;
  po::options_description desc("distgnn status JOB.yaml [options]");
  desc.add_options()("help,h", "show this help")
      ("config", po::value(&o.config)->required(), "the job YAML")
      ("once", "print the table once (rates over one interval) and exit")
      ("interval", po::value(&o.interval)->default_value(2.0), "seconds between refreshes (and for --once's rates)")
      ("metrics-port", po::value(&o.metrics_port), "the jobs' ports.metrics base, if the YAML does not set it")
      ("set", po::value(&o.sets)->composing(), "override one YAML key, as launch --set");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  o.once = vm.count("once") > 0;
  return ShowJobStatus(o, argv[0]);
}

}  // namespace dg
