// Making a job's certificates with OpenSSL's C API (what `distgnn certs init|
// issue` and `distgnn launch`'s throw-away CA for local jobs run).
//
// Keys are ECDSA P-256. The CA certificate is CA:TRUE with a path length of 0;
// a role certificate carries SAN IP:HOST (or DNS:HOST) and URI
// distgnn:role:ROLE (common/net/tls_context.h), extended key usage serverAuth
// and clientAuth (every process both dials and accepts), and a random 128-bit
// serial. Private keys are written with mode 0600, certificates 0644; an
// existing file is replaced only with `overwrite`.
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"

namespace dg {

// The roles a certificate may name.
bool IsCertificateRole(const std::string& role);
// "ROLE-HOST" (":" of an IPv6 host as "_"): the stem of a role certificate's files.
std::string CertificateStem(const std::string& role, const std::string& host);

struct CertValidity {
  int64_t not_before_seconds = -300;  // from now (a little back: clocks differ)
  int64_t not_after_seconds = int64_t(365) * 86400;
};

// Writes ca_cert and ca_key: a self-signed CA named "distgnn job CA NAME".
Status MakeJobCa(const std::string& name, const CertValidity& validity, const std::string& ca_cert,
                 const std::string& ca_key, bool overwrite);

// Writes cert and key for ROLE on HOST, signed by the CA's files. HOST may be
// empty for the roles that only dial (launcher, client).
Status IssueRoleCertificate(const std::string& ca_cert, const std::string& ca_key, const std::string& role,
                            const std::string& host, const CertValidity& validity, const std::string& cert,
                            const std::string& key, bool overwrite);

}  // namespace dg
