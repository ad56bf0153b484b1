// `distgnn propagate`: computes Â^k X over the whole partitioned graph as a
// job. Like `launch`, it starts the servers and the trainers the config names
// (no samplers); the trainers run with --mode propagate
// (common/client/propagate.h) and write every hop into each part's
// node_data/NAME_k.npy. When they all succeed, the partition config here lists
// NAME_1..NAME_K as node data, so later jobs can train on them. (Machines
// reached by ssh keep their own copy of the config: run `distgnn copy` again
// to refresh it.)
#pragma once

#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/client/propagate.h"

namespace dg {

struct PropagateJobOptions {
  std::string config;
  std::vector<std::string> sets;
  PropagateOptions propagate;  // input, hops, norm, output
  bool quiet = false;          // do not echo process output
};

Status PropagateJob(const PropagateJobOptions& options);

}  // namespace dg
