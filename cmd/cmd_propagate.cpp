// `distgnn propagate --config FILE --input feat --hops K --norm mean|sum|sym
//  --output name`: flags of the propagation job (roles/launcher/propagate_job.h).
#include "cmd/cli.h"
#include "roles/launcher/propagate_job.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  PropagateJobOptions o;
  std::string norm;
  cli::po::options_description desc("distgnn propagate --config FILE --input X --hops K --norm N --output NAME");
  desc.add_options()("help,h", "show this help")
      ("config", cli::po::value(&o.config)->required(), "the job YAML (servers and trainers come from it)")
      ("input", cli::po::value(&o.propagate.input)->required(), "float32 [N, F] node array to propagate")
      ("hops", cli::po::value(&o.propagate.hops)->default_value(1), "number of hops K")
      ("norm", cli::po::value(&norm)->default_value("mean"), "mean | sum | sym")
      ("output", cli::po::value(&o.propagate.output)->required(), "hops are saved as NAME_1 .. NAME_K")
      ("set", cli::po::value(&o.sets)->composing(), "override one YAML key (repeatable)")
      ("quiet", "do not echo process output");
  cli::po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  DG_RETURN_IF_ERROR(ParsePropagateNorm(norm, &o.propagate.norm));
  o.quiet = vm.count("quiet") > 0;
  return PropagateJob(o);
}

}  // namespace

int RunPropagate(int argc, char** argv) { return cli::ExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
