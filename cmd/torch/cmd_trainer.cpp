// `distgnn --role trainer --config JOB.yaml --machine M --index I`: flags of
// the trainer role (roles/trainer/role/trainer_role.h).
#include "cmd/cli.h"
#include "cmd/role_flags.h"
#include "roles/trainer/role/trainer_role.h"

namespace dg {
namespace {

Status Run(int argc, char** argv) {
  TrainerProcessOptions o;
  std::string mode, norm;
  cli::po::options_description desc("distgnn --role trainer: train the job's model, data-parallel");
  desc.add_options()("help,h", "show this help")
      ("mode", cli::po::value(&mode)->default_value("train"),
       "train | infer (layer-wise inference of train.model) | propagate (started by distgnn propagate)")
      ("input", cli::po::value(&o.propagate.input), "propagate: input node array")
      ("hops", cli::po::value(&o.propagate.hops)->default_value(1), "propagate: hops")
      ("norm", cli::po::value(&norm)->default_value("mean"), "propagate: mean | sum | sym")
      ("output", cli::po::value(&o.propagate.output), "propagate: output name")
      ("threads", cli::po::value(&o.threads)->default_value(0), "torch intra-op threads (default: train.intra_op_threads)")
      ("sampler-threads", cli::po::value(&o.sampler_threads)->default_value(0),
       "sampling threads when processes.samplers_per_trainer is 0 (0 = half this trainer's cores, at least 1)")
      ("resume", cli::po::bool_switch(&o.resume), "continue from the run directory's checkpoint.pt");
  AddRoleOptions(&desc, &o.role);
  cli::po::variables_map vm;
  DG_RETURN_IF_ERROR(cli::Parse(desc, argc, argv, &vm));
  DG_RETURN_IF_ERROR(ParsePropagateNorm(norm, &o.propagate.norm));
  if (!Parse(mode, &o.mode))
    return Status::InvalidArgument("--mode: expected " + Choices<TrainMode>() + ", got '" + mode + "'");
  return RunTrainerProcess(std::move(o));
}

}  // namespace

int RunTrainerRole(int argc, char** argv) { return RoleExitCode(argv[0], Run(argc, argv)); }

}  // namespace dg
