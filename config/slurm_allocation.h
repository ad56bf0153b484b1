// `machines: {from: slurm}`: the job's machines are the nodes of the Slurm
// allocation this process runs in. SLURM_JOB_NODELIST (set by sbatch/salloc
// for the batch script and inherited by every srun step) is expanded with
// `scontrol show hostnames` (Slurm's own order, the same in every process of
// the job), and each node's address is its NodeAddr from `scontrol show node`
// (what slurmctld itself dials), resolved to a numeric address when it is a
// name. Machine m is node m: host = that address, slurm_node = the node name.
#pragma once

#include <string>
#include <vector>

#include "common/base/status.h"
#include "config/job_config.h"

namespace dg {

// The allocation's nodes as machines; an error naming what is missing (no
// allocation, no scontrol, a node without an address).
Result<std::vector<MachineConfig>> SlurmAllocationMachines();

}  // namespace dg
