// tls: in the job YAML: TLS 1.3 with mutual authentication on the job's
// connections (docs/security.md "TLS").
//
//   tls: true                 # on; launch makes a throw-away job CA in RUN_DIR/tls (local jobs)
//   tls:
//     ca: certs/ca.crt        # the job's CA certificate (default DIR/ca.crt)
//     dir: certs              # ROLE-HOST.crt/.key per process (distgnn certs issue)
//     https_metrics: true     # the metrics endpoints (ports.metrics) over HTTPS too
//   machines:
//     - host: 10.0.0.1
//       tls_dir: /etc/distgnn # this machine's certificates, when not in tls.dir
//
// A process of role R on machine m presents DIR/R-HOST.crt with DIR/R-HOST.key
// (DIR: the machine's tls_dir, else tls.dir; HOST: the machine's host:); the
// launcher and tools dial only and present DIR/launcher.crt or DIR/client.crt.
// A map under tls: turns TLS on unless it says `enabled: false`.
#pragma once

#include <memory>
#include <string>

#include "common/net/tls_context.h"

namespace dg {

struct TlsConfig {
  bool enabled = false;
  std::string ca;   // resolved path of the CA certificate
  std::string dir;  // resolved folder of the role certificates
  // Neither ca nor dir in the YAML: `launch` makes a CA and every certificate
  // in dir (RUN_DIR/tls) for each local job, and deletes the CA's key.
  bool throwaway = false;
  // The metrics endpoints over HTTPS with the process's certificate; a
  // scraper presents one of the job's (e.g. the client's).
  bool https_metrics = false;
  // The identity this process loaded at start (roles/job/job_tls.h); null when
  // TLS is off or before it is loaded.
  std::shared_ptr<const TlsContext> context;
};

}  // namespace dg
