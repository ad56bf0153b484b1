// Host names in a job YAML's machines[].host (a node's name, a Kubernetes
// headless Service's `job-0.job`): what a role process does with them at start.
//
// Every process binds its own machine's `host:`, and the listeners want an
// address; peers dial the other machines' `host:` by name. ResolveMachineHosts:
//  - this machine's host must resolve at once (getaddrinfo; the first IPv4
//    address, else the first address); every entry that names the same host
//    becomes that address, so all bind, dial and compare one address;
//  - every other machine's host must resolve within
//    network.connect_wait_seconds (its pod or node may still be starting);
//    it stays a name, resolved again whenever it is dialed.
// A host that does not resolve is one error naming the YAML, machines[i].host
// and the name. Numeric addresses are taken as they are.
#pragma once

#include "common/base/status.h"
#include "config/job_config.h"

namespace dg {

Status ResolveMachineHosts(JobConfig* job, int machine);

}  // namespace dg
