// The metrics endpoint: an HTTP/1.1 server (Boost.Beast) on its own thread
// that answers
//   GET /metrics  200, the Prometheus text format produced by a callback at request time
//   GET /healthz  200 "ok": the process is up and its endpoint thread answers
//   GET /readyz   200 "ready" when the role's readiness callback says so (or
//                 there is none), else 503 "not ready: WHY" (one line)
// and 404 for other paths. One request per connection, 5 s per connection; it
// never blocks the role's own threads. Also HttpGet and HttpFetch, the small
// client `distgnn status` and the tests use.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/base/status.h"

namespace dg {

class MetricsHttpServer {
 public:
  using Render = std::function<std::string()>;  // called on the server thread
  // "" when the role is ready; else why not, one line (called on the server thread).
  using ReadyCheck = std::function<std::string()>;
  // Binds host:port (0 = any free port; see port()); a bind failure names both.
  static Result<std::unique_ptr<MetricsHttpServer>> Start(const std::string& host, int port, Render render,
                                                          ReadyCheck ready = nullptr);
  ~MetricsHttpServer();  // stops and joins the thread
  int port() const;
  const std::string& host() const;

 private:
  struct Impl;
  explicit MetricsHttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct HttpReply {
  int status = 0;
  std::string body;
};

// GET http://host:port/path: the status and the body, whatever the status; an
// error naming the address when no reply came (connection refused, timeout).
Result<HttpReply> HttpFetch(const std::string& host, int port, const std::string& path, double timeout_seconds = 3);

// HttpFetch's body when the status is 200, else an error naming the address
// and the status (or the connection error).
Result<std::string> HttpGet(const std::string& host, int port, const std::string& path, double timeout_seconds = 3);

}  // namespace dg
