#include "roles/launcher/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "common/client/dist_graph_client.h"
#include "roles/launcher/child_process.h"
#include "roles/launcher/console_view.h"
#include "roles/launcher/launch_lease.h"
#include "roles/launcher/process_starter.h"
#include "common/storage/partition.h"
#include "roles/job/job_client.h"
#include "roles/job/role_args.h"

namespace dg {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string SelfExecutable() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("distgnn") : p.string();
}

PlanOptions DefaultPlanOptions() {
  PlanOptions o;
  o.local_binary = SelfExecutable();
  if (const char* b = std::getenv("DISTGNN_LAUNCH_BINARY")) o.override_binary = b;
  return o;
}

namespace {

volatile sig_atomic_t g_signal = 0;
void OnSignal(int sig) { g_signal = sig; }


struct Proc {
  const ProcessSpec* spec = nullptr;
  pid_t pid = -1;
  int fd = -1;
  FILE* log = nullptr;
  std::string partial;
  std::deque<std::string> tail;
  bool running = false;
  bool stop_requested = false;  // we signalled it
  int wait_status = 0;
};

class Launcher {
 public:
  Launcher(const JobConfig& cfg, const LaunchPlan& plan, const LaunchSettings& s, const LaunchLease* lease)
      : cfg_(cfg), plan_(plan), s_(s), console_(s.verbose, s.tty, cfg.train.epochs), lease_(lease) {
    for (const auto& spec : plan.processes) {
      procs_.push_back(std::make_unique<Proc>());
      procs_.back()->spec = &spec;
    }
  }

  ~Launcher() {
    console_.Finish();
    // Whatever happened, nobody survives us.
    for (auto& p : procs_) {
      if (p->running) {
        kill(-p->pid, SIGKILL);
        waitpid(p->pid, nullptr, 0);
        p->running = false;
      }
      if (p->fd >= 0) close(p->fd);
      if (p->log) std::fclose(p->log);
    }
  }

  Status Run() {
    std::error_code ec;
    fs::create_directories(plan_.log_dir, ec);
    if (ec) return Status::IOError("cannot create log folder " + plan_.log_dir + ": " + ec.message());
    Say("job " + cfg_.job + " (id " + plan_.job_id + "): " + std::to_string(procs_.size()) +
        " processes on " + std::to_string(cfg_.num_machines()) + " machine(s); logs in " + plan_.log_dir);

    // 1. Servers, and wait for their ports.
    for (auto& p : procs_)
      if (p->spec->role == Role::kServer) DG_RETURN_IF_ERROR(Start(*p));
    DG_RETURN_IF_ERROR(WaitForServers());
    Say("all " + std::to_string(CountRole(Role::kServer)) + " server(s) accept connections");

    // 2. Trainers, then samplers (samplers dial their trainer and retry until it listens).
    for (Role r : {Role::kTrainer, Role::kSampler})
      for (auto& p : procs_)
        if (p->spec->role == r) DG_RETURN_IF_ERROR(Start(*p));
    trainers_started_ = true;
    Say("started " + std::to_string(CountRole(Role::kTrainer)) + " trainer(s) and " +
        std::to_string(CountRole(Role::kSampler)) + " sampler(s)");

    // 3. Until every trainer is done (or has stopped on SIGTERM with a checkpoint).
    while (true) {
      DG_RETURN_IF_ERROR(Step(200));
      bool trainers_done = true;
      for (auto& p : procs_)
        if (p->spec->role == Role::kTrainer && p->running) trainers_done = false;
      if (trainers_done) break;
    }
    Say(preempted_ ? "every trainer stopped with a checkpoint; shutting down samplers and servers"
                   : "all trainers finished; shutting down samplers and servers");

    // 4. Samplers may finish on their own; then stop the rest.
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(s_.sampler_grace_s));
    while (Clock::now() < deadline && CountRunning(Role::kSampler) > 0) DG_RETURN_IF_ERROR(Step(100));
    Stop(Select(Role::kSampler));
    ShutdownServers();
    Stop(Select(Role::kServer));
    for (auto& p : procs_) {
      if (p->stop_requested && ExitCode(*p) != 0 &&
          !(WIFSIGNALED(p->wait_status) && WTERMSIG(p->wait_status) == SIGINT))
        Say("note: [" + p->spec->label + "] " + DescribeExit(p->wait_status) + " during shutdown");
    }
    if (preempted_) return Status::Stopped(PreemptedMessage());
    Say("job " + cfg_.job + " finished; outputs in " + cfg_.RunDir());
    return Status::OK();
  }

