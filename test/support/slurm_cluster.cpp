#include "test/support/slurm_cluster.h"

#include <regex>
#include <sstream>

namespace dg::test {

namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

// 10.79.0: a subnet no other multi-host test uses (each cluster's network lives
// in its own namespaces anyway).
SlurmCluster::SlurmCluster(int hosts) : NetnsCluster(hosts, "--subnet 10.79.0", "slurm-cluster.sh") {}

std::vector<std::string> SlurmCluster::Client(std::vector<std::string> argv) const {
  argv.insert(argv.begin(), {"/usr/bin/nsenter", "--net=/var/run/netns/" + Namespace(0), "/usr/bin/env",
                             "SLURM_CONF=" + Conf()});
  return argv;
}

std::string SlurmCluster::ClientOutput(const std::string& command) const {
  return ShellOutput("nsenter --net=/var/run/netns/" + Namespace(0) + " env SLURM_CONF=" + Conf() + " sh -c " +
                     Quote(command) + " 2>&1");
}

std::string SlurmCluster::Submit(const std::vector<std::string>& args, std::string* error) const {
  std::string cmd = "sbatch --parsable";
  for (const auto& a : args) cmd += " " + Quote(a);
  const std::string out = ClientOutput(cmd);
  std::smatch m;
  if (std::regex_search(out, m, std::regex("^([0-9]+)"))) return m[1];
  *error = out;
  return "";
}

std::string SlurmCluster::JobState(const std::string& job) const {
  const std::string out = ClientOutput("scontrol -o show job " + job);
  std::smatch m;
  return std::regex_search(out, m, std::regex("JobState=([A-Z_]+)")) ? std::string(m[1]) : std::string();
}

std::vector<std::string> SlurmCluster::Steps(const std::string& job) const {
  std::istringstream in(ClientOutput("squeue -h -s -j " + job + " -o %i"));
  std::vector<std::string> out;
  for (std::string s; in >> s;)
    if (s.rfind(job + ".", 0) == 0) out.push_back(s);
  return out;
}

std::string SlurmCluster::Diagnosis(const std::string& job) const {
  const std::string state = "/tmp/distgnn-slurm-" + prefix;
  return ClientOutput("scontrol show job " + job) +
         ShellOutput("tail -n 40 " + state + "/slurmctld.log " + state + "/slurmd-*.log 2>&1");
}

}  // namespace dg::test
