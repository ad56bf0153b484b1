// TLS identities for tests: a certificate issued by a job CA made in a test's
// TempDir (common/net/tls_certs.h), loaded as a process's TlsContext.
#pragma once

#include <memory>
#include <string>

#include "common/net/tls_context.h"
#include "test/support/test_support.h"

namespace dg::test {

// Issues DIR/ROLE.crt and .key for `role` on `host` ("" for the roles that only
// dial: launcher, client) with the CA in DIR/CA.crt and DIR/CA.key (MakeJobCa),
// and loads them against that CA as the identity of a process of `role`.
std::shared_ptr<const TlsContext> TestTlsIdentity(const TempDir& dir, const std::string& role,
                                                  const std::string& ca = "ca", const std::string& host = "127.0.0.1");

}  // namespace dg::test
