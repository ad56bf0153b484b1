// `distgnn copy`: copy each ssh machine's share of the job (config, partition
// json, orig_*.npy, its own part folder, model) to its workspace
// (copy_plan.h), with rsync over ssh or scp, printing every command; then
// verify what arrived on that machine (`partition verify --part m` over the
// same ssh) before reporting success.
#pragma once

#include <string>
#include <vector>

namespace dg {

struct CopyJobOptions {
  std::string config;
  std::vector<std::string> sets;
  bool dry_run = false;  // print the commands without running them
  bool scp = false;      // scp even when rsync is installed
  bool verify = true;    // run `partition verify --part m` on each machine after its copy
};

// The process's exit code (0 or 1); errors are printed as "PROGRAM: error: ...".
int CopyJob(const CopyJobOptions& options, const std::string& program);

}  // namespace dg
