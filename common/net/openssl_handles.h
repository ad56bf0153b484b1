// Owning handles of OpenSSL objects (freed by their OpenSSL free function),
// shared by the certificate tools, the TLS context and the lease channel, and
// the text of OpenSSL's queued error.
#pragma once

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace dg {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

// The oldest error OpenSSL queued for this thread, as text (and clears the
// queue); `when_none` when nothing is queued.
inline std::string OpenSslErrorText(const char* when_none = "") {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return when_none;
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

}  // namespace dg
