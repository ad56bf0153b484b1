// Starting child processes: the one place distgnn forks and execs (the
// launcher's roles and ssh commands, `distgnn copy`'s rsync/scp, bench rpc's
// servers, the report's gnuplot).
//
// Spawn forks and execs argv (argv[0] is looked up in PATH unless it holds a
// '/'). In the child, after the redirections below: workdir is entered (exit
// 126 with a message on stderr if it cannot be), env is set, and a failed exec
// exits 127 with "cannot run PROGRAM: reason" on stderr. The parent gets the
// pid, or -1 with errno when fork (or the stdin pipe) failed.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace dg {

struct SpawnOptions {
  static constexpr int kInherit = -2;  // keep this process's stream
  static constexpr int kDevNull = -1;  // /dev/null
  std::string workdir;                                    // "" = this process's
  std::vector<std::pair<std::string, std::string>> env;  // set in the child
  // stdin: stdin_text (then EOF; short, so it fits the pipe buffer), else
  // /dev/null when stdin_null, else inherited.
  std::string stdin_text;
  bool stdin_null = false;
  // stdout and stderr: a file opened for writing (truncated) if its path is
  // set, else out_fd / err_fd (kInherit, kDevNull or an open descriptor).
  std::string out_path, err_path;
  int out_fd = kInherit, err_fd = kInherit;
  // The child leads its own process group (so a signal can reach all it
  // starts) and is killed when this process dies (PR_SET_PDEATHSIG), with
  // SIGINT/SIGTERM/SIGHUP/SIGPIPE back at their defaults.
  bool own_process_group = false;
};

pid_t Spawn(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Waits for pid (retrying on EINTR): its exit code, 128 + the signal that
// ended it, or -1 when it cannot be waited for.
int WaitExitCode(pid_t pid);

// Spawn, then WaitExitCode; -1 when it could not be started.
int RunProcess(const std::vector<std::string>& argv, const SpawnOptions& options = {});

}  // namespace dg
