// `distgnn certs init|issue`: a job's CA and its role certificates
// (common/net/tls_certs.h; docs/security.md "TLS").
//
//   distgnn certs init --dir DIR [--name NAME] [--days N] [--force]
//       DIR/ca.crt and DIR/ca.key (0600)
//   distgnn certs issue --dir DIR --role R [--host H] [--days N] [--force]
//       DIR/R-H.crt and DIR/R-H.key (0600), signed by DIR/ca.crt + DIR/ca.key;
//       without --host (launcher, client: they only dial) DIR/R.crt and DIR/R.key
//   distgnn certs issue --config JOB.yaml [--days N] [--force]
//       every certificate of the job into its tls.dir (machines' tls_dir), CA from tls.ca
#include <cstdio>
#include <filesystem>

#include "cmd/cli.h"
#include "common/net/tls_certs.h"
#include "config/job_config.h"
#include "roles/job/job_tls.h"

namespace dg {
namespace {

CertValidity Days(int days) {
  CertValidity v;
  v.not_after_seconds = int64_t(days) * 86400;
  return v;
}

Status CertsInit(const std::string& dir, const std::string& name, int days, bool force) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot make " + dir + ": " + ec.message());
  DG_RETURN_IF_ERROR(MakeJobCa(name, Days(days), dir + "/ca.crt", dir + "/ca.key", force));
  std::printf("wrote %s/ca.crt and %s/ca.key (keep the key off the job's machines)\n", dir.c_str(), dir.c_str());
  return Status::OK();
}

Status CertsIssue(const cli::po::variables_map& vm, const std::string& dir, int days, bool force) {
  if (vm.count("config")) {
    DG_ASSIGN_OR_RETURN(JobConfig job, LoadJobConfig(vm["config"].as<std::string>()));
    if (!job.tls.enabled) return Status::InvalidArgument(job.path + ": tls is off; set tls: in the YAML first");
    const std::string ca_key = vm.count("ca-key") ? vm["ca-key"].as<std::string>()
                                                  : std::filesystem::path(job.tls.ca).parent_path().string() + "/ca.key";
    DG_RETURN_IF_ERROR(IssueJobCertificates(job, job.tls.ca, ca_key, Days(days), force));
    std::printf("wrote the job's certificates into %s\n", job.tls.dir.c_str());
    return Status::OK();
  }
  if (dir.empty() || !vm.count("role")) return Status::InvalidArgument("give --dir DIR --role R [--host H], or --config JOB.yaml");
  const std::string role = vm["role"].as<std::string>();
  const std::string host = vm.count("host") ? vm["host"].as<std::string>() : "";
  if (host.empty() && role != "launcher" && role != "client")
    return Status::InvalidArgument("--host is required for a " + role + " (its certificate names the host peers dial)");
  const std::string stem = host.empty() ? role : CertificateStem(role, host);
  const std::string ca_key = vm.count("ca-key") ? vm["ca-key"].as<std::string>() : dir + "/ca.key";
  DG_RETURN_IF_ERROR(IssueRoleCertificate(dir + "/ca.crt", ca_key, role, host, Days(days), dir + "/" + stem + ".crt",
                                          dir + "/" + stem + ".key", force));
  std::printf("wrote %s/%s.crt and %s/%s.key\n", dir.c_str(), stem.c_str(), dir.c_str(), stem.c_str());
  return Status::OK();
}

}  // namespace

int RunCerts(int argc, char** argv) {
  namespace po = cli::po;
  std::string action, dir, name = "distgnn";
  int days = 365;
  po::options_description desc("distgnn certs init|issue [options]");
  desc.add_options()("help,h", "show this help")
      ("action", po::value(&action)->required(), "init (the job's CA) or issue (a role certificate)")
      ("dir", po::value(&dir), "the folder of ca.crt, ca.key and the role certificates")
      ("name", po::value(&name), "init: the CA's name (e.g. the job's)")
      ("role", po::value<std::string>(), "issue: server, trainer, sampler, launcher or client")
      ("host", po::value<std::string>(), "issue: the host (address or DNS name) the process runs on")
      ("config", po::value<std::string>(), "issue: every certificate of this job YAML, into its tls.dir")
      ("ca-key", po::value<std::string>(), "issue: the CA's key (default: beside ca.crt)")
      ("days", po::value(&days), "validity in days (default 365)")
      ("force", "replace existing files");
  po::positional_options_description pos;
  pos.add("action", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);
  const bool force = vm.count("force") > 0;
  if (days < 1 || days > 36500) st = Status::InvalidArgument("--days must be 1..36500");
  else if (action == "init") st = dir.empty() ? Status::InvalidArgument("init needs --dir DIR") : CertsInit(dir, name, days, force);
  else if (action == "issue") st = CertsIssue(vm, dir, days, force);
  else st = Status::InvalidArgument("unknown action '" + action + "' (init or issue)");
  return cli::ExitCode(argv[0], st);
}

}  // namespace dg
