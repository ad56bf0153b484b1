#include "common/net/tls_context.h"

#include <boost/asio/ip/address.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

#include "common/net/openssl_handles.h"

namespace dg {
namespace {

struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
struct StoreCtxFree {
  void operator()(X509_STORE_CTX* s) const { X509_STORE_CTX_free(s); }
};

std::string Where(const std::string& key, const std::string& file) { return key + " " + file; }

// The oldest error OpenSSL queued (and clears the queue).
std::string OpenSslError() { return OpenSslErrorText("no PEM data"); }

Result<std::vector<X509Ptr>> ReadCertificates(const std::string& key, const std::string& file) {
  FILE* f = std::fopen(file.c_str(), "r");
  if (f == nullptr) return Status::FromErrno(Where(key, file), errno);
  std::vector<X509Ptr> out;
  while (X509* x = PEM_read_X509(f, nullptr, nullptr, nullptr)) out.emplace_back(x);
  std::fclose(f);
  ERR_clear_error();  // the end of the file reads as an error
  if (out.empty()) return Status::InvalidArgument(Where(key, file) + ": no PEM certificate in the file");
  return out;
}

Result<KeyPtr> ReadKey(const std::string& key, const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return Status::FromErrno(Where(key, file), errno);
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%03o", unsigned(st.st_mode & 0777));
    return Status::InvalidArgument(Where(key, file) + " has mode " + mode +
                                   ": a private key must be readable by its owner only (chmod 600)");
  }
  FILE* f = std::fopen(file.c_str(), "r");
  if (f == nullptr) return Status::FromErrno(Where(key, file), errno);
  EVP_PKEY* k = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (k == nullptr) return Status::InvalidArgument(Where(key, file) + ": not a PEM private key (" + OpenSslError() + ")");
  return KeyPtr(k);
}

std::string TimeText(const ASN1_TIME* t) {
  struct tm tm {};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return "?";
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

// Verifies chain[0] (with chain[1..] as intermediates) against the CA's certificates now.
Status VerifyAgainstCa(const TlsFiles& files, const std::vector<X509Ptr>& ca, const std::vector<X509Ptr>& chain) {
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  for (const X509Ptr& c : ca) X509_STORE_add_cert(store.get(), c.get());
  STACK_OF(X509)* untrusted = sk_X509_new_null();
  for (size_t i = 1; i < chain.size(); ++i) sk_X509_push(untrusted, chain[i].get());
  std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), chain[0].get(), untrusted);
  const int ok = X509_verify_cert(ctx.get());
  const int err = X509_STORE_CTX_get_error(ctx.get());
  sk_X509_free(untrusted);
  ERR_clear_error();
  if (ok == 1) return Status::OK();
  X509* own = chain[0].get();
  const std::string cert = Where(files.cert_key, files.cert);
  if (err == X509_V_ERR_CERT_HAS_EXPIRED) {
    return Status::InvalidArgument(cert + ": the certificate expired at " + TimeText(X509_get0_notAfter(own)) +
                                   " (issue a new one: distgnn certs issue)");
  }
  if (err == X509_V_ERR_CERT_NOT_YET_VALID) {
    return Status::InvalidArgument(cert + ": the certificate is valid only from " +
                                   TimeText(X509_get0_notBefore(own)) + " (is this machine's clock right?)");
  }
  if (err == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY || err == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT ||
      err == X509_V_ERR_CERT_SIGNATURE_FAILURE || err == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT) {
    return Status::InvalidArgument(cert + ": the certificate is not signed by the CA in " +
                                   Where(files.ca_key, files.ca) + " (a certificate of another job's CA?)");
  }
  return Status::InvalidArgument(cert + ": does not verify against " + Where(files.ca_key, files.ca) + ": " +
                                 X509_verify_cert_error_string(err));
}

}  // namespace

std::string CertificateRole(X509* cert) {
  if (cert == nullptr) return "";
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return "";
  std::string role;
  const std::string prefix = kRoleUriPrefix;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type != GEN_URI) continue;
    const ASN1_IA5STRING* s = n->d.uniformResourceIdentifier;
    std::string uri(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), ASN1_STRING_length(s));
    if (uri.rfind(prefix, 0) == 0) {
      role = uri.substr(prefix.size());
      break;
    }
  }
  GENERAL_NAMES_free(names);
  return role;
}

TlsContext::TlsContext() : ctx_(boost::asio::ssl::context::tls) {}

Result<std::shared_ptr<const TlsContext>> TlsContext::Load(const TlsFiles& files, const std::string& role) {
  DG_ASSIGN_OR_RETURN(auto ca, ReadCertificates(files.ca_key, files.ca));
  DG_ASSIGN_OR_RETURN(auto chain, ReadCertificates(files.cert_key, files.cert));
  DG_ASSIGN_OR_RETURN(auto key, ReadKey(files.key_key, files.key));
  if (X509_check_private_key(chain[0].get(), key.get()) != 1) {
    ERR_clear_error();
    return Status::InvalidArgument(Where(files.key_key, files.key) + " is not the key of the certificate " +
                                   Where(files.cert_key, files.cert));
  }
  DG_RETURN_IF_ERROR(VerifyAgainstCa(files, ca, chain));
  const std::string cert_role = CertificateRole(chain[0].get());
  if (cert_role != role) {
    return Status::InvalidArgument(Where(files.cert_key, files.cert) + ": the certificate is for " +
                                   (cert_role.empty() ? std::string("no role (no SAN URI distgnn:role:ROLE)")
                                                      : "role '" + cert_role + "'") +
                                   ", this process runs as " + role);
  }
  std::shared_ptr<TlsContext> t(new TlsContext());
  SSL_CTX* ctx = t->ctx_.native_handle();
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  for (const X509Ptr& c : ca) X509_STORE_add_cert(store, c.get());
  if (SSL_CTX_use_certificate(ctx, chain[0].get()) != 1 || SSL_CTX_use_PrivateKey(ctx, key.get()) != 1) {
    return Status::InvalidArgument(Where(files.cert_key, files.cert) + ": OpenSSL refused it: " + OpenSslError());
  }
  for (size_t i = 1; i < chain.size(); ++i) {
    X509_up_ref(chain[i].get());
    SSL_CTX_add_extra_chain_cert(ctx, chain[i].get());
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_verify_depth(ctx, 4);
  t->role_ = role;
  int days = 0, secs = 0;
  ASN1_TIME_diff(&days, &secs, nullptr, X509_get0_notAfter(chain[0].get()));
  t->seconds_left_ = int64_t(days) * 86400 + secs;
  return std::shared_ptr<const TlsContext>(std::move(t));
}

bool ExpectPeerHost(SSL* ssl, const std::string& host) {
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  if (!ec) return X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) == 1;
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  return X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size()) == 1;
}

}  // namespace dg
