#include "common/net/tls_certs.h"

#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/ip/address.hpp>
#include <cerrno>
#include <cstdio>
#include <memory>

#include "common/net/openssl_handles.h"
#include "common/net/tls_context.h"

namespace dg {
namespace {


std::string SslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

// Writes `pem` to `path` with `mode` (created, or replaced when overwrite).
Status WriteFileMode(const std::string& path, const std::string& pem, mode_t mode, bool overwrite) {
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | (overwrite ? 0 : O_EXCL);
  int fd = ::open(path.c_str(), flags, mode);
  if (fd < 0 && errno == EEXIST) {
    return Status::AlreadyExists(path + " exists (pass --force to replace it)");
  }
  if (fd < 0) return Status::FromErrno(path, errno);
  Status st;
  if (::fchmod(fd, mode) != 0) st = Status::FromErrno(path, errno);
  size_t done = 0;
  while (st.ok() && done < pem.size()) {
    ssize_t n = ::write(fd, pem.data() + done, pem.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) st = Status::FromErrno(path, errno);
    if (n > 0) done += size_t(n);
  }
  if (::close(fd) != 0 && st.ok()) st = Status::FromErrno(path, errno);
  return st;
}

template <typename WriteFn>
std::string ToPem(WriteFn write) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  write(bio.get());
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, size_t(n));
}

Result<KeyPtr> NewKey() {
  EVP_PKEY* k = EVP_EC_gen("P-256");
  if (k == nullptr) return Status::Internal("OpenSSL could not make a P-256 key: " + SslError());
  return KeyPtr(k);
}

Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return Status::InvalidArgument("certificate extension '" + value + "': " + SslError());
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return Status::OK();
}

// A certificate for `subject_cn` with `key`'s public half, valid as asked,
// before its extensions and signature.
Result<X509Ptr> NewCertificate(const std::string& subject_cn, EVP_PKEY* key, const CertValidity& v) {
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return Status::Internal("the random number generator failed");
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), long(v.not_before_seconds));
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), long(v.not_after_seconds));
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>("distgnn"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(subject_cn.c_str()),
                             -1, -1, 0);
  X509_set_pubkey(cert.get(), key);
  return cert;
}

Result<X509Ptr> ReadCert(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return Status::FromErrno("CA certificate " + path, errno);
  X509* x = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (x == nullptr) return Status::InvalidArgument("CA certificate " + path + ": not a PEM certificate");
  return X509Ptr(x);
}

Result<KeyPtr> ReadPrivateKey(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return Status::FromErrno("CA key " + path, errno);
  EVP_PKEY* k = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (k == nullptr) return Status::InvalidArgument("CA key " + path + ": not a PEM private key");
  return KeyPtr(k);
}

Status WriteKeyAndCert(X509* cert, EVP_PKEY* key, const std::string& cert_path, const std::string& key_path,
                       bool overwrite) {
  const std::string key_pem =
      ToPem([&](BIO* b) { PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr); });
  const std::string cert_pem = ToPem([&](BIO* b) { PEM_write_bio_X509(b, cert); });
  DG_RETURN_IF_ERROR(WriteFileMode(key_path, key_pem, 0600, overwrite));
  return WriteFileMode(cert_path, cert_pem, 0644, overwrite);
}

}  // namespace

bool IsCertificateRole(const std::string& role) {
  return role == "server" || role == "trainer" || role == "sampler" || role == "launcher" || role == "client";
}

std::string CertificateStem(const std::string& role, const std::string& host) {
  std::string h = host;
  for (char& c : h)
    if (c == ':' || c == '/') c = '_';
  return role + "-" + h;
}

Status MakeJobCa(const std::string& name, const CertValidity& validity, const std::string& ca_cert,
                 const std::string& ca_key, bool overwrite) {
  DG_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  DG_ASSIGN_OR_RETURN(X509Ptr cert, NewCertificate("distgnn job CA " + name, key.get(), validity));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign"));
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash"));
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return Status::Internal("signing the CA: " + SslError());
  return WriteKeyAndCert(cert.get(), key.get(), ca_cert, ca_key, overwrite);
}

Status IssueRoleCertificate(const std::string& ca_cert, const std::string& ca_key, const std::string& role,
                            const std::string& host, const CertValidity& validity, const std::string& cert_path,
                            const std::string& key_path, bool overwrite) {
  if (!IsCertificateRole(role)) {
    return Status::InvalidArgument("role '" + role + "': a certificate is for server, trainer, sampler, launcher or client");
  }
  const bool dials_only = role == "launcher" || role == "client";
  if (host.empty() && !dials_only) return Status::InvalidArgument("a " + role + " certificate needs the host it runs on");
  DG_ASSIGN_OR_RETURN(X509Ptr ca, ReadCert(ca_cert));
  DG_ASSIGN_OR_RETURN(KeyPtr ca_pkey, ReadPrivateKey(ca_key));
  if (X509_check_private_key(ca.get(), ca_pkey.get()) != 1) {
    ERR_clear_error();
    return Status::InvalidArgument("CA key " + ca_key + " is not the key of " + ca_cert);
  }
  DG_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  DG_ASSIGN_OR_RETURN(X509Ptr cert, NewCertificate(host.empty() ? role : role + " " + host, key.get(), validity));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.get()));
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  const std::string san =
      (host.empty() ? std::string() : (ec ? "DNS:" : "IP:") + host + ",") + "URI:" + kRoleUriPrefix + role;
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), ca.get(), NID_subject_alt_name, san));
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE"));
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), ca.get(), NID_key_usage, "critical,digitalSignature"));
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), ca.get(), NID_ext_key_usage, "serverAuth,clientAuth"));
  DG_RETURN_IF_ERROR(AddExtension(cert.get(), ca.get(), NID_authority_key_identifier, "keyid:always"));
  if (X509_sign(cert.get(), ca_pkey.get(), EVP_sha256()) == 0) {
    return Status::Internal("signing the certificate: " + SslError());
  }
  return WriteKeyAndCert(cert.get(), key.get(), cert_path, key_path, overwrite);
}

}  // namespace dg
