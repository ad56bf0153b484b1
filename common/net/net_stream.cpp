#include "common/net/net_stream.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace dg {

NetStream::NetStream(tcp::socket socket, std::shared_ptr<const TlsContext> tls)
    : plain_(socket.get_executor()), tls_(std::move(tls)) {
  if (tls_) {
    tls_stream_ = std::make_unique<boost::asio::ssl::stream<tcp::socket>>(std::move(socket), tls_->ssl());
  } else {
    plain_ = std::move(socket);
  }
}

bool NetStream::ExpectHost(const std::string& host) { return ExpectPeerHost(tls_stream_->native_handle(), host); }

std::string NetStream::PeerRole() const {
  if (!tls_stream_) return "";
  X509* peer = SSL_get1_peer_certificate(tls_stream_->native_handle());
  std::string role = CertificateRole(peer);
  X509_free(peer);
  return role;
}

std::string NetStream::Description() const {
  if (!tls_stream_) return "plain TCP";
  SSL* ssl = tls_stream_->native_handle();
  return std::string(SSL_get_version(ssl)) + " " + SSL_get_cipher_name(ssl);
}

void NetStream::Close() {
  boost::system::error_code ec;
  socket().shutdown(tcp::socket::shutdown_both, ec);
  socket().close(ec);
}

std::string TlsHandshakeError(const boost::system::error_code& ec) {
  std::string text = ec.message();
  if (ec.category() == boost::asio::error::get_ssl_category()) {
    const int reason = ERR_GET_REASON(static_cast<unsigned long>(ec.value()));
    if (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG ||
        reason == SSL_R_HTTP_REQUEST) {
      text += " (the peer does not speak TLS: is tls: on for every process of the job?)";
    } else if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
      text += " (the peer's certificate is not from this job's CA, expired, or names another host)";
    } else if (reason == SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE) {
      text += " (the peer presented no certificate)";
    }
  }
  return text;
}

}  // namespace dg
