// GraphServer's per-connection state (graph_server.cpp: connections, the
// handshake and dispatch to the handler table).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "common/net/connection.h"
#include "common/net/handshake.h"
#include "roles/server/graph_server.h"

namespace dg {

struct GraphServer::Session {
  std::shared_ptr<Connection> conn;
  std::string remote;
  std::unique_ptr<HandshakeAcceptor> handshake;  // until authenticated (strand only)
  std::string role;  // from the authenticated HELLO
  int32_t rank = -1;
  std::atomic<bool> ready{false};
  std::atomic<int> inflight{0};
  std::atomic<bool> paused{false};
};

}  // namespace dg
