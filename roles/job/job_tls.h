// The TLS identity of a job's process: its certificate and key from the job
// YAML's tls: settings (config/tls_config.h), loaded and checked against the
// job's CA once at start, before the process serves or dials anything.
#pragma once

#include <string>

#include "common/net/tls_certs.h"
#include "config/job_config.h"

namespace dg {

// With tls on, loads the CA, certificate and key a process of `role` on
// `machine` presents (machine < 0: the launcher or a tool) into
// job->tls.context and logs one line naming the certificate; an unreadable,
// expired, foreign or wrong-role file is one error naming the file and the
// YAML key. With tls off, does nothing.
Status LoadJobTls(JobConfig* job, const std::string& role, int machine);

}  // namespace dg

namespace dg {

// Issues, with the CA in ca_cert/ca_key, every certificate the job's
// processes present: server, trainer and sampler for each distinct
// (directory, host) of the machines, and the launcher's and tools' (launcher,
// client) in tls.dir. Existing files are replaced only with `overwrite`.
Status IssueJobCertificates(const JobConfig& job, const std::string& ca_cert, const std::string& ca_key,
                            const CertValidity& validity, bool overwrite);

// `launch`'s throw-away CA for a job whose tls: names no files: a new CA and
// every certificate in tls.dir (RUN_DIR/tls), replaced at each launch; the
// CA's key is deleted once they are issued. Refused for a job with a machine
// reached by ssh or Slurm (their certificates cannot be made here: use
// distgnn certs init|issue and name tls.dir).
Status MakeThrowawayJobCa(const JobConfig& job);

// What a launcher (launch, propagate) does before it starts a job's
// processes: with tls on, the throw-away CA when the YAML names no files,
// then its own identity (role launcher) into job->tls.context.
Status PrepareLauncherTls(JobConfig* job);

}  // namespace dg
