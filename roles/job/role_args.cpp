#include "roles/job/role_args.h"

#include <spdlog/spdlog.h>

namespace dg {

Result<JobConfig> LoadRoleJob(const RoleArgs& a, const std::string& role_name) {
  if (a.config.empty()) return Status::InvalidArgument("--config JOB.yaml is required");
  if (a.machine < 0) return Status::InvalidArgument("--config needs --machine M");
  DG_ASSIGN_OR_RETURN(JobConfig job, LoadJobConfig(a.config, a.sets));
  if (a.machine >= job.num_machines())
    return Status::InvalidArgument("--machine " + std::to_string(a.machine) + ": " + a.config + " has " +
                                   std::to_string(job.num_machines()) + " machines");
  const bool server = role_name == "server", trainer = role_name == "trainer";
  const int per_machine = server ? job.servers_per_machine
                          : trainer ? job.trainers_per_machine
                                    : job.num_samplers_per_machine();
  const std::string per_machine_key = server ? "processes.servers"
                                      : trainer ? "processes.trainers"
                                                : "processes.trainers x processes.samplers_per_trainer";
  if (a.index < 0 || a.index >= per_machine)
    return Status::InvalidArgument("--index " + std::to_string(a.index) + ": " + per_machine_key + " gives " +
                                   std::to_string(per_machine) + " " + role_name + "(s) per machine");
  return job;
}

Result<std::unique_ptr<MetricsHttpServer>> StartRoleMetrics(const RoleArgs& args, const JobConfig* job,
                                                             MetricsRole role, const std::string& host,
                                                             MetricsHttpServer::Render render) {
  int port = args.metrics_port;
  if (port < 0) port = job ? job->MetricsPort(role, args.machine, args.index) : 0;
  if (port <= 0 && args.metrics_port != 0) return std::unique_ptr<MetricsHttpServer>();
  DG_ASSIGN_OR_RETURN(auto server, MetricsHttpServer::Start(host, port, std::move(render)));
  spdlog::info("metrics on http://{}:{}/metrics", host, server->port());
  return server;
}

}  // namespace dg
