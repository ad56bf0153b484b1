// The server role (`distgnn --role server`): serve one partition until
// SHUTDOWN or SIGTERM/SIGINT. With a job YAML (role.config) the partition,
// address, port, token and limits come from it; the standalone values below
// (tests, systemd units) override single ones. A value left at its default
// (negative, empty) is not given.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/net/tls_context.h"
#include "roles/job/role_args.h"

namespace dg {

struct ServerProcessOptions {
  RoleArgs role;
  std::string partition_config, host, token;
  bool token_given = false;  // --token, even empty, wins over DISTGNN_TOKEN and the YAML
  int part = -1, port = -1;
  int threads = 0;  // 0 = this machine's share of the cores
  int64_t max_frame_bytes = -1, mutable_tensor_bytes = -2, max_fanout = -1, max_aggregate_edges = -1;
  int max_threads_per_connection = -1, max_connections = -1, max_handshaking_connections = -1;
  double handshake_timeout_seconds = -1;
  double heartbeat_seconds = -1, peer_timeout_seconds = -1;
  bool insecure = false;  // serve a non-loopback address without a token
  bool verify_checksums = false;  // also check the part's files against NAME.json's checksums at start
  TlsFiles tls;  // --tls-ca/--tls-cert/--tls-key: TLS 1.3 without a YAML (all three, or none)
};

Status RunServerProcess(const ServerProcessOptions& options);

}  // namespace dg
