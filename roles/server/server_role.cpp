// `distgnn --role server`: serve one partition until SHUTDOWN or SIGTERM/SIGINT.
//
//   distgnn --role server --config JOB.yaml --machine M [--index I]
//   distgnn --role server --partition-config NAME.json --part P --host H --port N [--token T]
//
// With --config, the partition, bind address (machines[M].host), port
// (ports.server + M * servers + I), token and limits come from the job YAML;
// the standalone flags (for tests and systemd units) override single values.
// --metrics-port (or ports.metrics) serves Prometheus metrics (server_metrics.cpp),
// /healthz and /readyz (ready once it listens with its part checked).
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "roles/job/job_client.h"
#include "roles/job/role_args.h"
#include "common/base/logging.h"
#include "common/net/message_bytes.h"
#include "common/net/prometheus.h"
#include "common/storage/partition_check.h"
#include "config/job_config.h"
#include "roles/server/graph_server.h"
#include "roles/server/server_role.h"

namespace dg {

namespace {

// Checks the part, listens and serves until SHUTDOWN or a signal; the metrics
// endpoint (with /healthz and /readyz) runs from the start.
Status Serve(const ServerOptions& opt, const RoleArgs& args, const JobConfig* job, bool checksums) {
  // The endpoint answers while the part is checked and mapped: /healthz at
  // once, /readyz 503 until the server listens with its part checked.
  std::atomic<GraphServer*> serving{nullptr};
  const auto started = std::chrono::steady_clock::now();
  const std::string not_ready = "checking and mapping part " + std::to_string(opt.part) + " of " +
                                opt.partition_config + " before listening on " + opt.host + ":" +
                                std::to_string(opt.port);
  auto metrics = StartRoleMetrics(
      args, job, MetricsRole::kServer, opt.host,
      [&serving, started] {
        if (GraphServer* srv = serving.load()) return srv->MetricsText();
        PromText out;
        AddProcessMetrics(&out, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        return out.str();
      },
      [&serving, not_ready] { return serving.load() ? std::string() : not_ready; });
  if (!metrics.ok()) {
    spdlog::error("{}", metrics.status().ToString());
    return metrics.status();
  }
  // A damaged part is refused here, before anything listens (common/storage/partition_check.h).
  DG_ASSIGN_OR_RETURN(std::string checked, CheckServedPart(opt.partition_config, opt.part, checksums));
  spdlog::info("{}", checked);
  auto server = GraphServer::Create(opt);
  if (!server.ok()) {
    spdlog::error("{}", server.status().ToString());
    return server.status();
  }
  serving = server->get();
  Status run = (*server)->Run();
  metrics->reset();  // before the server goes
  spdlog::info("{}", MessageBytesLogLine(MessageBytesSnapshot()));  // distgnn report reads it
  spdlog::info("peak RSS {:.1f} MB", PeakRssBytes() / 1048576.0);
  return run;
}

// --tls-ca, --tls-cert and --tls-key: the TLS identity of a server started without a YAML.
Status LoadFlagTls(TlsFiles files, ConnectionOptions* connection) {
  const int given = !files.ca.empty() + !files.cert.empty() + !files.key.empty();
  if (given == 0) return Status::OK();
  if (given != 3) return Status::InvalidArgument("TLS needs all of --tls-ca, --tls-cert and --tls-key");
  files.ca_key = "--tls-ca";
  files.cert_key = "--tls-cert";
  files.key_key = "--tls-key";
  auto tls = TlsContext::Load(files, kRoleServer);
  if (!tls.ok()) return Status::InvalidArgument("TLS: " + tls.status().message());
  connection->tls = *tls;
  return Status::OK();
}

}  // namespace

Status RunServerProcess(const ServerProcessOptions& flags) {
  const RoleArgs& args = flags.role;
  const std::string &partition_config = flags.partition_config, &host = flags.host, &token = flags.token;
  const int part = flags.part, port = flags.port, threads = flags.threads;
  const int64_t max_frame = flags.max_frame_bytes, mutable_bytes = flags.mutable_tensor_bytes,
                max_fanout = flags.max_fanout, max_aggregate_edges = flags.max_aggregate_edges;
  const int threads_per_conn = flags.max_threads_per_connection, max_connections = flags.max_connections;
  const double heartbeat = flags.heartbeat_seconds, peer_timeout = flags.peer_timeout_seconds;
  const bool insecure = flags.insecure;
  ServerOptions opt;
  {
    auto env_token = TokenFromEnvironment();
    if (!env_token.ok()) return env_token.status();
    opt.token = *env_token;
  }
  const int machine = args.machine, index = args.index;
  Result<JobConfig> job = Status::NotFound("no --config");
  if (!args.config.empty()) {
    job = LoadRoleJob(args, MetricsRole::kServer);
    if (!job.ok()) return job.status();
    opt.partition_config = job->partition;
    opt.part = machine;
    opt.host = job->machines[machine].host;
    opt.port = job->ServerPort(machine, index);
    if (!job->token.empty()) opt.token = job->token;
    opt.connection = JobConnectionOptions(*job);
    opt.threads = std::max(1, job->CoresPerMachine(machine) / job->servers_per_machine);
    opt.limits = job->limits;
    opt.stop_seconds = job->stop_seconds;
  } else if (partition_config.empty() || part < 0 || host.empty() || port < 0) {
    return Status::InvalidArgument(
        "give --config JOB.yaml --machine M, or --partition-config FILE.json --part P --host H --port N");
  }
  if (!partition_config.empty()) opt.partition_config = partition_config;
  if (part >= 0) opt.part = part;
  if (!host.empty()) opt.host = host;
  if (port >= 0) opt.port = port;
  if (flags.token_given) opt.token = token;
  opt.index = index;
  if (threads > 0) opt.threads = threads;
  if (opt.threads <= 0) opt.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (max_frame > 0) opt.connection.max_frame_bytes = max_frame;
  if (heartbeat > 0) opt.connection.heartbeat_seconds = heartbeat;
  if (peer_timeout > 0) opt.connection.peer_timeout_seconds = peer_timeout;
  if (mutable_bytes >= -1) opt.limits.mutable_tensor_bytes = mutable_bytes;
  if (max_fanout > 0) opt.limits.max_fanout = max_fanout;
  if (max_aggregate_edges > 0) opt.limits.max_aggregate_edges = max_aggregate_edges;
  if (threads_per_conn >= 0) opt.limits.max_threads_per_connection = threads_per_conn;
  if (max_connections > 0) opt.limits.max_connections = max_connections;
  if (flags.max_handshaking_connections > 0) opt.limits.max_handshaking_connections = flags.max_handshaking_connections;
  if (flags.handshake_timeout_seconds > 0) opt.limits.handshake_timeout_seconds = flags.handshake_timeout_seconds;
  DG_RETURN_IF_ERROR(LoadFlagTls(flags.tls, &opt.connection));
  // No open cluster by accident: without a token or TLS only loopback may be served.
  if (opt.token.empty() && !opt.connection.tls && !insecure && !IsLoopbackAddress(opt.host)) {
    return Status::InvalidArgument(
        "refusing to serve " + opt.host + " without a cluster token: anyone who can reach it could read, "
        "change or shut down this partition. Set token: in the job YAML, DISTGNN_TOKEN or DISTGNN_TOKEN_FILE "
        "(distgnn launch makes one per job), or pass --insecure on a trusted network");
  }

  SetupLogging("server", opt.part, args.log_level);
  if (job.ok()) HoldLaunchLease(args, *job, "server");
  return Serve(opt, args, job.ok() ? &*job : nullptr, flags.verify_checksums || (job.ok() && job->verify_checksums));
}

}  // namespace dg
