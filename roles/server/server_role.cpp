// `distgnn --role server`: serve one partition until SHUTDOWN or SIGTERM/SIGINT.
//
//   distgnn --role server --config JOB.yaml --machine M [--index I]
//   distgnn --role server --partition-config NAME.json --part P --host H --port N [--token T]
//
// With --config, the partition, bind address (machines[M].host), port
// (ports.server + M * servers + I), token and limits come from the job YAML;
// the standalone flags (for tests and systemd units) override single values.
// --metrics-port (or ports.metrics) serves Prometheus metrics (server_metrics.cpp).
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <thread>

#include "cmd/cli.h"
#include "roles/job/role_args.h"
#include "common/base/logging.h"
#include "config/job_config.h"
#include "roles/server/graph_server.h"

namespace dg {

int RunServerRole(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn --role server: serve one graph partition");
  RoleArgs args;
  std::string partition_config, host, token;
  int part = -1, port = -1, threads = 0;
  int64_t max_frame = -1, mutable_bytes = -2, max_fanout = -1;
  int64_t max_aggregate_edges = -1;  // issue 16
  int threads_per_conn = -1, max_connections = -1;
  double heartbeat = -1, peer_timeout = -1;
  bool insecure = false;
  desc.add_options()
      ("help,h", "show this help")
      ("partition-config", po::value(&partition_config), "partition json (standalone mode)")
      ("part", po::value(&part), "partition id (standalone mode)")
      ("host", po::value(&host), "address to bind (standalone mode)")
      ("port", po::value(&port), "port to bind (standalone mode; 0 = any)")
      ("token", po::value(&token), "cluster token (default: env DISTGNN_TOKEN)")
      ("threads", po::value(&threads)->default_value(0), "server threads (0 = this machine's share of the host's cores / servers per machine)")
      ("max-frame-bytes", po::value(&max_frame), "largest accepted frame payload (default 1 GiB)")
      ("heartbeat", po::value(&heartbeat), "seconds between heartbeats on idle connections")
      ("peer-timeout", po::value(&peer_timeout), "seconds of silence before a client is dropped")
      ("mutable-tensor-bytes", po::value(&mutable_bytes), "budget for all mutable tensors (default: half the RAM)")
      ("max-fanout", po::value(&max_fanout), "largest SAMPLE_NEIGHBORS fanout with replacement (default 1000000)")
      ("max-aggregate-edges", po::value(&max_aggregate_edges), "in-edges one PULL_AGGREGATE may sum (default 2^30)")
      ("max-threads-per-connection", po::value(&threads_per_conn), "pool threads one connection may hold (0 = threads - 1)")
      ("max-connections", po::value(&max_connections), "open connections (default 1024)")
      ("insecure", po::bool_switch(&insecure), "serve a non-loopback address without a cluster token");
  AddRoleOptions(&desc, &args);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm);
  if (!st.ok()) return cli::ExitCode(argv[0], st);

  ServerOptions opt;
  {
    auto env_token = TokenFromEnvironment();
    if (!env_token.ok()) return cli::ExitCode(argv[0], env_token.status());
    opt.token = *env_token;
  }
  const int machine = args.machine, index = args.index;
  Result<JobConfig> job = Status::NotFound("no --config");
  if (!args.config.empty()) {
    job = LoadRoleJob(args, "server");
    if (!job.ok()) return cli::ExitCode(argv[0], job.status());
    opt.partition_config = job->partition;
    opt.part = machine;
    opt.host = job->machines[machine].host;
    opt.port = job->ServerPort(machine, index);
    if (!job->token.empty()) opt.token = job->token;
    opt.max_frame_bytes = job->max_frame_bytes;
    opt.heartbeat_seconds = job->heartbeat_seconds;
    opt.peer_timeout_seconds = job->peer_timeout_seconds;
    opt.threads = std::max(1, job->CoresPerMachine(machine) / job->servers_per_machine);
    opt.mutable_tensor_bytes = job->limits.mutable_tensor_bytes;
    opt.max_fanout = job->limits.max_fanout;
    opt.max_pending_bytes = job->limits.max_pending_bytes;
    opt.max_pending = job->limits.max_pending;
    opt.max_threads_per_connection = job->limits.max_threads_per_connection;
    opt.max_queued_request_bytes = job->limits.max_queued_request_bytes;
    opt.max_aggregate_edges = job->limits.max_aggregate_edges;
    opt.max_connections = job->limits.max_connections;
  } else if (partition_config.empty() || part < 0 || host.empty() || port < 0) {
    return cli::ExitCode(argv[0], Status::InvalidArgument(
                                      "give --config JOB.yaml --machine M, or --partition-config FILE.json "
                                      "--part P --host H --port N"));
  }
  if (!partition_config.empty()) opt.partition_config = partition_config;
  if (part >= 0) opt.part = part;
  if (!host.empty()) opt.host = host;
  if (port >= 0) opt.port = port;
  if (vm.count("token")) opt.token = token;
  opt.index = index;
  if (threads > 0) opt.threads = threads;
  if (opt.threads <= 0) opt.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (max_frame > 0) opt.max_frame_bytes = max_frame;
  if (heartbeat > 0) opt.heartbeat_seconds = heartbeat;
  if (peer_timeout > 0) opt.peer_timeout_seconds = peer_timeout;
  if (mutable_bytes >= -1) opt.mutable_tensor_bytes = mutable_bytes;
  if (max_fanout > 0) opt.max_fanout = max_fanout;
  if (max_aggregate_edges > 0) opt.max_aggregate_edges = max_aggregate_edges;
  if (threads_per_conn >= 0) opt.max_threads_per_connection = threads_per_conn;
  if (max_connections > 0) opt.max_connections = max_connections;
  // No open cluster by accident: without a token only loopback may be served.
  if (opt.token.empty() && !insecure && !IsLoopbackAddress(opt.host)) {
    return cli::ExitCode(argv[0], Status::InvalidArgument(
        "refusing to serve " + opt.host + " without a cluster token: anyone who can reach it could read, "
        "change or shut down this partition. Set token: in the job YAML, DISTGNN_TOKEN or DISTGNN_TOKEN_FILE "
        "(distgnn launch makes one per job), or pass --insecure on a trusted network"));
  }

  SetupLogging("server", opt.part, args.log_level);
  auto server = GraphServer::Create(opt);
  if (!server.ok()) {
    spdlog::error("{}", server.status().ToString());
    return cli::ExitCode(argv[0], server.status());
  }
  GraphServer* srv = server->get();
  auto metrics = StartRoleMetrics(args, job.ok() ? &*job : nullptr, MetricsRole::kServer, opt.host,
                                  [srv] { return srv->MetricsText(); });
  if (!metrics.ok()) {
    spdlog::error("{}", metrics.status().ToString());
    return cli::ExitCode(argv[0], metrics.status());
  }
  Status run = (*server)->Run();
  metrics->reset();  // before the server goes
  spdlog::info("peak RSS {:.1f} MB", PeakRssBytes() / 1048576.0);
  return cli::ExitCode(argv[0], run);
}

}  // namespace dg
