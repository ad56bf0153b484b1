#include "config/slurm_allocation.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "common/base/subprocess.h"

namespace dg {

namespace {

// stdout of argv (stderr too, for the error), or an error naming the command.
Result<std::string> Capture(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::FromErrno("pipe", errno);
  SpawnOptions o;
  o.out_fd = fds[1];
  o.err_fd = fds[1];
  o.stdin_null = true;
  const pid_t pid = Spawn(argv, o);
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (pid < 0) return Status::FromErrno("cannot run " + argv[0], errno);
  const int rc = WaitExitCode(pid);
  if (rc != 0)
    return Status::InvalidArgument("`" + argv[0] + " " + argv[1] + " ...` exited with code " + std::to_string(rc) +
                                   ": " + out);
  return out;
}

// "10.1.2.3" for a numeric address or a name that resolves to one (IPv4 first).
Result<std::string> NumericAddress(const std::string& node, const std::string& addr) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(addr.c_str(), nullptr, &hints, &res); rc != 0 || !res)
    return Status::InvalidArgument("node " + node + ": its NodeAddr '" + addr +
                                   "' does not resolve: " + gai_strerror(rc));
  std::string v4, v6;
  for (addrinfo* a = res; a; a = a->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {0};
    if (a->ai_family == AF_INET && v4.empty())
      v4 = inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr, buf, sizeof(buf));
    else if (a->ai_family == AF_INET6 && v6.empty())
      v6 = inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr, buf, sizeof(buf));
  }
  freeaddrinfo(res);
  return v4.empty() ? v6 : v4;
}

// NodeName -> NodeAddr from `scontrol -o show node LIST` (one line per node).
std::map<std::string, std::string> NodeAddresses(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name, addr;
    for (std::string w; words >> w;) {
      if (w.rfind("NodeName=", 0) == 0) name = w.substr(9);
      if (w.rfind("NodeAddr=", 0) == 0) addr = w.substr(9);
    }
    if (!name.empty()) out[name] = addr.empty() ? name : addr;
  }
  return out;
}

}  // namespace

Result<std::vector<MachineConfig>> SlurmAllocationMachines() {
  const char* list = std::getenv("SLURM_JOB_NODELIST");
  if (!list || !*list)
    return Status::InvalidArgument("no Slurm allocation here (SLURM_JOB_NODELIST is not set); run under sbatch or "
                                   "salloc, or list the machines");
  DG_ASSIGN_OR_RETURN(std::string names, Capture({"scontrol", "show", "hostnames", list}));
  DG_ASSIGN_OR_RETURN(std::string nodes, Capture({"scontrol", "-o", "show", "node", list}));
  const std::map<std::string, std::string> addrs = NodeAddresses(nodes);
  std::vector<MachineConfig> machines;
  std::istringstream in(names);
  for (std::string node; in >> node;) {
    auto it = addrs.find(node);
    if (it == addrs.end())
      return Status::InvalidArgument("node " + node + " of SLURM_JOB_NODELIST=" + list +
                                     " is not in `scontrol show node`");
    MachineConfig mc;
    DG_ASSIGN_OR_RETURN(mc.host, NumericAddress(node, it->second));
    mc.slurm_node = node;
    machines.push_back(std::move(mc));
  }
  if (machines.empty()) return Status::InvalidArgument("SLURM_JOB_NODELIST=" + std::string(list) + " names no node");
  return machines;
}

}  // namespace dg
