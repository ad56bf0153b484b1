#include "test/support/netns_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test/support/test_support.h"

namespace dg::test {

namespace {

std::string Script(const std::string& name = "netns-cluster.sh") { return SourceDir() + "/scripts/" + name; }

// The full path of `ip` (Subprocess execs without a PATH search).
std::string IpBinary() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"})
    if (access(p, X_OK) == 0) return p;
  return "ip";
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string ShellOutput(const std::string& cmd) {
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return "";
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

NetnsCluster::NetnsCluster(int hosts, const std::string& flags, const std::string& script) : script_(script) {
  static std::atomic<int> counter{0};
  prefix = "t" + std::to_string(getpid()) + std::string(1, static_cast<char>('a' + counter++ % 26));
  state_dir = "/tmp/distgnn-netns-" + prefix;
  if (geteuid() != 0) {
    skip_reason = "the namespace cluster needs root";
    return;
  }
  // The watchdog: takes the cluster down when this process goes, however it goes.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) == 0) {
    watchdog_ = fork();
    if (watchdog_ == 0) {
      close(fds[1]);
      setsid();
      char c;
      while (read(fds[0], &c, 1) > 0) {
      }
      int devnull = open("/dev/null", O_RDWR);
      dup2(devnull, 1);
      dup2(devnull, 2);
      execl("/bin/bash", "bash", Script(script_).c_str(), "down", "--prefix", prefix.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[0]);  // fds[1] stays open (close-on-exec) for this process's lifetime
  }
  const std::string log = state_dir + ".up.log";
  const int rc = std::system(("bash " + Quote(Script(script_)) + " up " + std::to_string(hosts) + " --prefix " + prefix +
                              " " + flags + " > " + log + " 2>&1")
                                 .c_str());
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(log.c_str());
  if (rc != 0) {
    skip_reason = "scripts/" + script_ + " up failed: " + text;
    return;
  }
  std::ifstream h(state_dir + "/hosts");
  for (std::string a; std::getline(h, a);) addresses.push_back(a);
  if (static_cast<int>(addresses.size()) != hosts) skip_reason = "scripts/netns-cluster.sh up made no host list: " + text;
}

NetnsCluster::~NetnsCluster() {
  if (watchdog_ > 0) {
    kill(watchdog_, SIGKILL);
    waitpid(watchdog_, nullptr, 0);
  }
  if (geteuid() == 0)
    std::system(("bash " + Quote(Script(script_)) + " down --prefix " + prefix + " > /dev/null 2>&1").c_str());
}

std::string NetnsCluster::SecondAddress(int h) const {
  const std::string& a = addresses.at(static_cast<size_t>(h));
  return a.substr(0, a.rfind('.') + 1) + std::to_string(101 + h);
}

std::string NetnsCluster::SshMachineYaml(int, const std::string& ssh_address, const std::string& workspace,
                                         const std::string& binary) const {
  return "    ssh: root@" + ssh_address + "\n    ssh_key: " + SshKey() + "\n    workspace: " + workspace +
         "\n    binary: " + binary +
         "\n    ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null, LogLevel=ERROR]\n";
}

std::vector<std::string> NetnsCluster::InHost(int h, std::vector<std::string> argv) const {
  argv.insert(argv.begin(), {IpBinary(), "netns", "exec", Namespace(h)});
  return argv;
}

int NetnsCluster::Do(const std::string& action, int h) const {
  return std::system(("bash " + Quote(Script()) + " " + action + " " + std::to_string(h) + " --prefix " + prefix +
                      " > /dev/null")
                         .c_str());
}

std::vector<pid_t> NetnsCluster::Pids(int h) const {
  std::istringstream in(ShellOutput("ip netns pids " + Namespace(h) + " 2>/dev/null"));
  std::vector<pid_t> out;
  for (pid_t p; in >> p;)
    if (ProcessAlive(p)) out.push_back(p);
  return out;
}

std::vector<pid_t> NetnsCluster::DistgnnPids(int h) const {
  std::vector<pid_t> out;
  for (pid_t p : Pids(h)) {
    std::ifstream in("/proc/" + std::to_string(p) + "/cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.rfind(DistgnnBin() + std::string(1, '\0'), 0) == 0) out.push_back(p);
  }
  return out;
}

std::vector<std::string> NetnsCluster::DistgnnListeners(int h) const {
  std::istringstream in(ShellOutput("ip netns exec " + Namespace(h) + " ss -ltnpH 2>/dev/null"));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"distgnn\"") != std::string::npos) out.push_back(line);
  return out;
}

}  // namespace dg::test
