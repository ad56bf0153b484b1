// What `distgnn copy` sends to each ssh machine, and the commands that send it.
//
// Each machine with an ssh target and a workspace gets, mirrored under its
// workspace at the same paths relative to the config file's folder: the config
// itself, the partition json, orig_nids/orig_eids, ONLY its own part folder,
// the model, and with tls on (certificates in tls.dir) the CA certificate and
// ONLY its own certificates and keys, the keys then chmod 600 there. Launch then runs the roles in the workspace with the config's
// file name, so every relative path in it resolves the same way there.
// Commands: `ssh T mkdir -p ...`, then one `rsync -a --relative -e 'ssh ...'`
// per machine (or `scp -r` per item when rsync is absent); then, unless
// --no-verify, `ssh T 'cd WS && distgnn partition verify NAME.json --part m'`:
// checksums, dtypes, shapes and structure of what arrived.
#pragma once

#include <string>
#include <vector>

#include "config/job_config.h"

namespace dg {

struct CopyItem {
  std::string local;     // absolute local path
  std::string relative;  // path under the workspace
  bool directory = false;
};

struct MachineCopy {
  int machine = 0;
  std::string target;     // ssh target
  std::string workspace;  // empty = nothing to copy (see note)
  std::string note;       // why nothing is copied ("local machine", "no workspace: shared filesystem")
  std::vector<CopyItem> items;
  std::vector<std::vector<std::string>> commands;
  // Run on the machine after the copy: `distgnn partition verify NAME.json --part m`
  // in the workspace (machines[m].binary, else distgnn on its PATH).
  std::vector<std::string> verify;
};

// Errors name the key whose file is missing or lies outside the config's folder.
Result<std::vector<MachineCopy>> BuildCopyPlan(const JobConfig& config, bool use_rsync);

}  // namespace dg