 private:
  void Say(const std::string& line) { console_.Say("launch: " + line); }

  int CountRole(Role r) const {
    int n = 0;
    for (auto& p : procs_) n += p->spec->role == r;
    return n;
  }
  int CountRunning(Role r) const {
    int n = 0;
    for (auto& p : procs_) n += p->spec->role == r && p->running;
    return n;
  }
  std::vector<Proc*> Select(Role r) {
    std::vector<Proc*> out;
    for (auto& p : procs_)
      if (p->spec->role == r) out.push_back(p.get());
    return out;
  }

  Status Start(Proc& p) {
    const ProcessSpec& s = *p.spec;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return Status::FromErrno("pipe", errno);
    p.log = std::fopen(s.log_file.c_str(), "w");
    if (!p.log) {
      close(fds[0]);
      close(fds[1]);
      return Status::FromErrno("open log " + s.log_file, errno);
    }
    setvbuf(p.log, nullptr, _IOLBF, 0);
    std::fprintf(p.log, "# %s\n", ShellJoin(s.command).c_str());
    // Local children run in the workdir with the env; ssh carries both in its command.
    p.pid = SpawnChild(s.command, s.remote ? "" : s.workdir, s.remote ? decltype(s.env){} : s.env, fds[1],
                       s.stdin_text);
    close(fds[1]);
    if (p.pid < 0) {
      close(fds[0]);
      return Status::FromErrno("fork for [" + s.label + "]", errno);
    }
    p.fd = fds[0];
    fcntl(p.fd, F_SETFL, fcntl(p.fd, F_GETFL) | O_NONBLOCK);
    p.running = true;
    return Status::OK();
  }

  void Line(Proc& p, const std::string& line) {
    if (s_.echo) console_.ProcessLine(p.spec->label, p.spec->role == Role::kTrainer && p.spec->rank == 0, line);
    if (p.log) std::fprintf(p.log, "%s\n", line.c_str());
    p.tail.push_back(line);
    if (p.tail.size() > 20) p.tail.pop_front();
  }

  // Reads what is available from every child's pipe (waits up to timeout_ms).
  void Pump(int timeout_ms) {
    std::vector<pollfd> fds;
    std::vector<Proc*> owners;
    for (auto& p : procs_)
      if (p->fd >= 0) fds.push_back({p->fd, POLLIN, 0}), owners.push_back(p.get());
    if (fds.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
      return;
    }
    if (poll(fds.data(), fds.size(), timeout_ms) <= 0) return;
    char buf[65536];
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      Proc& p = *owners[i];
      while (true) {
        ssize_t n = read(p.fd, buf, sizeof(buf));
        if (n > 0) {
          p.partial.append(buf, n);
          size_t start = 0, nl;
          while ((nl = p.partial.find('\n', start)) != std::string::npos) {
            Line(p, p.partial.substr(start, nl - start));
            start = nl + 1;
          }
          p.partial.erase(0, start);
          continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (!p.partial.empty()) Line(p, p.partial), p.partial.clear();
        close(p.fd);  // EOF or error
        p.fd = -1;
        break;
      }
    }
  }

