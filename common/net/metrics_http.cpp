#include "common/net/metrics_http.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <thread>

namespace dg {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, const MetricsHttpServer::Render* render, const MetricsHttpServer::ReadyCheck* ready)
      : stream_(std::move(socket)), render_(render), ready_(ready) {}

  void Start() {
    stream_.expires_after(std::chrono::seconds(5));
    http::async_read(stream_, buffer_, req_,
                     [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (ec) return;
    res_.version(req_.version());
    res_.keep_alive(false);
    res_.set(http::field::server, "distgnn");
    std::string target(req_.target());
    const std::string path = target.substr(0, target.find('?'));
    if (req_.method() != http::verb::get && req_.method() != http::verb::head) {
      res_.result(http::status::method_not_allowed);
      res_.set(http::field::content_type, "text/plain");
      res_.body() = "only GET\n";
    } else if (path == "/metrics") {
      res_.result(http::status::ok);
      res_.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      res_.body() = (*render_)();
    } else if (path == "/healthz") {
      Plain(http::status::ok, "ok");
    } else if (path == "/readyz") {
      const std::string why = *ready_ ? (*ready_)() : "";
      if (why.empty()) Plain(http::status::ok, "ready");
      else Plain(http::status::service_unavailable, "not ready: " + why);
    } else {
      res_.result(http::status::not_found);
      res_.set(http::field::content_type, "text/plain");
      res_.body() = "not found; metrics are at /metrics\n";
    }
    res_.prepare_payload();
    if (req_.method() == http::verb::head) res_.body().clear();
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code, size_t) {
      beast::error_code ignored;
      self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
  }

  void Plain(http::status status, const std::string& line) {
    res_.result(status);
    res_.set(http::field::content_type, "text/plain");
    res_.body() = line + "\n";
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
  const MetricsHttpServer::Render* render_;
  const MetricsHttpServer::ReadyCheck* ready_;
};

}  // namespace

struct MetricsHttpServer::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  Render render;
  ReadyCheck ready;
  std::string host;
  int port = 0;
  std::thread thread;

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket s) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) std::make_shared<HttpSession>(std::move(s), &render, &ready)->Start();
      Accept();
    });
  }
};

MetricsHttpServer::MetricsHttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(const std::string& host, int port,
                                                                     Render render, ReadyCheck ready) {
  auto impl = std::make_unique<Impl>();
  impl->render = std::move(render);
  impl->ready = std::move(ready);
  impl->host = host;
  const std::string where = host + ":" + std::to_string(port);
  beast::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) {
    tcp::resolver resolver(impl->io);
    auto results = resolver.resolve(host, std::to_string(port), ec);
    if (ec || results.empty()) return Status::InvalidArgument("metrics endpoint: cannot resolve " + host);
    addr = results.begin()->endpoint().address();
  }
  tcp::endpoint ep(addr, static_cast<unsigned short>(port));
  impl->acceptor.open(ep.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(ep, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IOError("metrics endpoint: cannot listen on " + where + ": " + ec.message());
  impl->port = impl->acceptor.local_endpoint().port();
  impl->Accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(std::move(impl)));
}

MetricsHttpServer::~MetricsHttpServer() {
  asio::post(impl_->io, [i = impl_.get()] {
    beast::error_code ec;
    i->acceptor.close(ec);
    i->io.stop();
  });
  if (impl_->thread.joinable()) impl_->thread.join();
}

int MetricsHttpServer::port() const { return impl_->port; }
const std::string& MetricsHttpServer::host() const { return impl_->host; }

Result<HttpReply> HttpFetch(const std::string& host, int port, const std::string& path, double timeout_seconds) {
  const std::string where = "http://" + host + ":" + std::to_string(port) + path;
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  beast::flat_buffer buffer;
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "distgnn");
  http::response<http::string_body> res;
  beast::error_code failure;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
  resolver.async_resolve(host, std::to_string(port), [&](beast::error_code ec, tcp::resolver::results_type r) {
    if (ec) return void(failure = ec);
    stream.expires_after(timeout);
    stream.async_connect(r, [&](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return void(failure = ec);
      http::async_write(stream, req, [&](beast::error_code ec, size_t) {
        if (ec) return void(failure = ec);
        http::async_read(stream, buffer, res, [&](beast::error_code ec, size_t) {
          if (ec) failure = ec;
        });
      });
    });
  });
  io.run();
  if (failure) return Status::PeerLost(where + ": " + failure.message());
  return HttpReply{static_cast<int>(res.result_int()), res.body()};
}

Result<std::string> HttpGet(const std::string& host, int port, const std::string& path, double timeout_seconds) {
  DG_ASSIGN_OR_RETURN(HttpReply reply, HttpFetch(host, port, path, timeout_seconds));
  if (reply.status != 200)
    return Status::Protocol("http://" + host + ":" + std::to_string(port) + path + ": HTTP " +
                            std::to_string(reply.status));
  return std::move(reply.body);
}

}  // namespace dg
