#include "roles/job/job_tls.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <set>

namespace dg {

Status LoadJobTls(JobConfig* job, const std::string& role, int machine) {
  if (!job->tls.enabled) return Status::OK();
  const TlsFiles files = job->TlsFilesFor(role, machine);
  auto context = TlsContext::Load(files, role);
  if (!context.ok()) return Status::InvalidArgument("TLS: " + context.status().message());
  job->tls.context = *context;
  const int64_t days = (*context)->seconds_left() / 86400;
  spdlog::info("TLS 1.3 on: presenting {} (role {}, {} days left), CA {}", files.cert, role, days, files.ca);
  if (days < 7) spdlog::warn("TLS certificate {} expires in {} day(s): issue a new one (distgnn certs issue)", files.cert, days);
  return Status::OK();
}

}  // namespace dg

namespace dg {

Status IssueJobCertificates(const JobConfig& job, const std::string& ca_cert, const std::string& ca_key,
                            const CertValidity& validity, bool overwrite) {
  std::set<std::string> done;
  auto issue = [&](const std::string& role, int machine) -> Status {
    const TlsFiles f = job.TlsFilesFor(role, machine);
    if (!done.insert(f.cert).second) return Status::OK();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(f.cert).parent_path(), ec);
    const std::string host = machine >= 0 ? job.machines[machine].host : "";
    return IssueRoleCertificate(ca_cert, ca_key, role, host, validity, f.cert, f.key, overwrite);
  };
  for (int m = 0; m < job.num_machines(); ++m)
    for (const char* role : {"server", "trainer", "sampler"}) DG_RETURN_IF_ERROR(issue(role, m));
  for (const char* role : {"launcher", "client"}) DG_RETURN_IF_ERROR(issue(role, -1));
  return Status::OK();
}

Status MakeThrowawayJobCa(const JobConfig& job) {
  for (int m = 0; m < job.num_machines(); ++m) {
    if (!job.machines[m].ssh.empty() || job.scheduler == Scheduler::kSlurm) {
      return Status::InvalidArgument(job.path + ": tls is on without tls.dir, but machine " + std::to_string(m) +
                                     " is not local: make the job's certificates with `distgnn certs init` and "
                                     "`distgnn certs issue --config " + job.path + "`, and name tls.dir");
    }
  }
  const std::string& dir = job.tls.dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("TLS: cannot make " + dir + ": " + ec.message());
  const std::string ca_key = dir + "/ca.key";
  CertValidity validity;
  validity.not_after_seconds = 30 * 86400;
  DG_RETURN_IF_ERROR(MakeJobCa(job.job, validity, job.tls.ca, ca_key, /*overwrite=*/true));
  Status st = IssueJobCertificates(job, job.tls.ca, ca_key, validity, /*overwrite=*/true);
  std::filesystem::remove(ca_key, ec);
  return st;
}

Status PrepareLauncherTls(JobConfig* job) {
  if (!job->tls.enabled) return Status::OK();
  if (job->tls.throwaway) {
    DG_RETURN_IF_ERROR(MakeThrowawayJobCa(*job));
    spdlog::info("TLS on with a throw-away job CA in {}", job->tls.dir);
  }
  return LoadJobTls(job, "launcher", -1);
}

}  // namespace dg
