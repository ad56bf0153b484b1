// Reaching the servers of a job: endpoints from the job YAML's port rule and a
// DistGraphClient connected to all of them (what samplers, trainers, the
// launcher and tools use).
//
// ConnectJobClient retries refused connections for network.connect_wait_seconds
// (servers started by hand or by systemd may come up after their clients); any other
// failure (wrong token, wrong graph, a port that answers as the wrong server)
// fails at once. The machine's own partition is read through the mmap when
// `machine` >= 0 and the partition directory is readable here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/client/dist_graph_client.h"
#include "common/net/ring_allreduce.h"
#include "config/job_config.h"

namespace dg {

// Server i of machine m at machines[m].host : ServerPort(m, i).
std::vector<ServerEndpoints> JobServerEndpoints(const JobConfig& job);

// The job's frame limit, heartbeats and peer timeout (network: in the YAML), and
// the process's TLS identity when tls is on (roles/job/job_tls.h).
ConnectionOptions JobConnectionOptions(const JobConfig& job);
// The trainers' ring for gradients over the job's connections (TLS): trainer
// r on its machine's host at ports.rendezvous + r (common/net/ring_allreduce.h).
RingOptions JobTrainerRing(const JobConfig& job, int rank);
// Deadlines, heartbeats and frame limits of the job.
ClientOptions JobClientOptions(const JobConfig& job);

Result<std::unique_ptr<DistGraphClient>> ConnectJobClient(const JobConfig& job,
                                                          const PartitionConfig& partition,
                                                          const std::string& role, int rank,
                                                          int machine);

}  // namespace dg
