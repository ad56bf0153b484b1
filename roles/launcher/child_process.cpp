#include "roles/launcher/child_process.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/base/subprocess.h"

namespace dg {

// Starts argv in a new process group; output to out_fd (or /dev/null when -1).
// stdin_text (if any) is what the child reads on stdin (then EOF); it is
// short (a token line), so it fits the pipe buffer and never blocks us.
pid_t SpawnChild(const std::vector<std::string>& argv, const std::string& workdir,
                 const std::vector<std::pair<std::string, std::string>>& env, int out_fd,
                 const std::string& stdin_text) {
  SpawnOptions o;
  o.workdir = workdir;
  o.env = env;
  o.stdin_text = stdin_text;
  o.stdin_null = true;
  o.out_fd = o.err_fd = out_fd >= 0 ? out_fd : SpawnOptions::kDevNull;
  o.own_process_group = true;
  return Spawn(argv, o);
}

// Can we open a TCP connection to host:port within timeout_ms?
bool PortAccepts(const std::string& host, int port, int timeout_ms) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a && !ok; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int r = connect(fd, a->ai_addr, a->ai_addrlen);
    if (r == 0) {
      ok = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, timeout_ms) == 1) {
        int err = 0;
        socklen_t len = sizeof(err);
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        ok = err == 0;
      }
    }
    close(fd);
  }
  freeaddrinfo(res);
  return ok;
}

std::string DescribeExit(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "stopped";
}

int RunWithin(const std::vector<std::string>& argv, double seconds) {
  const pid_t pid = SpawnChild(argv, "", {}, -1);
  if (pid <= 0) return -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int st = 0;
  while (waitpid(pid, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace dg
