// NetStream: the byte stream under every framed connection of a job: plain
// TCP, or TLS 1.3 over TCP when the job's settings give a TlsContext. Connection
// (common/net/connection.h) reads and writes through it and never asks which;
// only the start (Handshake) and the peer's proven role differ.
//
// It is an Asio AsyncReadStream/AsyncWriteStream, so asio::async_read and
// asio::async_write compose over it. Like the ssl::stream it may hold, it
// allows one read and one write in flight at once, both started from the same
// strand, and Handshake must complete before either starts.
#pragma once

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "common/net/tls_context.h"

namespace dg {

class NetStream {
 public:
  using tcp = boost::asio::ip::tcp;
  using executor_type = tcp::socket::executor_type;
  using HandshakeDone = std::function<void(const boost::system::error_code&)>;

  // Plain TCP when `tls` is null.
  NetStream(tcp::socket socket, std::shared_ptr<const TlsContext> tls);

  // The TLS handshake: as the client when `dialed_host` is set (the acceptor's
  // certificate must name that host), else as the server. Without TLS it
  // completes at once. `done` runs as a handler of the stream's operations.
  template <typename Executor>
  void Handshake(const std::string& dialed_host, Executor ex, HandshakeDone done);

  executor_type get_executor() { return socket().get_executor(); }
  tcp::socket& socket() { return tls_stream_ ? tls_stream_->next_layer() : plain_; }
  bool is_tls() const { return tls_stream_ != nullptr; }
  // The role the peer's verified certificate names ("" without TLS).
  std::string PeerRole() const;
  // "TLSv1.3 TLS_AES_256_GCM_SHA384", or "plain TCP".
  std::string Description() const;

  template <typename Buffers, typename Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    if (tls_stream_) {
      tls_stream_->async_read_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_.async_read_some(buffers, std::forward<Handler>(handler));
    }
  }
  template <typename Buffers, typename Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (tls_stream_) {
      tls_stream_->async_write_some(buffers, std::forward<Handler>(handler));
    } else {
      plain_.async_write_some(buffers, std::forward<Handler>(handler));
    }
  }

  // Shuts the socket down and closes it (no TLS close_notify: the peer sees
  // the connection end, as with plain TCP).
  void Close();

 private:
  // Client side: SNI-free host check of the acceptor's certificate; false when
  // OpenSSL refuses the name.
  bool ExpectHost(const std::string& host);

  tcp::socket plain_;  // the socket when plain; moved into tls_stream_ otherwise
  std::shared_ptr<const TlsContext> tls_;
  std::unique_ptr<boost::asio::ssl::stream<tcp::socket>> tls_stream_;
};

// A description of a failed TLS handshake for a log line or an error: the
// OpenSSL reason and, for the usual mistakes, what to check.
std::string TlsHandshakeError(const boost::system::error_code& ec);

template <typename Executor>
void NetStream::Handshake(const std::string& dialed_host, Executor ex, HandshakeDone done) {
  if (!tls_stream_) {
    boost::asio::post(ex, [done] { done({}); });
    return;
  }
  if (!dialed_host.empty() && !ExpectHost(dialed_host)) {
    boost::asio::post(ex, [done] { done(boost::asio::error::invalid_argument); });
    return;
  }
  const auto side = dialed_host.empty() ? boost::asio::ssl::stream_base::server : boost::asio::ssl::stream_base::client;
  tls_stream_->async_handshake(side, boost::asio::bind_executor(ex, std::move(done)));
}

}  // namespace dg
