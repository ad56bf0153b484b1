// TlsContext: one process's TLS 1.3 identity for every connection of a job
// (docs/security.md "TLS").
//
// A job's certificates come from the job's CA (`distgnn certs init|issue`,
// common/net/tls_certs.h). Each certificate names one role in a SAN URI
// `distgnn:role:ROLE` (server, trainer, sampler, launcher, client); the acceptor
// of a connection refuses a HELLO that claims another role than the dialer's
// certificate names (common/net/connection.h), and the dialer refuses a WELCOME
// whose role differs from the acceptor's certificate. A dialer also checks
// that the acceptor's certificate names the host it dialed (SAN IP or DNS).
//
// Load checks everything a first connection would find out later: the files
// are readable PEM, the key is not readable by group or others and belongs to
// the certificate, the certificate is signed by the CA, is valid now, and names
// the process's role. Each failure is one line naming the YAML key and file.
// The SSL context allows TLS 1.3 only (no renegotiation exists in 1.3; the
// context also sets SSL_OP_NO_RENEGOTIATION), asks every peer for a
// certificate, and issues no session tickets (each connection is a full
// handshake with both certificates).
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "common/base/status.h"

typedef struct x509_st X509;
typedef struct ssl_st SSL;

namespace dg {

// The SAN URI prefix naming a certificate's role.
constexpr const char* kRoleUriPrefix = "distgnn:role:";

// The PEM files of one identity, and the YAML keys they came from (for errors).
struct TlsFiles {
  std::string ca, cert, key;
  std::string ca_key = "tls.ca", cert_key = "tls.cert", key_key = "tls.key";
};

class TlsContext {
 public:
  // Loads and checks the files; `role` is the role this process runs as.
  static Result<std::shared_ptr<const TlsContext>> Load(const TlsFiles& files, const std::string& role);

  boost::asio::ssl::context& ssl() const { return ctx_; }
  const std::string& role() const { return role_; }
  // Seconds until the own certificate expires (for the start-up log line).
  int64_t seconds_left() const { return seconds_left_; }

 private:
  TlsContext();
  mutable boost::asio::ssl::context ctx_;
  std::string role_;
  int64_t seconds_left_ = 0;
};

// The role a certificate names (its SAN URI distgnn:role:R), "" when none.
std::string CertificateRole(X509* cert);

// A dialer's check of the acceptor: its certificate must name `host` (a SAN
// IP for an address, else a DNS name). False when OpenSSL refuses the name.
bool ExpectPeerHost(SSL* ssl, const std::string& host);

}  // namespace dg
