#include "test/support/test_support.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace dg::test {

std::string DistgnnBin() { return DG_TEST_DISTGNN_BIN; }
std::string SourceDir() { return DG_TEST_SOURCE_DIR; }
std::string ArtifactDir() { return DG_TEST_ARTIFACT_DIR; }
std::string CoraDir() { return SourceDir() + "/data/cora"; }

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/distgnn-test-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

static bool PortFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

// Ports are picked at random below the kernel's ephemeral range: outgoing
// connections (of this or a parallel test) take their source ports from that
// range, so a port found free here stays free until a server binds it --
// unlike a port found by binding port 0.
static int EphemeralLow() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768, high = 60999;
  in >> low >> high;
  return low;
}

int FreePort() { return FreePortRange(1); }

// A port handed out is held until this process exits: an flock on
// $TMPDIR/distgnn-test-ports/PORT, which every test process (of any suite running
// in parallel) must take before it may use the port. The bind probe above only
// says nobody listens there now; the lock keeps another test from picking it
// before our server binds it.
static bool LeasePort(int port) {
  static const std::string dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::string d = std::string(base ? base : "/tmp") + "/distgnn-test-ports";
    mkdir(d.c_str(), 0777);
    chmod(d.c_str(), 0777);
    return d;
  }();
  const std::string path = dir + "/" + std::to_string(port);
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return false;
  }
  return true;  // fd stays open (and locked) until the process exits
}

int FreePortRange(int count) {
  const int lo = 10000, hi = EphemeralLow();
  static std::mt19937 rng(static_cast<uint32_t>(
      std::chrono::steady_clock::now().time_since_epoch().count() ^ (static_cast<uint64_t>(getpid()) << 16)));
  static std::mutex mu;
  std::lock_guard<std::mutex> l(mu);
  for (int attempt = 0; hi - lo > count + 100 && attempt < 500; ++attempt) {
    const int base = lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo - count));
    bool all = true;
    for (int i = 0; i < count && all; ++i) all = PortFree(base + i);
    if (!all) continue;
    // Leases are never given back, so a range partly leased here is simply wasted.
    for (int i = 0; i < count && all; ++i) all = LeasePort(base + i);
    if (all) return base;
  }
  throw std::runtime_error("no range of " + std::to_string(count) + " free ports below " + std::to_string(hi));
}

Subprocess::~Subprocess() {
  if (pid_ > 0 && exit_code_ < 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : pid_(other.pid_), exit_code_(other.exit_code_), log_path_(std::move(other.log_path_)) {
  other.pid_ = -1;
}

void Subprocess::Start(const std::vector<std::string>& argv, const std::string& log_path) {
  log_path_ = log_path;
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  pid_ = pid;
  exit_code_ = -1;
}

bool Subprocess::running() {
  if (pid_ <= 0 || exit_code_ >= 0) return false;
  return Wait(0) < 0;
}

int Subprocess::Wait(double timeout_s) {
  if (exit_code_ >= 0) return exit_code_;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Subprocess::Signal(int sig) {
  if (pid_ > 0 && exit_code_ < 0) kill(pid_, sig);
}

std::string Subprocess::Output() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult RunDistgnn(const std::vector<std::string>& args, double timeout_s) {
  static int counter = 0;
  std::string log = std::filesystem::temp_directory_path().string() + "/distgnn-run-" +
                    std::to_string(getpid()) + "-" + std::to_string(counter++) + ".log";
  std::vector<std::string> argv{DistgnnBin()};
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess p;
  p.Start(argv, log);
  int code = p.Wait(timeout_s);
  if (code < 0) {
    p.Signal(SIGKILL);
    p.Wait(5);
    code = -1;
  }
  RunResult r{code, p.Output()};
  std::filesystem::remove(log);
  return r;
}

bool ProcessAlive(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string content;
  std::getline(stat, content);
  auto close_paren = content.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= content.size()) return false;
  return content[close_paren + 2] != 'Z';
}

}  // namespace dg::test
