// The Slurm starter: every process is a step of the allocation the launcher
// runs in (sbatch/salloc), on its machine's node:
//   srun --nodes=1 --ntasks=1 --nodelist=NODE --overlap --kill-on-bad-exit=0 --quiet
//        /bin/sh -c 'cd DIR && IFS= read -r DISTGNN_TOKEN && ... exec BINARY --role ...'
// --overlap: the job's steps share the node's CPUs and memory (the roles of a
// machine run side by side, none waits for another's resources); without
// --exact each step may use all of the job's CPUs on its node. srun passes its
// stdin (the token line) to the task and its task's output back on its own
// stdout, which the launcher reads as it reads a local process's. The
// launcher stops a step the way it stops an ssh process, by a `pkill` run on
// the node (a step of its own, here): srun itself turns a SIGTERM into a
// SIGKILL of its task, so a graceful stop cannot go through it. A step whose
// srun is killed is cancelled by Slurm, and every step ends with the job.
#include "roles/launcher/launch_plan.h"
#include "roles/launcher/process_starter.h"

namespace dg {

namespace {

class SrunSteps : public ProcessStarter {
 public:
  bool remote() const override { return true; }
  // The allocation's nodes share the file system the launcher runs from.
  const std::string& DefaultBinary(const PlanOptions& o) const override { return o.local_binary; }
  std::vector<std::string> Shell(const MachineConfig& mc, const std::string& command, bool probe) const override {
    std::vector<std::string> argv{"srun", "--nodes=1", "--ntasks=1", "--nodelist=" + mc.slurm_node, "--overlap",
                                  "--kill-on-bad-exit=0", "--quiet"};
    if (probe) argv.push_back("--immediate=3");  // no step within 3 s: the node is not there
    argv.insert(argv.end(), {"/bin/sh", "-c", command});
    return argv;
  }
  std::string Via(const MachineConfig& mc) const override { return "via srun on node " + mc.slurm_node; }
};

}  // namespace

const ProcessStarter& SrunStarter() {
  static const SrunSteps srun;
  return srun;
}

}  // namespace dg