  // Collects exited children; returns the first one that exited unexpectedly.
  Proc* Reap() {
    Proc* failed = nullptr;
    for (auto& p : procs_) {
      if (!p->running) continue;
      int status = 0;
      if (waitpid(p->pid, &status, WNOHANG) != p->pid) continue;
      p->running = false;
      p->wait_status = status;
      kill(-p->pid, SIGKILL);  // strays left in its process group
      if (p->stop_requested) continue;
      if (p->spec->role == Role::kTrainer && ExitCode(*p) == kExitPreempted) {
        if (!preempted_) Say("[" + p->spec->label + "] stopped with a checkpoint (preempted)");
        preempted_ = true;
        StopTrainers();  // the others stop after the same step; a no-op when they already have
        continue;
      }
      if (Unexpected(*p) && !failed) failed = p.get();
    }
    return failed;
  }

  static int ExitCode(const Proc& p) { return WIFEXITED(p.wait_status) ? WEXITSTATUS(p.wait_status) : -1; }

  // An end the job did not ask for: a non-zero exit or a signal; for a server
  // any end (a server must outlive the trainers; a sampler may end with exit
  // 0), but a server that ends 0 after SIGTERM once its trainers have stopped.
  bool Unexpected(const Proc& p) const {
    const bool ok = ExitCode(p) == 0;
    return !ok || (p.spec->role == Role::kServer && !stopping_trainers_);
  }

