#include "test/support/test_tls.h"

#include <catch2/catch.hpp>

#include "common/net/tls_certs.h"

namespace dg::test {

std::shared_ptr<const TlsContext> TestTlsIdentity(const TempDir& dir, const std::string& role, const std::string& ca,
                                                  const std::string& host) {
  const std::string stem = dir / (ca == "ca" ? role : ca + "-" + role);
  REQUIRE(IssueRoleCertificate(dir / (ca + ".crt"), dir / (ca + ".key"), role, host, CertValidity(), stem + ".crt",
                               stem + ".key", true)
              .ok());
  TlsFiles f{dir / (ca + ".crt"), stem + ".crt", stem + ".key"};
  auto tls = TlsContext::Load(f, role);
  INFO(tls.status().ToString());
  REQUIRE(tls.ok());
  return *tls;
}

}  // namespace dg::test
