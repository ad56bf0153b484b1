#include "roles/job/role_args.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "roles/job/job_tls.h"
#include "roles/job/machine_hosts.h"

namespace dg {
namespace {

// The machine or index as the flags and the environment gave it (a RoleArgs
// filled in by code rather than by flags has a value and no text).
IndexChoice ChoiceOf(int value, const IndexSource& from) {
  IndexChoice c{value, from};
  if (c.from.text.empty()) c.from.text = std::to_string(value);
  return c;
}

}  // namespace

Result<JobConfig> LoadRoleJob(const RoleArgs& a, const std::string& role_word) {
  MetricsRole role;
  if (!Parse(role_word, &role)) return Status::Internal("LoadRoleJob: no role '" + role_word + "'");
  return LoadRoleJob(a, role);
}

Result<JobConfig> LoadRoleJob(const RoleArgs& a, MetricsRole role) {
  const std::string role_name = Name(role);
  if (a.config.empty()) return Status::InvalidArgument("--config JOB.yaml is required");
  DG_ASSIGN_OR_RETURN(JobConfig job, LoadJobConfig(a.config, a.sets));
  const IndexChoice machine = ChoiceOf(a.machine, a.machine_from), index = ChoiceOf(a.index, a.index_from);
  DG_RETURN_IF_ERROR(CheckIndex(machine, "--machine", MachineIndexVariables(), job.num_machines(),
                                a.config + " has " + std::to_string(job.num_machines()) + " machines"));
  const bool server = role == MetricsRole::kServer, trainer = role == MetricsRole::kTrainer;
  const int per_machine = server ? job.servers_per_machine
                          : trainer ? job.trainers_per_machine
                                    : job.num_samplers_per_machine();
  const std::string per_machine_key = server ? "processes.servers"
                                      : trainer ? "processes.trainers"
                                                : "processes.trainers x processes.samplers_per_trainer";
  DG_RETURN_IF_ERROR(CheckIndex(index, "--index", ProcessIndexVariables(), per_machine,
                                per_machine_key + " gives " + std::to_string(per_machine) + " " + role_name +
                                    "(s) per machine"));
  // Before SetupLogging (which needs the rank): a logger of its own, on stderr as every role's lines.
  spdlog::logger log("identity", std::make_shared<spdlog::sinks::stderr_sink_st>());
  for (const std::string& line : {DescribeIndex("machine", machine), DescribeIndex("index", index)})
    if (!line.empty()) log.info("{}: {}", role_name, line);
  // The certificate's files are named by the host as the YAML writes it.
  DG_RETURN_IF_ERROR(LoadJobTls(&job, role_name, a.machine));
  DG_RETURN_IF_ERROR(ResolveMachineHosts(&job, a.machine));
  return job;
}

Result<std::unique_ptr<MetricsHttpServer>> StartRoleMetrics(const RoleArgs& args, const JobConfig* job,
                                                             MetricsRole role, const std::string& host,
                                                             MetricsHttpServer::Render render,
                                                             MetricsHttpServer::ReadyCheck ready) {
  int port = args.metrics_port;
  if (port < 0) port = job ? job->MetricsPort(role, args.machine, args.index) : 0;
  if (port <= 0 && args.metrics_port != 0) return std::unique_ptr<MetricsHttpServer>();
  std::shared_ptr<const TlsContext> tls = job && job->tls.https_metrics ? job->tls.context : nullptr;
  DG_ASSIGN_OR_RETURN(auto server, MetricsHttpServer::Start(host, port, std::move(render), std::move(ready), tls));
  spdlog::info("metrics on {}://{}:{}/metrics", server->https() ? "https" : "http", host, server->port());
  return server;
}

}  // namespace dg