  // SIGTERM to every trainer still running (ssh: pkill -TERM on its host;
  // local and srun: the process group): each finishes its step, all write
  // the step checkpoint of the same step and exit kExitPreempted. Once.
  void StopTrainers() {
    if (stopping_trainers_) return;
    stopping_trainers_ = true;
    stop_deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(cfg_.stop_seconds));
    std::vector<Proc*> trainers;
    for (Proc* p : Select(Role::kTrainer))
      if (p->running) trainers.push_back(p);
    if (trainers.empty()) return;
    Say("SIGTERM to " + std::to_string(trainers.size()) +
        " trainer(s): they finish their step and write a checkpoint (network.stop_seconds " +
        std::to_string(static_cast<int>(cfg_.stop_seconds)) + ")");
    RemoteKill(trainers, "TERM");
    for (Proc* p : trainers)
      if (p->running && !p->spec->remote) kill(-p->pid, SIGTERM);
  }

  // "preempted: ..." with trainer 0's own words on where it stopped.
  std::string PreemptedMessage() {
    std::string where;
    for (Proc* p : Select(Role::kTrainer)) {
      if (p->spec->rank != 0) continue;
      for (const std::string& line : p->tail) {
        const size_t at = line.find("stopped: ");
        if (at != std::string::npos) where = line.substr(at + 9);
      }
    }
    if (where.empty()) where = "every trainer stopped with a checkpoint";
    return "preempted: " + where + " (distgnn launch --resume continues)";
  }

  static bool LostAPeer(const Proc& p) { return ExitCode(p) == kExitPeerLost; }

  // The failure to name. A process that ended because it lost a peer is a
  // consequence; the peer's own end (killed, crashed, failed) is usually seen
  // within milliseconds, over ssh within a round trip. For up to
  // kRootCauseWait, a failure that is not such a consequence wins. A frozen or
  // cut-off machine's processes cannot end at all: the peers that lost them
  // may end before its lease runs out, so while any lease has been silent
  // longer than a heartbeat the wait lasts until that lease expires (then
  // Step names the machine, CheckLeases).
  Proc* RootCause(Proc* first) {
    constexpr auto kRootCauseWait = std::chrono::seconds(2);
    auto deadline = Clock::now() + kRootCauseWait;
    while (LostAPeer(*first)) {
      for (auto& p : procs_)
        if (!p->running && !p->stop_requested && Unexpected(*p) && !LostAPeer(*p)) return p.get();
      if (const std::optional<double> expires_in = SilentLeaseExpiresIn()) {
        if (*expires_in <= 0) break;
        deadline = std::max(deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                         std::chrono::duration<double>(*expires_in + 0.5)));
      }
      if (Clock::now() >= deadline) break;
      Pump(50);
      Reap();
    }
    return first;
  }

  // Drains output of a finished process for a moment so its last lines are in.
  void Drain(Proc& p) {
    for (int i = 0; i < 5 && p.fd >= 0; ++i) Pump(20);
  }

  Status Fail(Proc* p, const std::string& what, Status (*make)(std::string) = Status::PeerLost) {
    std::string msg = what;
    if (p) {
      Drain(*p);
      Say("FAILED: " + what);
      Say("last " + std::to_string(p->tail.size()) + " log lines of [" + p->spec->label + "] (" +
          p->spec->log_file + "):");
      for (const auto& l : p->tail) console_.Say("    " + l);
    } else {
      Say("FAILED: " + what);
    }
    Say("stopping every other process of the job");
    std::vector<Proc*> all;
    for (auto& q : procs_) all.push_back(q.get());
    Stop(all);
    return make(msg);
  }

  std::string Who(const Proc& p) const {
    const ProcessSpec& s = *p.spec;
    return "[" + s.label + "] (" + RoleName(s.role) + " " + std::to_string(s.index) + " of machine " +
           std::to_string(s.machine) + ", host " + s.host + (s.port ? ":" + std::to_string(s.port) : "") + ")";
  }

  Status Failed(Proc& p) {
    const int st = p.wait_status;
    std::string what = Who(p) + " " + DescribeExit(st);
    if (p.spec->remote && WIFEXITED(st) && WEXITSTATUS(st) == 255) {
      const int m = p.spec->machine;
      what += ": ssh failed (host " + cfg_.machines[m].ssh +
              " unreachable, refused the key, or the remote process was killed)";
      // A crashed or cut-off host does not answer a fresh ssh either: name it so.
      if (RunWithin(StarterFor(cfg_, m).Shell(cfg_.machines[m], "true", /*probe=*/true), 5) != 0) {
        unreachable_.insert(m);
        return Fail(&p, "machine " + std::to_string(m) + " (" + cfg_.machines[m].host + ") is unreachable: " + what +
                            "; a fresh ssh to it fails too");
      }
      return Fail(&p, what);
    }
    if (p.spec->role == Role::kServer && WIFEXITED(st) && WEXITSTATUS(st) == 0)
      what += " before the trainers finished";
    return Fail(&p, what);
  }

  // Seconds until the first suspect lease (silent longer than 1.5 heartbeats)
  // of a running process expires, <= 0 once one has; none when no lease is suspect.
  std::optional<double> SilentLeaseExpiresIn() const {
    std::optional<double> soonest;
    if (!lease_) return soonest;
    for (const auto& p : procs_) {
      if (!p->running) continue;
      const double silent = lease_->SilentFor(*p->spec);
      if (silent <= 1.5 * cfg_.heartbeat_seconds) continue;
      const double left = lease_->timeout_seconds - silent;
      soonest = soonest ? std::min(*soonest, left) : left;
    }
    return soonest;
  }

  // A process whose lease has been silent for peer_timeout_seconds: its machine
  // is unreachable (cable pulled, host frozen or down). Its processes end
  // themselves when their lease expires; nothing is sent to it over ssh.
  Status CheckLeases() {
    if (!lease_) return Status::OK();
    for (auto& p : procs_) {
      if (!p->running) continue;
      const double silent = lease_->SilentFor(*p->spec);
      if (silent < lease_->timeout_seconds) continue;
      const int m = p->spec->machine;
      unreachable_.insert(m);
      char secs[32];
      std::snprintf(secs, sizeof(secs), "%.1f", silent);
      return Fail(nullptr, "machine " + std::to_string(m) + " (" + cfg_.machines[m].host + ") is unreachable: no word from [" +
                               p->spec->label + "] on its lease for " + secs +
                               " s (network.peer_timeout_seconds); cable pulled, host down or frozen");
    }
    return Status::OK();
  }

  // One round of pumping and reaping; an error when a process failed or we were signalled.
  Status Step(int timeout_ms) {
    Pump(timeout_ms);
    if (Proc* f = Reap()) {
      Proc* cause = RootCause(f);
      if (LostAPeer(*cause)) DG_RETURN_IF_ERROR(CheckLeases());  // the lost peer's machine went silent
      return Failed(*cause);
    }
    DG_RETURN_IF_ERROR(CheckLeases());
    // SIGTERM while trainers run asks them for a checkpoint; any other
    // signal, or SIGTERM before the trainers started, stops everything now.
    const int sig = g_signal;
    if (sig == SIGTERM && trainers_started_) {
      StopTrainers();
    } else if (sig) {
      return Fail(nullptr, std::string("interrupted by ") + strsignal(sig));
    }
    if (stopping_trainers_ && Clock::now() > stop_deadline_ && CountRunning(Role::kTrainer) > 0)
      return Fail(nullptr, "trainers still running " + std::to_string(static_cast<int>(cfg_.stop_seconds)) +
                               " s after SIGTERM (network.stop_seconds)");
    return Status::OK();
  }

  Status WaitForServers() {
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(s_.server_timeout_s));
    std::vector<Proc*> pending = Select(Role::kServer);
    while (!pending.empty()) {
      DG_RETURN_IF_ERROR(Step(100));
      std::vector<Proc*> still;
      for (Proc* p : pending)
        if (!PortAccepts(p->spec->host, p->spec->port, 200)) still.push_back(p);
      pending.swap(still);
      if (!pending.empty() && Clock::now() > deadline)
        return Fail(pending[0], Who(*pending[0]) + " did not accept connections on " + pending[0]->spec->host + ":" +
                                    std::to_string(pending[0]->spec->port) + " within " +
                                    std::to_string(static_cast<int>(s_.server_timeout_s)) + " s",
                    Status::Timeout);
    }
    return Status::OK();
  }

  // SHUTDOWN frames to every running server, then up to the grace period for
  // them to exit; whatever still runs is stopped by signal afterwards.
  void ShutdownServers() {
    std::vector<Proc*> servers;
    for (Proc* p : Select(Role::kServer))
      if (p->running) servers.push_back(p), p->stop_requested = true;
    if (servers.empty()) return;
    auto pc = LoadAnyPartitionConfig(cfg_.partition);
    if (!pc.ok()) return;
    ClientOptions o = JobClientOptions(cfg_);
    o.connect_timeout_seconds = 5;
    o.deadline_seconds = 5;
    auto client = DistGraphClient::Connect(*pc, JobServerEndpoints(cfg_), cfg_.token, "launcher", 0, o);
    if (!client.ok()) {
      Say("note: no SHUTDOWN frames (" + client.status().message() + "); stopping servers by signal");
      return;
    }
    Status st = (*client)->ShutdownAll();
    client->reset();
    if (!st.ok()) Say("note: SHUTDOWN: " + st.message());
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(s_.grace_s));
    while (Clock::now() < deadline && CountRunning(Role::kServer) > 0) {
      Pump(50);
      Reap();
    }
  }

  // Runs `ssh TARGET pkill -SIG -f PATTERN` for every remote machine among procs, in parallel.
  void RemoteKill(const std::vector<Proc*>& procs, const char* sig) {
    std::map<int, std::string> patterns;  // machine -> alternation of process patterns
    for (Proc* p : procs) {
      if (!p->spec->remote || !p->running || unreachable_.count(p->spec->machine)) continue;
      std::string& pat = patterns[p->spec->machine];
      pat += (pat.empty() ? "" : "|") + ("(" + p->spec->kill_pattern + ")");
    }
    std::vector<pid_t> pids;
    for (const auto& [m, pat] : patterns) {
      std::vector<std::string> argv =
          StarterFor(cfg_, m).Shell(cfg_.machines[m], "pkill -" + std::string(sig) + " -f " + ShellQuote(pat) + "; true");
      pid_t pid = SpawnChild(argv, "", {}, -1);
      if (pid > 0) pids.push_back(pid);
    }
    auto deadline = Clock::now() + std::chrono::seconds(15);
    for (pid_t pid : pids) {
      while (waitpid(pid, nullptr, WNOHANG) == 0) {
        if (Clock::now() > deadline) {
          kill(-pid, SIGKILL);
          waitpid(pid, nullptr, 0);
          break;
        }
        Pump(50);
      }
    }
  }

  // SIGINT (remote: pkill -INT), wait up to the grace period, then SIGKILL;
  // waits for all. SIGINT, not SIGTERM: roles take SIGTERM as a request for a
  // checkpoint (StopTrainers); SIGINT stops them now (servers shut down cleanly).
  void Stop(const std::vector<Proc*>& procs) {
    std::vector<Proc*> live;
    for (Proc* p : procs)
      if (p->running) live.push_back(p), p->stop_requested = true;
    if (live.empty()) return;
    // ssh clients of an unreachable machine wait for nobody: they go at once.
    for (Proc* p : live)
      if (unreachable_.count(p->spec->machine)) kill(-p->pid, SIGKILL);
    RemoteKill(live, "INT");
    for (Proc* p : live)
      if (p->running && !p->spec->remote) kill(-p->pid, SIGINT);
    auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(s_.grace_s));
    auto any_running = [&] {
      for (Proc* p : live)
        if (p->running) return true;
      return false;
    };
    while (any_running() && Clock::now() < deadline) {
      Pump(50);
      Reap();
    }
    if (any_running()) {
      RemoteKill(live, "KILL");
      for (Proc* p : live) {
        if (!p->running) continue;
        Say("[" + p->spec->label + "] did not stop within " + std::to_string(static_cast<int>(s_.grace_s)) +
            " s of SIGINT; sending SIGKILL");
        kill(-p->pid, SIGKILL);
      }
    }
    for (Proc* p : live) {
      if (!p->running) continue;
      waitpid(p->pid, &p->wait_status, 0);
      p->running = false;
      kill(-p->pid, SIGKILL);
    }
    for (int i = 0; i < 3; ++i) Pump(10);
  }

  const JobConfig& cfg_;
  const LaunchPlan& plan_;
  LaunchSettings s_;
  ConsoleView console_;
  const LaunchLease* lease_;   // null: processes hold no lease
  std::set<int> unreachable_;  // machines whose leases went silent
  std::vector<std::unique_ptr<Proc>> procs_;
  bool trainers_started_ = false;
  bool stopping_trainers_ = false;  // SIGTERM sent to the trainers (StopTrainers)
  bool preempted_ = false;          // a trainer exited kExitPreempted
  Clock::time_point stop_deadline_;
};

}  // namespace

int LaunchInterruptSignal() { return g_signal; }

int ToolExitCode(const std::string& program, const Status& status) {
  if (status.ok()) return 0;
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), status.ToString().c_str());
  return 1;
}

std::optional<JobConfig> LoadJobConfigOrSay(const std::string& program, const std::string& file,
                                            const std::vector<std::string>& sets) {
  auto cfg = LoadJobConfig(file, sets);
  if (cfg.ok()) return std::move(*cfg);
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), cfg.status().message().c_str());
  return std::nullopt;
}

Status RunLaunchPlan(const JobConfig& config, const LaunchPlan& plan, const LaunchSettings& settings) {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll returns EINTR and we notice at once
  struct sigaction old_int, old_term, old_hup;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);
  signal(SIGPIPE, SIG_IGN);
  Status st;
  {
    // Every process holds a lease on this launcher (launch_lease.h); the
    // granter outlives the Launcher, which stops every process first.
    LaunchPlan leased = plan;
    auto lease = StartLaunchLease(config, &leased);
    if (!lease.ok()) {
      st = lease.status();
    } else {
      Launcher launcher(config, leased, settings, &*lease);
      st = launcher.Run();
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  return st;
}

}  // namespace dg
