// A real sshd on a loopback port with a throwaway host key and client key,
// accepting only that key for the current user; launch tests reach their
// "machines" through it. skip_reason says why it could not start ("" if it runs).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "test/integration/test_launch_support.h"

namespace dg::test {

inline int RunShell(const std::string& cmd) { return std::system(cmd.c_str()); }

inline bool PortOpen(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  close(fd);
  return ok;
}

// sshd -D on 127.0.0.1:<free port>, accepting only a fresh key for the current user.
struct Sshd {
  TempDir dir;
  Subprocess proc;
  int port = 0;
  std::string key, user, skip_reason;

  Sshd() {
    const char* sshd = "/usr/sbin/sshd";
    if (access(sshd, X_OK) != 0 || RunShell("command -v ssh >/dev/null && command -v ssh-keygen >/dev/null") != 0) {
      skip_reason = "sshd/ssh/ssh-keygen not installed (scripts/setup.sh installs openssh-server)";
      return;
    }
    passwd* pw = getpwuid(getuid());
    user = pw ? pw->pw_name : "root";
    key = dir / "id_ed25519";
    if (RunShell("ssh-keygen -q -t ed25519 -N '' -f " + dir / "host_key" + " && ssh-keygen -q -t ed25519 -N '' -f " + key +
            " && cp " + key + ".pub " + dir / "authorized_keys") != 0) {
      skip_reason = "ssh-keygen failed";
      return;
    }
    mkdir("/run/sshd", 0755);  // sshd's privilege separation directory
    port = FreePort();
    std::ofstream c(dir / "sshd_config");
    c << "Port " << port << "\nListenAddress 127.0.0.1\nHostKey " << dir / "host_key"
      << "\nAuthorizedKeysFile " << dir / "authorized_keys"
      << "\nPidFile " << dir / "sshd.pid"
      << "\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
         "UsePAM no\nSubsystem sftp internal-sftp\nStrictModes no\nMaxStartups 100\nMaxSessions 100\nLogLevel ERROR\n";
    c.close();
    proc.Start({sshd, "-D", "-e", "-f", dir / "sshd_config"}, dir / "sshd.log");
    if (!WaitFor(10, [&] { return !proc.running() || PortOpen(port); }) || !proc.running()) {
      skip_reason = "sshd did not start: " + proc.Output();
      return;
    }
    if (RunShell(SshCommand("true")) != 0)
      skip_reason = "ssh into the test sshd failed: " + proc.Output();
  }

  // A shell command that runs `remote` through this sshd.
  std::string SshCommand(const std::string& remote) const {
    return "ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p " +
           std::to_string(port) + " -i " + key + " " + user + "@127.0.0.1 " + remote;
  }

  // Seconds one `ssh ... true` through this sshd takes now: the unit of the
  // launcher's remote teardown, which waits for two such round trips (pkill -INT, pkill -KILL).
  double RoundTripSeconds() const {
    auto t0 = std::chrono::steady_clock::now();
    RunShell(SshCommand("true"));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // YAML lines for a machine entry reached through this sshd.
  std::string MachineYaml(const std::string& workspace) const {
    return "    ssh: " + user + "@127.0.0.1\n    ssh_port: " + std::to_string(port) + "\n    ssh_key: " + key +
           "\n    workspace: " + workspace +
           "\n    ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null, LogLevel=ERROR]\n";
  }
};



}  // namespace dg::test
