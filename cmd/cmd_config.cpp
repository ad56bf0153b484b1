// `distgnn config check FILE [--set key=value ...]`: flags of the job check
// (roles/launcher/check_job.h).
#include <cstdio>

#include "cmd/cli.h"
#include "roles/launcher/check_job.h"

namespace dg {

int RunConfig(int argc, char** argv) {
  namespace po = cli::po;
  CheckJobOptions o;
  po::options_description desc("distgnn config check FILE [options]");
  desc.add_options()("help,h", "show this help")
      ("config", po::value(&o.config)->required(), "the job YAML")
      ("set", po::value(&o.sets)->composing(), "override one key, e.g. --set train.epochs=3 (repeatable)")
      ("job-id", po::value(&o.job_id), "job id to show in the command lines (default: random)");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  return CheckJob(o, argv[0]);
}

}  // namespace dg
