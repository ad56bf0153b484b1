// Reading tls: and machines[i].tls_dir of the job YAML into TlsConfig
// (config/tls_config.h), called by LoadJobConfig.
#pragma once

#include <yaml-cpp/yaml.h>

#include "config/job_config.h"
#include "config/yaml_checker.h"

namespace dg {

// `n` is the top-level tls: node (a bool or a map); the run directory and
// base_dir of `cfg` must be known (they resolve the paths).
Status LoadTls(const Checker& c, const YAML::Node& n, JobConfig* cfg);

}  // namespace dg
