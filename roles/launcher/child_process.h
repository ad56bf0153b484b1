// The launcher's process primitives: starting one role process (or ssh
// command) in its own process group with its output on a pipe, probing a
// server's port, and describing how a child ended. launcher.cpp orchestrates
// with them.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace dg {

// Starts argv in a new process group that dies with the launcher; stdout and
// stderr to out_fd (or /dev/null when -1). stdin_text (if any) is what the
// child reads on stdin (then EOF); it is short (a token line), so it fits the
// pipe buffer and never blocks us. -1 with errno when fork failed.
pid_t SpawnChild(const std::vector<std::string>& argv, const std::string& workdir,
                 const std::vector<std::pair<std::string, std::string>>& env, int out_fd,
                 const std::string& stdin_text = "");

// Runs argv (no output) and returns its exit code, or -1 when it does not
// end within `seconds` (then its process group is killed) or cannot start.
int RunWithin(const std::vector<std::string>& argv, double seconds);

// Can we open a TCP connection to host:port within timeout_ms?
bool PortAccepts(const std::string& host, int port, int timeout_ms);

// "exited with code N", "was killed by signal NAME" or "stopped" (a waitpid status).
std::string DescribeExit(int status);

}  // namespace dg
