// `distgnn --role server`: flags of the server role (roles/server/server_role.h).
//
//   distgnn --role server --config JOB.yaml --machine M [--index I]
//   distgnn --role server --partition-config NAME.json --part P --host H --port N [--token T]
#include "cmd/cli.h"
#include "cmd/role_flags.h"
#include "roles/server/server_role.h"

namespace dg {

int RunServerRole(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn --role server: serve one graph partition");
  ServerProcessOptions o;
  desc.add_options()
      ("help,h", "show this help")
      ("partition-config", po::value(&o.partition_config), "partition json (standalone mode)")
      ("part", po::value(&o.part), "partition id (standalone mode)")
      ("host", po::value(&o.host), "address to bind (standalone mode)")
      ("port", po::value(&o.port), "port to bind (standalone mode; 0 = any)")
      ("token", po::value(&o.token), "cluster token (default: env DISTGNN_TOKEN)")
      ("threads", po::value(&o.threads)->default_value(0), "server threads (0 = this machine's share of the host's cores / servers per machine)")
      ("max-frame-bytes", po::value(&o.max_frame_bytes), "largest accepted frame payload (default 1 GiB)")
      ("heartbeat", po::value(&o.heartbeat_seconds), "seconds between heartbeats on idle connections")
      ("peer-timeout", po::value(&o.peer_timeout_seconds), "seconds of silence before a client is dropped")
      ("mutable-tensor-bytes", po::value(&o.mutable_tensor_bytes), "budget for all mutable tensors (default: half the RAM)")
      ("max-fanout", po::value(&o.max_fanout), "largest SAMPLE_NEIGHBORS fanout with replacement (default 1000000)")
      ("max-aggregate-edges", po::value(&o.max_aggregate_edges), "in-edges one PULL_AGGREGATE may sum (default 2^30)")
      ("max-threads-per-connection", po::value(&o.max_threads_per_connection), "pool threads one connection may hold (0 = threads - 1)")
      ("max-connections", po::value(&o.max_connections), "authenticated connections (default 1024)")
      ("max-handshaking-connections", po::value(&o.max_handshaking_connections),
       "connections still in their handshake; when full the oldest is closed (default 64)")
      ("handshake-timeout", po::value(&o.handshake_timeout_seconds), "seconds from accept to a finished handshake (default 5)")
      ("insecure", po::bool_switch(&o.insecure), "serve a non-loopback address without a cluster token")
      ("tls-ca", po::value(&o.tls.ca), "TLS 1.3 (standalone mode): the job's CA certificate (with --tls-cert, --tls-key)")
      ("tls-cert", po::value(&o.tls.cert), "TLS: this server's certificate (role server; distgnn certs issue)")
      ("tls-key", po::value(&o.tls.key), "TLS: this server's private key (mode 0600)")
      ("verify-checksums", po::bool_switch(&o.verify_checksums),
       "before listening, also compare the part's files with the SHA-256 checksums NAME.json records (reads every byte)");
  AddRoleOptions(&desc, &o.role);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm);
  if (!st.ok()) return RoleExitCode(argv[0], st);
  o.token_given = vm.count("token") > 0;
  return RoleExitCode(argv[0], RunServerProcess(o));
}

}  // namespace dg
