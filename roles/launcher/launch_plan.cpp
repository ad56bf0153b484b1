#include "roles/launcher/launch_plan.h"

#include "common/net/handshake.h"
#include "roles/launcher/process_starter.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>

namespace dg {

namespace fs = std::filesystem;

const char* RoleName(Role role) {
  switch (role) {
    case Role::kServer: return "server";
    case Role::kTrainer: return "trainer";
    case Role::kSampler: return "sampler";
  }
  return "?";
}

bool IsLocalHost(const std::string& host) {
  if (host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0) return true;
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) == 0 && host == name) return true;
  ifaddrs* addrs = nullptr;
  bool found = false;
  if (getifaddrs(&addrs) == 0) {
    for (ifaddrs* a = addrs; a && !found; a = a->ifa_next) {
      if (!a->ifa_addr) continue;
      char buf[INET6_ADDRSTRLEN] = {0};
      if (a->ifa_addr->sa_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof(buf));
      else if (a->ifa_addr->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, buf, sizeof(buf));
      found = host == buf;
    }
    freeifaddrs(addrs);
  }
  return found;
}

std::string ShellQuote(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_./=:,@+%") == std::string::npos)
    return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ShellJoin(const std::vector<std::string>& argv) {
  std::string out;
  for (size_t i = 0; i < argv.size(); ++i) out += (i ? " " : "") + ShellQuote(argv[i]);
  return out;
}

std::vector<std::string> SshPrefix(const MachineConfig& m) {
  std::vector<std::string> argv{"ssh", "-o", "BatchMode=yes"};
  // ssh keeps the first value it sees for an option: the user's come first.
  for (const auto& o : m.ssh_options) argv.insert(argv.end(), {"-o", o});
  argv.insert(argv.end(), {"-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=5", "-o",
                           "ServerAliveCountMax=3"});
  if (m.ssh_port != 22) argv.insert(argv.end(), {"-p", std::to_string(m.ssh_port)});
  if (!m.ssh_key.empty()) argv.insert(argv.end(), {"-i", m.ssh_key});
  argv.push_back(m.ssh);
  return argv;
}

std::string NewJobId(const std::string& job) {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<uint64_t>(rd()) << 32) ^ rd() ^ static_cast<uint64_t>(getpid()));
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%012llx", static_cast<unsigned long long>(gen() & 0xffffffffffffULL));
  return job + "-" + buf;
}

