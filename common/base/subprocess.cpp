#include "common/base/subprocess.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dg {
namespace {

// In the child: point fd `target` at path (truncated), at `fd`, or at /dev/null.
void Redirect(int target, const std::string& path, int fd, int devnull) {
  if (!path.empty()) {
    const int f = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f >= 0) dup2(f, target);
  } else if (fd == SpawnOptions::kDevNull) {
    dup2(devnull, target);
  } else if (fd >= 0) {
    dup2(fd, target);
  }
}

}  // namespace

pid_t Spawn(const std::vector<std::string>& argv, const SpawnOptions& o) {
  const pid_t parent = getpid();
  int in_pipe[2] = {-1, -1};
  if (!o.stdin_text.empty() && pipe2(in_pipe, O_CLOEXEC) != 0) return -1;
  const pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0 && o.own_process_group) setpgid(pid, pid);  // also in the child: no race either way
    if (in_pipe[0] >= 0) {
      close(in_pipe[0]);
      if (pid > 0) {
        ssize_t w = write(in_pipe[1], o.stdin_text.data(), o.stdin_text.size());
        (void)w;
      }
      close(in_pipe[1]);
    }
    return pid;
  }
  if (o.own_process_group) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the parent dies -> so does this child
    if (getppid() != parent) _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
  }
  const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (in_pipe[0] >= 0) dup2(in_pipe[0], 0);
  else if (o.stdin_null) dup2(devnull, 0);
  Redirect(1, o.out_path, o.out_fd, devnull);
  if (!o.err_path.empty() && o.err_path == o.out_path) dup2(1, 2);  // one file, one offset
  else Redirect(2, o.err_path, o.err_fd, devnull);
  if (!o.workdir.empty() && chdir(o.workdir.c_str()) != 0) {
    std::fprintf(stderr, "cannot cd to %s: %s\n", o.workdir.c_str(), std::strerror(errno));
    _exit(126);
  }
  for (const auto& [k, v] : o.env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::fprintf(stderr, "cannot run %s: %s\n", argv[0].c_str(), std::strerror(errno));
  _exit(127);
}

int WaitExitCode(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int RunProcess(const std::vector<std::string>& argv, const SpawnOptions& options) {
  const pid_t pid = Spawn(argv, options);
  return pid < 0 ? -1 : WaitExitCode(pid);
}

}  // namespace dg
