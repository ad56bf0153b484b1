// Helpers for real tests: temporary directories, ephemeral ports, and child
// processes (the real `distgnn` binary) with captured output and deadlines.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dg::test {

// Path of the built `distgnn` binary and of the source tree (for data/cora).
std::string DistgnnBin();
std::string SourceDir();
std::string CoraDir();  // SourceDir()/data/cora
std::string ArtifactDir();  // build/test/artifacts: files kept after a run (screenshots, shared reference runs)

// A fresh directory under $TMPDIR, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A TCP port on 127.0.0.1 that was free a moment ago, picked at random below the
// kernel's ephemeral range (so no outgoing connection takes it meanwhile) and held
// for this test process's lifetime (a lock file every test process honours), so
// no other test, in this process or a parallel one, is given it too.
int FreePort();
// `count` consecutive free ports starting at the returned base, held likewise.
int FreePortRange(int count);

// A child process with stdout+stderr captured to a file. Killed (SIGKILL) on
// destruction if still running, so a failing test never leaves processes behind.
class Subprocess {
 public:
  Subprocess() = default;
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  Subprocess(Subprocess&& other) noexcept;

  // Starts argv[0] with args; output goes to log_path.
  void Start(const std::vector<std::string>& argv, const std::string& log_path);
  pid_t pid() const { return pid_; }
  bool running();
  // Waits up to timeout_s; returns the exit code, 128+signal if killed by a
  // signal, or -1 on timeout (the process keeps running).
  int Wait(double timeout_s);
  void Signal(int sig);
  std::string Output() const;  // the captured log so far
  const std::string& log_path() const { return log_path_; }

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
  std::string log_path_;
};

// Run `distgnn args...` to completion (timeout_s), returning exit code and output.
struct RunResult {
  int exit_code;
  std::string output;
};
RunResult RunDistgnn(const std::vector<std::string>& args, double timeout_s = 120);

// Is a process with this pid still alive (and not a zombie)?
bool ProcessAlive(pid_t pid);

}  // namespace dg::test
