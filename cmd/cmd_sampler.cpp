// `distgnn --role sampler --config JOB.yaml --machine M --index I`: flags of
// the sampler role (roles/sampler/sampler_role.h).
#include "cmd/cli.h"
#include "cmd/role_flags.h"
#include "roles/sampler/sampler_role.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  SamplerProcessOptions o;
  cli::po::options_description desc("distgnn --role sampler: turn seed nodes into mini-batches for one trainer");
  desc.add_options()("help,h", "show this help")
      ("threads", cli::po::value(&o.threads)->default_value(0), "batch-building threads (0 = this machine's cores / samplers per machine)");
  AddRoleOptions(&desc, &o.role);
  cli::po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  return RunSamplerProcess(o);
}

}  // namespace

int RunSamplerRole(int argc, char** argv) { return RoleExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
