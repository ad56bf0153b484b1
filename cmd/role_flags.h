// The flags every role process shares (roles/job/role_args.h says what they
// mean): --role, --config, --machine, --index, --job-id, --set, --log-level,
// --metrics-port. --machine and --index take a number or auto; auto reads the
// environment as they are parsed (roles/job/machine_identity.h).
#pragma once

#include "cmd/cli.h"
#include "roles/job/role_args.h"

namespace dg {

void AddRoleOptions(cli::po::options_description* desc, RoleArgs* args);

// cli::ExitCode for a role: the same line, and kExitPeerLost when the role
// ends because it lost a peer.
int RoleExitCode(const std::string& command, const Status& status);

}  // namespace dg
