// Which machine (and which process of its role on that machine) a role process
// is, when a cluster's own scheduler starts it instead of `distgnn launch`.
//
// --machine M gives the machine index; --machine auto (the default when the
// flag is absent) reads the first of these that is set and not empty:
//   SLURM_NODEID          Slurm: the node's index in the allocation
//   JOB_COMPLETION_INDEX  Kubernetes: the pod's index in an Indexed Job
//   GROUP_RANK            torchrun: the node's rank
//   RANK                  torchrun and others: the process's rank
// --index I gives the process index; --index auto reads SLURM_LOCALID, then
// LOCAL_RANK.
//
// Two steps, both pure (the environment comes in as a lookup function):
// ChooseIndex reads the flag and the environment (at flag parsing, before the
// YAML is loaded) and CheckIndex, once the YAML says how many there are, turns
// a missing, garbled or out-of-range value into one error naming the flag or
// the variable and that count.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

// Returns the variable's value, or null when it is not set (std::getenv).
using EnvLookup = std::function<const char*(const char*)>;

const std::vector<std::string>& MachineIndexVariables();  // SLURM_NODEID, JOB_COMPLETION_INDEX, GROUP_RANK, RANK
const std::vector<std::string>& ProcessIndexVariables();  // SLURM_LOCALID, LOCAL_RANK

// Where an index came from: `variable` is "" when the flag gave it; `text` is
// what the flag or the variable said ("auto" when none of the variables is set).
struct IndexSource {
  std::string variable, text;
};

struct IndexChoice {
  int value = -1;  // -1: none (nothing set, or text is not a number >= 0)
  IndexSource from;
};

// flag_text: the flag's value ("auto", "" = auto, or a number). With auto, the
// first of `variables` set to a non-empty value.
IndexChoice ChooseIndex(const std::string& flag_text, const std::vector<std::string>& variables,
                        const EnvLookup& env);

// OK when 0 <= choice.value < count. Otherwise one error naming `flag`
// ("--machine"), the variable and its text when the environment gave it, and
// `count_note` (e.g. "job.yaml has 2 machines").
Status CheckIndex(const IndexChoice& choice, const std::string& flag, const std::vector<std::string>& variables,
                  int count, const std::string& count_note);

// "machine 1 from SLURM_NODEID=1" (what a role logs when the environment gave
// its index); "" when the flag gave it.
std::string DescribeIndex(const std::string& what, const IndexChoice& choice);

}  // namespace dg
