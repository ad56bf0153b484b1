// `distgnn propagate --config FILE --input feat --hops K --norm mean|sum|sym
//  --output name`: computes Â^k X over the whole partitioned graph as a job.
//
// Like `launch`, it starts the servers and the trainers the config names (no
// samplers); the trainers run with --mode propagate (common/client/propagate.h)
// and write every hop into each part's node_data/NAME_k.npy. When they all
// succeed, the partition config here lists NAME_1..NAME_K as node data, so
// later jobs can train on them. (Machines reached by ssh keep their own copy of
// the config: run `distgnn copy` again to refresh it.)
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "roles/launcher/launcher.h"
#include "roles/launcher/propagate_job.h"

#include "config/job_config.h"
#include "roles/job/job_tls.h"
#include "roles/launcher/launch_plan.h"
#include "common/client/propagate.h"

namespace dg {
namespace {

Status AddHopsToConfig(const std::string& json_path, const PropagateOptions& o) {
  DG_ASSIGN_OR_RETURN(PartitionConfig pc, LoadPartitionConfig(json_path));
  const ArrayInfo& in = pc.node_data.at(o.input);
  for (int k = 1; k <= o.hops; ++k) pc.node_data[o.output + "_" + std::to_string(k)] = in;
  const std::string tmp = json_path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << PartitionConfigToJson(pc);
    if (!f) return Status::IOError("write " + tmp + " failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, json_path, ec);
  if (ec) return Status::IOError("rename " + tmp + ": " + ec.message());
  return Status::OK();
}

}  // namespace

Status PropagateJob(const PropagateJobOptions& options) {
  const std::string& file = options.config;
  const std::vector<std::string>& sets = options.sets;
  const PropagateOptions& o = options.propagate;
  LaunchSettings settings;
  settings.echo = !options.quiet;
  DG_ASSIGN_OR_RETURN(JobConfig cfg, LoadJobConfig(file, sets));
  DG_RETURN_IF_ERROR(EnsureJobToken(&cfg).status());
  DG_RETURN_IF_ERROR(PrepareLauncherTls(&cfg));
  DG_ASSIGN_OR_RETURN(PartitionConfig pc, LoadPartitionConfig(cfg.partition));
  DG_RETURN_IF_ERROR(CheckPropagateOptions(o, pc));  // before anything starts

  PlanOptions po = DefaultPlanOptions();
  po.samplers = false;
  po.trainer_args = {"--mode", "propagate", "--input", o.input, "--hops", std::to_string(o.hops),
                     "--norm", Name(o.norm), "--output", o.output};
  DG_ASSIGN_OR_RETURN(LaunchPlan plan, BuildLaunchPlan(cfg, po));
  DG_RETURN_IF_ERROR(RunLaunchPlan(cfg, plan, settings));
  DG_RETURN_IF_ERROR(AddHopsToConfig(cfg.partition, o));
  std::printf("propagate: wrote %s_1..%s_%d (%s norm) into every part's node_data; %s lists them\n",
              o.output.c_str(), o.output.c_str(), o.hops, Name(o.norm), cfg.partition.c_str());
  return Status::OK();
}

}  // namespace dg
