#include "cmd/role_flags.h"

#include <cstdlib>

namespace dg {
namespace {

// --machine and --index as text ("auto" or a number), resolved when parsed
// (roles/job/machine_identity.h); LoadRoleJob checks them against the YAML.
cli::po::typed_value<std::string>* IndexFlag(const char* default_text, const std::vector<std::string>& variables,
                                               int* value, IndexSource* from) {
  return cli::po::value<std::string>()->default_value(default_text)->notifier(
      [&variables, value, from](const std::string& text) {
        const IndexChoice c = ChooseIndex(text, variables, [](const char* name) { return std::getenv(name); });
        *value = c.value;
        *from = c.from;
      });
}

}  // namespace

void AddRoleOptions(cli::po::options_description* desc, RoleArgs* a) {
  desc->add_options()
      ("role", cli::po::value(&a->role), "server | sampler | trainer")
      ("config", cli::po::value(&a->config), "job YAML")
      ("machine", IndexFlag("auto", MachineIndexVariables(), &a->machine, &a->machine_from),
       "machine index M in the job YAML (= partition id); auto: from SLURM_NODEID, JOB_COMPLETION_INDEX, "
       "GROUP_RANK or RANK, the first one set")
      ("index", IndexFlag("0", ProcessIndexVariables(), &a->index, &a->index_from),
       "which of this role's processes on the machine; auto: from SLURM_LOCALID or LOCAL_RANK")
      ("job-id", cli::po::value(&a->job_id), "job id (set by distgnn launch; marks the process)")
      ("lease", cli::po::value(&a->lease),
       "HOST:PORT of the launcher's lease (set by distgnn launch): without word from it for "
       "network.peer_timeout_seconds the process exits. Without --lease (by hand, systemd) it runs until stopped")
      ("set", cli::po::value(&a->sets)->composing(), "override one YAML key: key.path=value (repeatable)")
      ("log-level", cli::po::value(&a->log_level)->default_value("info"), "trace|debug|info|warn|error")
      ("metrics-port", cli::po::value(&a->metrics_port)->default_value(-1),
       "serve Prometheus metrics at http://HOST:PORT/metrics (0 = any free port; default: derived from "
       "ports.metrics, off when it is 0)");
}

int RoleExitCode(const std::string& command, const Status& status) {
  const int code = cli::ExitCode(command, status);
  return code != 0 && status.code() == Status::Code::kPeerLost ? kExitPeerLost : code;
}

}  // namespace dg
