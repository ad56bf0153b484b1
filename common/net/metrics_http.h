// The metrics endpoint: an HTTP/1.1 server (Boost.Beast) on its own thread
// that answers GET /metrics with the Prometheus text format produced by a
// callback at request time (other paths: 404). One request per connection, 5 s
// per connection; it never blocks the role's own threads. Also HttpGet, the
// small client `distgnn status` and the tests use.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/base/status.h"

namespace dg {

class MetricsHttpServer {
 public:
  using Render = std::function<std::string()>;  // called on the server thread
  // Binds host:port (0 = any free port; see port()); a bind failure names both.
  static Result<std::unique_ptr<MetricsHttpServer>> Start(const std::string& host, int port, Render render);
  ~MetricsHttpServer();  // stops and joins the thread
  int port() const;
  const std::string& host() const;

 private:
  struct Impl;
  explicit MetricsHttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// GET http://host:port/path; the body when the status is 200, else an error
// naming the address and the status (or the connection error).
Result<std::string> HttpGet(const std::string& host, int port, const std::string& path, double timeout_seconds = 3);

}  // namespace dg
