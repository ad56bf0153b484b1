#include "config/tls_yaml.h"

#include "common/net/tls_certs.h"

namespace dg {
namespace {

const std::vector<std::string> kTlsKeys = {"enabled", "ca", "dir", "https_metrics"};

}  // namespace

Status LoadTls(const Checker& c, const YAML::Node& n, JobConfig* cfg) {
  TlsConfig& t = cfg->tls;
  if (n.IsScalar()) {
    DG_RETURN_IF_ERROR(c.Bool(n, "tls", &t.enabled));
  } else {
    if (!n.IsMap()) return c.Err(n, "tls", "expected true, false or a map {enabled, ca, dir, https_metrics}, got " + Describe(n));
    DG_RETURN_IF_ERROR(c.CheckKeys(n, "tls", kTlsKeys));
    t.enabled = true;
    if (n["enabled"]) DG_RETURN_IF_ERROR(c.Bool(n["enabled"], "tls.enabled", &t.enabled));
    if (n["ca"]) DG_RETURN_IF_ERROR(c.String(n["ca"], "tls.ca", true, &t.ca));
    if (n["dir"]) DG_RETURN_IF_ERROR(c.String(n["dir"], "tls.dir", true, &t.dir));
    if (n["https_metrics"]) {
      DG_RETURN_IF_ERROR(c.Bool(n["https_metrics"], "tls.https_metrics", &t.https_metrics));
      if (t.https_metrics && !t.enabled)
        return c.Err(n["https_metrics"], "tls.https_metrics",
                     "needs TLS on (tls.enabled: false turns it off): the endpoints present the job's certificates");
    }
  }
  t.throwaway = t.ca.empty() && t.dir.empty();
  t.dir = t.dir.empty() ? cfg->RunDir() + "/tls" : ResolvePath(cfg->base_dir, t.dir);
  t.ca = t.ca.empty() ? t.dir + "/ca.crt" : ResolvePath(cfg->base_dir, t.ca);
  return Status::OK();
}

TlsFiles JobConfig::TlsFilesFor(const std::string& role, int machine) const {
  TlsFiles f;
  f.ca = tls.ca;
  std::string dir = tls.dir, dir_key = "tls.dir";
  std::string stem = role;
  if (machine >= 0 && machine < num_machines()) {
    const MachineConfig& m = machines[machine];
    if (!m.tls_dir.empty()) {
      dir = m.tls_dir;
      dir_key = "machines[" + std::to_string(machine) + "].tls_dir";
    }
    stem = CertificateStem(role, m.host);
  }
  f.cert = dir + "/" + stem + ".crt";
  f.key = dir + "/" + stem + ".key";
  f.cert_key = "the certificate (" + dir_key + ")";
  f.key_key = "the key (" + dir_key + ")";
  return f;
}

}  // namespace dg
