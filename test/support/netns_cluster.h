// A cluster in a box for multi-host tests: scripts/netns-cluster.sh brings up
// N hosts (network namespaces with their own addresses, sshd each, a bridge in
// a namespace of its own) under a prefix unique to this test process, and takes
// them down in the destructor. A watchdog process takes them down too if the
// test process dies first (SIGINT, abort, SIGKILL): it waits on a pipe that
// only this process holds. skip_reason says why the cluster could not come up
// ("" when it is up): not root, no `ip`, no sshd, ...
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dg::test {

class NetnsCluster {
 public:
  // flags: extra `up` flags, e.g. "--second-address" or "--rate 1gbit".
  // script: the scripts/ file that brings the cluster up and down (one that
  // makes the namespace hosts with netns-cluster.sh under the same prefix,
  // e.g. slurm-cluster.sh); actions (Do) always go to netns-cluster.sh.
  explicit NetnsCluster(int hosts, const std::string& flags = "", const std::string& script = "netns-cluster.sh");
  ~NetnsCluster();
  NetnsCluster(const NetnsCluster&) = delete;
  NetnsCluster& operator=(const NetnsCluster&) = delete;

  std::string skip_reason;
  std::string prefix, state_dir;
  std::vector<std::string> addresses;  // host h's primary address

  std::string Namespace(int h) const { return prefix + "-h" + std::to_string(h); }
  std::string SecondAddress(int h) const;  // with --second-address
  std::string SshKey() const { return state_dir + "/id_ed25519"; }
  // YAML lines of a machine entry on host h reached by ssh at ssh_address.
  std::string SshMachineYaml(int h, const std::string& ssh_address, const std::string& workspace,
                             const std::string& binary) const;
  // argv prefixed with `ip netns exec NAMESPACE`.
  std::vector<std::string> InHost(int h, std::vector<std::string> argv) const;
  // scripts/netns-cluster.sh ACTION h (cut, restore, freeze, thaw, crash); its exit code.
  int Do(const std::string& action, int h) const;
  // Live processes in host h's namespace.
  std::vector<pid_t> Pids(int h) const;
  // distgnn processes (the binary itself, not an ssh or srun client) alive in host h.
  std::vector<pid_t> DistgnnPids(int h) const;
  // `ss -ltnp` lines of host h naming a distgnn process.
  std::vector<std::string> DistgnnListeners(int h) const;

 private:
  std::string script_;
  pid_t watchdog_ = -1;
};

// Output of a shell command (stdout), or "" if it could not run.
std::string ShellOutput(const std::string& cmd);

}  // namespace dg::test
