// The metrics endpoint: an HTTP/1.1 server (Boost.Beast) on its own thread
// that answers
//   GET /metrics  200, the Prometheus text format produced by a callback at request time
//   GET /healthz  200 "ok": the process is up and its endpoint thread answers
//   GET /readyz   200 "ready" when the role's readiness callback says so (or
//                 there is none), else 503 "not ready: WHY" (one line)
// and 404 for other paths. One request per connection, 5 s per connection; it
// never blocks the role's own threads. Also HttpGet and HttpFetch, the small
// client `distgnn status` and the tests use.
//
// With a TlsContext (the job's `tls.https_metrics`) both speak HTTPS: TLS 1.3
// with the process's certificate of the job's CA, and the client must present
// one too (any role of the job; `distgnn status` the client's), as every
// connection of a TLS job does. A plaintext request to an HTTPS endpoint gets
// no answer and the endpoint serves on.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/base/status.h"
#include "common/net/tls_context.h"

namespace dg {

class MetricsHttpServer {
 public:
  using Render = std::function<std::string()>;  // called on the server thread
  // "" when the role is ready; else why not, one line (called on the server thread).
  using ReadyCheck = std::function<std::string()>;
  // Binds host:port (0 = any free port; see port()); a bind failure names both.
  // `tls` null: plain HTTP.
  static Result<std::unique_ptr<MetricsHttpServer>> Start(const std::string& host, int port, Render render,
                                                          ReadyCheck ready = nullptr,
                                                          std::shared_ptr<const TlsContext> tls = nullptr);
  bool https() const;
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
// With `tls`: https, the endpoint's certificate checked against the CA and `host`.
Result<HttpReply> HttpFetch(const std::string& host, int port, const std::string& path, double timeout_seconds = 3,
                            const std::shared_ptr<const TlsContext>& tls = nullptr);

// HttpFetch's body when the status is 200, else an error naming the address
// and the status (or the connection error).
Result<std::string> HttpGet(const std::string& host, int port, const std::string& path, double timeout_seconds = 3,
                            const std::shared_ptr<const TlsContext>& tls = nullptr);

}  // namespace dg
