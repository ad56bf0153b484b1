// `distgnn status`: a live table of a running job, from every process's
// metrics endpoint (ports.metrics, derived per process as
// JobConfig::MetricsPort says), so it works for jobs started by `distgnn
// launch` and by the systemd units alike. status.cpp lists the columns.
#pragma once

#include <string>
#include <vector>

namespace dg {

struct JobStatusOptions {
  std::string config;
  std::vector<std::string> sets;
  bool once = false;      // print once (also without a terminal)
  double interval = 2;    // seconds between refreshes
  int metrics_port = -1;  // ports.metrics when the YAML does not set it
};

// The process's exit code: 1 when no endpoint answers or on an error
// (printed as "PROGRAM: error: ...").
int ShowJobStatus(const JobStatusOptions& options, const std::string& program);

}  // namespace dg
