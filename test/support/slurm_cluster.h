// A Slurm cluster in a box for tests: scripts/slurm-cluster.sh up N (namespace
// hosts as NetnsCluster makes them, one slurmd each, slurmctld in host 0, a
// munged of its own) under a prefix unique to this test process, taken down
// by the destructor or, if the test process dies first, by NetnsCluster's
// watchdog. skip_reason says why it could not come up (no slurmctld, ...).
#pragma once

#include <string>
#include <vector>

#include "test/support/netns_cluster.h"

namespace dg::test {

class SlurmCluster : public NetnsCluster {
 public:
  explicit SlurmCluster(int hosts);

  // Slurm's name of host h's node.
  std::string Node(int h) const { return Namespace(h); }
  std::string Conf() const { return "/tmp/distgnn-slurm-" + prefix + "/slurm.conf"; }
  // argv run as a Slurm client: in host 0 (where slurmctld listens) with SLURM_CONF set.
  std::vector<std::string> Client(std::vector<std::string> argv) const;
  // stdout of the shell command `command` run as a Slurm client.
  std::string ClientOutput(const std::string& command) const;
  // `sbatch --parsable ARGS`: the job id, or "" (output in *error).
  std::string Submit(const std::vector<std::string>& args, std::string* error) const;
  // JobState of a job (RUNNING, COMPLETED, CANCELLED, ...), "" when unknown.
  std::string JobState(const std::string& job) const;
  // Steps of a job still listed by `squeue -s`.
  std::vector<std::string> Steps(const std::string& job) const;
  // `scontrol show job` and the last lines of slurmctld's and every slurmd's
  // log: why Slurm ended a job, for a failing test's messages.
  std::string Diagnosis(const std::string& job) const;
};

}  // namespace dg::test
