// The flags every role process shares (roles/job/role_args.h says what they
// mean): --role, --config, --machine, --index, --job-id, --set, --log-level,
// --metrics-port.
#pragma once

#include "cmd/cli.h"
#include "roles/job/role_args.h"

namespace dg {

void AddRoleOptions(cli::po::options_description* desc, RoleArgs* args);

}  // namespace dg
