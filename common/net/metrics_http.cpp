#include "common/net/metrics_http.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <thread>
#include <type_traits>

namespace dg {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

namespace {

template <class Stream>
constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

// One request on a plain or TLS stream (a TLS session shakes hands first:
// a peer without the job's certificate ends there).
template <class Stream>
class HttpSession : public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  template <class... Args>
  HttpSession(const MetricsHttpServer::Render* render, const MetricsHttpServer::ReadyCheck* ready, Args&&... args)
      : stream_(std::forward<Args>(args)...), render_(render), ready_(ready) {}

  void Start() {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(5));
    if constexpr (kTls<Stream>) {
      stream_.async_handshake(asio::ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
        if (!ec) self->Read();
      });
    } else {
      Read();
    }
  }

 private:
  void Read() {
    http::async_read(stream_, buffer_, req_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

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
    http::async_write(stream_, res_, [self = this->shared_from_this()](beast::error_code, size_t) {
      beast::error_code ignored;
      beast::get_lowest_layer(self->stream_).socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
  }

  void Plain(http::status status, const std::string& line) {
    res_.result(status);
    res_.set(http::field::content_type, "text/plain");
    res_.body() = line + "\n";
  }

  Stream stream_;
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
  std::shared_ptr<const TlsContext> tls;
  std::string host;
  int port = 0;
  std::thread thread;

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket s) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec && tls)
        std::make_shared<HttpSession<TlsStream>>(&render, &ready, std::move(s), tls->ssl())->Start();
      else if (!ec)
        std::make_shared<HttpSession<beast::tcp_stream>>(&render, &ready, std::move(s))->Start();
      Accept();
    });
  }
};

MetricsHttpServer::MetricsHttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(const std::string& host, int port,
                                                                     Render render, ReadyCheck ready,
                                                                     std::shared_ptr<const TlsContext> tls) {
  auto impl = std::make_unique<Impl>();
  impl->render = std::move(render);
  impl->ready = std::move(ready);
  impl->tls = std::move(tls);
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
bool MetricsHttpServer::https() const { return impl_->tls != nullptr; }
const std::string& MetricsHttpServer::host() const { return impl_->host; }

namespace {

// GET `path` over `stream` (resolve, connect, the TLS handshake on a TLS
// stream, write, read), run on `io`; the first error, if any, in *failure.
template <class Stream>
http::response<http::string_body> Fetch(asio::io_context& io, Stream& stream, const std::string& host, int port,
                                        const std::string& path, std::chrono::milliseconds timeout,
                                        beast::error_code* failure) {
  tcp::resolver resolver(io);
  beast::flat_buffer buffer;
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, host);
  req.set(http::field::user_agent, "distgnn");
  http::response<http::string_body> res;
  auto exchange = [&] {
    http::async_write(stream, req, [&](beast::error_code ec, size_t) {
      if (ec) return void(*failure = ec);
      http::async_read(stream, buffer, res, [&](beast::error_code ec, size_t) {
        if (ec) *failure = ec;
      });
    });
  };
  resolver.async_resolve(host, std::to_string(port), [&](beast::error_code ec, tcp::resolver::results_type r) {
    if (ec) return void(*failure = ec);
    beast::get_lowest_layer(stream).expires_after(timeout);
    beast::get_lowest_layer(stream).async_connect(r, [&](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return void(*failure = ec);
      if constexpr (kTls<Stream>) {
        stream.async_handshake(asio::ssl::stream_base::client, [&](beast::error_code ec) {
          if (ec) return void(*failure = ec);
          exchange();
        });
      } else {
        exchange();
      }
    });
  });
  io.run();
  return res;
}

}  // namespace

Result<HttpReply> HttpFetch(const std::string& host, int port, const std::string& path, double timeout_seconds,
                            const std::shared_ptr<const TlsContext>& tls) {
  const std::string where = (tls ? "https://" : "http://") + host + ":" + std::to_string(port) + path;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
  asio::io_context io;
  beast::error_code failure;
  http::response<http::string_body> res;
  if (tls) {
    TlsStream stream(io, tls->ssl());
    if (!ExpectPeerHost(stream.native_handle(), host))
      return Status::InvalidArgument(where + ": cannot check a certificate against host '" + host + "'");
    res = Fetch(io, stream, host, port, path, timeout, &failure);
  } else {
    beast::tcp_stream stream(io);
    res = Fetch(io, stream, host, port, path, timeout, &failure);
  }
  if (failure) return Status::PeerLost(where + ": " + failure.message());
  return HttpReply{static_cast<int>(res.result_int()), res.body()};
}

Result<std::string> HttpGet(const std::string& host, int port, const std::string& path, double timeout_seconds,
                            const std::shared_ptr<const TlsContext>& tls) {
  DG_ASSIGN_OR_RETURN(HttpReply reply, HttpFetch(host, port, path, timeout_seconds, tls));
  if (reply.status != 200)
    return Status::Protocol(std::string(tls ? "https://" : "http://") + host + ":" + std::to_string(port) + path + ": HTTP " +
                            std::to_string(reply.status));
  return std::move(reply.body);
}

}  // namespace dg
