// `distgnn copy FILE [--dry-run]`: flags of the job copier (roles/launcher/copy.h).
#include <cstdio>

#include "cmd/cli.h"
#include "roles/launcher/copy.h"

namespace dg {

int RunCopy(int argc, char** argv) {
  namespace po = cli::po;
  CopyJobOptions o;
  po::options_description desc("distgnn copy FILE [options]");
  desc.add_options()("help,h", "show this help")
      ("config", po::value(&o.config)->required(), "the job YAML")
      ("set", po::value(&o.sets)->composing(), "override one key, e.g. --set train.model=other.pt")
      ("dry-run", "print the commands without running them")
      ("scp", "use scp even when rsync is installed")
      ("no-verify", "skip `distgnn partition verify --part M` on each machine after its copy");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  o.dry_run = vm.count("dry-run") > 0;
  o.scp = vm.count("scp") > 0;
  o.verify = vm.count("no-verify") == 0;
  return CopyJob(o, argv[0]);
}

}  // namespace dg
