#include "common/net/lease_channel.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/net/openssl_handles.h"
#include "common/net/tls_context.h"

namespace dg {

LeaseChannel::~LeaseChannel() {
  if (ssl_ != nullptr) {
    // close_notify (one try, never waits): the peer reads a closed lease, not a broken one.
    if (handshaken_) {
      ERR_clear_error();
      SSL_shutdown(ssl_);
      ERR_clear_error();
    }
    SSL_free(ssl_);
  }
  if (fd_ >= 0) close(fd_);
}

bool LeaseChannel::Open(int fd, SSL_CTX* ctx, bool server) {
  fd_ = fd;
  if (ctx == nullptr) {
    handshaken_ = true;
    return true;
  }
  ERR_clear_error();
  ssl_ = SSL_new(ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) {
    error_ = OpenSslErrorText();
    return false;
  }
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (server) SSL_set_accept_state(ssl_);
  else SSL_set_connect_state(ssl_);
  return true;
}

// What an SSL call's return code means for a non-blocking caller.
LeaseChannel::Io LeaseChannel::SslResult(int rc) {
  const int e = SSL_get_error(ssl_, rc);
  want_write_ = e == SSL_ERROR_WANT_WRITE;
  if (e == SSL_ERROR_WANT_READ) return Io::kWantRead;
  if (e == SSL_ERROR_WANT_WRITE) return Io::kWantWrite;
  if (e == SSL_ERROR_ZERO_RETURN) return Io::kClosed;
  if (e == SSL_ERROR_SYSCALL) {
    const int err = errno;
    error_ = OpenSslErrorText();
    if (error_.empty()) error_ = err != 0 ? std::strerror(err) : "the peer closed the connection";
    return Io::kError;
  }
  // The peer's socket closed without a close_notify (its process died): the
  // same as a plaintext EOF.
  if (ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
    ERR_clear_error();
    error_ = "the peer closed the connection";
    return Io::kClosed;
  }
  error_ = OpenSslErrorText();
  if (error_.empty()) error_ = "TLS error " + std::to_string(e);
  return Io::kError;
}

LeaseChannel::Io LeaseChannel::Handshake() {
  if (handshaken_) return Io::kDone;
  ERR_clear_error();
  const int rc = SSL_do_handshake(ssl_);
  if (rc == 1) {
    handshaken_ = true;
    want_write_ = false;
    return Io::kDone;
  }
  return SslResult(rc);
}

LeaseChannel::Io LeaseChannel::Read(char* buf, size_t n, size_t* got) {
  *got = 0;
  if (ssl_ == nullptr) {
    ssize_t r = recv(fd_, buf, n, MSG_DONTWAIT);
    if (r > 0) {
      *got = static_cast<size_t>(r);
      return Io::kDone;
    }
    if (r == 0) return Io::kClosed;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Io::kWantRead;
    error_ = std::strerror(errno);
    return Io::kError;
  }
  ERR_clear_error();
  size_t r = 0;
  if (SSL_read_ex(ssl_, buf, n, &r) == 1) {
    want_write_ = false;
    *got = r;
    return Io::kDone;
  }
  return SslResult(0);
}

bool LeaseChannel::Write(const std::string& s) {
  out_ += s;
  return Flush();
}

bool LeaseChannel::Flush() {
  while (!out_.empty()) {
    if (ssl_ == nullptr) {
      ssize_t n = send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
      if (n <= 0) return false;
      out_.erase(0, static_cast<size_t>(n));
      continue;
    }
    ERR_clear_error();
    size_t n = 0;
    if (SSL_write_ex(ssl_, out_.data(), out_.size(), &n) == 1) {
      want_write_ = false;
      out_.erase(0, n);
      continue;
    }
    const Io io = SslResult(0);
    return io == Io::kWantRead || io == Io::kWantWrite;
  }
  return true;
}

std::string LeaseChannel::PeerRole() const {
  return ssl_ != nullptr ? CertificateRole(SSL_get0_peer_certificate(ssl_)) : "";
}

bool LeaseChannel::PeerNamesAnyHost() const {
  X509* cert = ssl_ != nullptr ? SSL_get0_peer_certificate(ssl_) : nullptr;
  if (cert == nullptr) return false;
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return false;
  bool any = false;
  for (int i = 0; i < sk_GENERAL_NAME_num(names) && !any; ++i) {
    const int type = sk_GENERAL_NAME_value(names, i)->type;
    any = type == GEN_IPADD || type == GEN_DNS;
  }
  GENERAL_NAMES_free(names);
  return any;
}

bool LeaseChannel::PeerNamesHost(const std::string& host) const {
  X509* cert = ssl_ != nullptr ? SSL_get0_peer_certificate(ssl_) : nullptr;
  if (cert == nullptr) return false;
  const bool ok = X509_check_ip_asc(cert, host.c_str(), 0) == 1 ||
                  X509_check_host(cert, host.c_str(), host.size(),
                                  X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT,
                                  nullptr) == 1;
  ERR_clear_error();
  return ok;
}

short LeaseChannel::Events() const { return POLLIN | ((want_write_ || !out_.empty()) ? POLLOUT : 0); }

}  // namespace dg