namespace {

std::string RegexEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

Result<LaunchPlan> BuildLaunchPlan(const JobConfig& cfg, const PlanOptions& opt) {
  LaunchPlan plan;
  plan.job_id = opt.job_id.empty() ? NewJobId(cfg.job) : opt.job_id;
  plan.log_dir = cfg.RunDir() + "/logs";
  const std::string id_re = RegexEscape(plan.job_id);
  // "[-]-job-id" matches "--job-id" but not itself, so pkill never kills its own shell.
  plan.host_kill_pattern = "[-]-job-id " + id_re + "( |$)";
  const std::string config_name = fs::path(cfg.path).filename().string();

  auto add = [&](int m, Role role, int index, int rank, int port) {
    const MachineConfig& mc = cfg.machines[m];
    ProcessSpec p;
    p.machine = m;
    p.role = role;
    p.index = index;
    p.rank = rank;
    p.host = mc.host;
    p.port = port;
    const ProcessStarter& starter = StarterFor(cfg, m);
    p.remote = starter.remote();
    const bool in_workspace = !mc.ssh.empty() && !mc.workspace.empty();
    p.workdir = in_workspace ? mc.workspace : cfg.base_dir;
    std::string binary = !opt.override_binary.empty() ? opt.override_binary
                         : !mc.binary.empty()         ? mc.binary
                                                      : starter.DefaultBinary(opt);
    p.role_argv = {binary,
                   "--role", RoleName(role),
                   "--config", in_workspace ? config_name : cfg.path,
                   "--machine", std::to_string(m),
                   "--index", std::to_string(index),
                   "--job-id", plan.job_id};
    for (const auto& o : cfg.overrides) p.role_argv.insert(p.role_argv.end(), {"--set", o});
    if (role == Role::kTrainer) p.role_argv.insert(p.role_argv.end(), opt.trainer_args.begin(), opt.trainer_args.end());
    if (!cfg.token.empty() && !p.remote) p.env.emplace_back("DISTGNN_TOKEN", cfg.token);
    if (const char* lvl = std::getenv("DISTGNN_LOG_LEVEL")) p.env.emplace_back("DISTGNN_LOG_LEVEL", lvl);
    if (p.remote) {
      // The token goes through the command's stdin (one line), never into an argv.
      if (!cfg.token.empty()) p.stdin_text = cfg.token + "\n";
      p.command = starter.Shell(mc, RemoteRoleCommand(p, !cfg.token.empty()));
    } else {
      p.command = p.role_argv;
    }
    p.label = std::to_string(m) + "/" + RoleName(role) + "/" + std::to_string(role == Role::kTrainer ? rank : index);
    p.log_file = plan.log_dir + "/" + std::to_string(m) + "-" + RoleName(role) + "-" + std::to_string(index) + ".log";
    p.kill_pattern = "[-]-role " + std::string(RoleName(role)) + " .*--machine " + std::to_string(m) + " --index " +
                     std::to_string(index) + " --job-id " + id_re + "( |$)";
    plan.processes.push_back(std::move(p));
  };

  const int M = cfg.num_machines(), S = cfg.servers_per_machine, T = cfg.trainers_per_machine;
  const int K = cfg.samplers_per_trainer;
  for (int m = 0; m < M; ++m)
    for (int i = 0; i < S; ++i) add(m, Role::kServer, i, m * S + i, cfg.ServerPort(m, i));
  for (int m = 0; m < M; ++m)
    for (int t = 0; t < T; ++t) add(m, Role::kTrainer, t, cfg.TrainerRank(m, t), cfg.TrainerPort(m, t));
  for (int m = 0; m < M && opt.samplers; ++m)
    for (int i = 0; i < T * K; ++i) add(m, Role::kSampler, i, m * T * K + i, 0);
  return plan;
}

Result<bool> EnsureJobToken(JobConfig* cfg) {
  if (!cfg->token.empty()) return false;
  DG_ASSIGN_OR_RETURN(Nonce n, RandomNonce());
  static const char* kHex = "0123456789abcdef";
  std::string t;
  for (uint8_t b : n) t += std::string(1, kHex[b >> 4]) + kHex[b & 15];
  cfg->token = t;
  return true;
}

std::vector<std::string> SecurityWarnings(const JobConfig& cfg) {
  std::vector<std::string> w;
  if (cfg.token.empty()) {
    bool open = false;
    for (const auto& m : cfg.machines) open |= !IsLoopbackAddress(m.host);
    w.push_back(std::string("no cluster token (token: \"\" and no DISTGNN_TOKEN): `distgnn launch` makes a random one "
                            "per job, but servers started by hand would accept anyone") +
                (open ? "; they refuse to serve a non-loopback address without a token unless given --insecure" : ""));
  }
  if (cfg.token_from_yaml) {
    w.push_back("the token is written in " + cfg.path + ": keep that file private (chmod 600) or use DISTGNN_TOKEN / "
                "DISTGNN_TOKEN_FILE instead");
  }
  if (!cfg.token.empty() && cfg.token.size() < 16) {
    w.push_back("the cluster token has only " + std::to_string(cfg.token.size()) +
                " characters; use at least 16 random ones (e.g. openssl rand -hex 32)");
  }
  return w;
}

std::string FormatPlan(const JobConfig& cfg, const LaunchPlan& plan) {
  std::ostringstream out;
  out << "job:        " << cfg.job << " (job id " << plan.job_id << ")\n"
      << "config:     " << cfg.path << "\n"
      << "partition:  " << cfg.partition << " (" << cfg.num_machines() << " parts)\n"
      << "model:      " << cfg.train.model << "\n"
      << "token:      " << (cfg.token.empty() ? "none" : "set (DISTGNN_TOKEN in the environment; over ssh or srun on stdin)") << "\n"
      << "processes:  per machine " << cfg.servers_per_machine << " server(s), " << cfg.trainers_per_machine
      << " trainer(s), " << cfg.samplers_per_trainer << " sampler(s) per trainer\n"
      << "rendezvous: " << cfg.RendezvousHost() << ":" << cfg.rendezvous_port << " (trainer 0)\n"
      << "metrics:    "
      << (cfg.metrics_port > 0 ? "http://HOST:PORT/metrics per process (ports.metrics = " +
                                     std::to_string(cfg.metrics_port) + ")"
                               : std::string("off (set ports.metrics or launch --metrics-port)"))
      << "\n"
      << "outputs:    " << cfg.RunDir() << " (logs in " << plan.log_dir << ")\n";
  for (const auto& o : cfg.overrides) out << "override:   --set " << o << "\n";
  out << "\n";
  for (const auto& p : plan.processes) {
    out << "[" << p.label << "] " << RoleName(p.role) << " machine " << p.machine << " index " << p.index
        << " rank " << p.rank << " on " << p.host;
    if (p.port) out << ":" << p.port;
    const MetricsRole mr = p.role == Role::kServer    ? MetricsRole::kServer
                           : p.role == Role::kTrainer ? MetricsRole::kTrainer
                                                      : MetricsRole::kSampler;
    if (cfg.metrics_port > 0) out << " metrics :" << cfg.MetricsPort(mr, p.machine, p.index);
    out << " " << StarterFor(cfg, p.machine).Via(cfg.machines[p.machine]);
    if (p.role == Role::kSampler && cfg.samplers_per_trainer > 0)
      out << " serves trainer " << p.index / cfg.samplers_per_trainer;
    std::string cmd = ShellJoin(p.command);
    if (!cfg.token.empty()) {  // never print the secret
      for (size_t at; (at = cmd.find(cfg.token)) != std::string::npos;) cmd.replace(at, cfg.token.size(), "***");
    }
    out << "\n    cwd: " << p.workdir << "\n    cmd: " << cmd << "\n";
  }
  return out.str();
}

}  // namespace dg
