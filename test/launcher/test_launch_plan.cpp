// BuildLaunchPlan and BuildCopyPlan: every process, port and command line, and
// the pkill patterns that find exactly one process (and never the ssh client).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "roles/job/job_tls.h"
#include "roles/launcher/copy_plan.h"
#include "config/job_config.h"
#include "roles/launcher/launch_plan.h"
#include "test/support/test_support.h"

using namespace dg;
using dg::test::TempDir;

namespace {

// Writes a partition stub of `parts` parts, a model stub and job.yaml into dir; loads it.
Result<JobConfig> LoadJob(const TempDir& dir, const std::string& machines_yaml, int parts, const std::string& extra,
                          const std::vector<std::string>& sets) {
  std::filesystem::create_directories(dir / "parts");
  std::ofstream(dir / "parts/g.json") << "{\"num_parts\": " << parts
                                      << ", \"orig_nids\": \"orig_nids.npy\", \"parts\": [{\"dir\": \"p0\"}, "
                                         "{\"dir\": \"p1\"}]}";
  std::filesystem::create_directories(dir / "parts/p0");
  std::filesystem::create_directories(dir / "parts/p1");
  std::ofstream(dir / "parts/orig_nids.npy") << "x";
  std::ofstream(dir / "m.pt") << "x";
  std::ofstream(dir / "job.yaml") << "job: g\npartition: parts/g.json\nmachines:"
                                  << (machines_yaml.rfind("{", 0) == 0 ? " " : "\n") << machines_yaml << extra
                                  << "train: {model: m.pt}\n";
  unsetenv("DISTGNN_TOKEN");
  return LoadJobConfig(dir / "job.yaml", sets);
}

struct Job {
  TempDir dir;
  JobConfig cfg;
  Job(const std::string& machines_yaml, int parts, const std::string& extra = "",
      const std::vector<std::string>& sets = {}) {
    auto r = LoadJob(dir, machines_yaml, parts, extra, sets);
    INFO((r.ok() ? "" : r.status().message()));
    REQUIRE(r.ok());
    cfg = *r;
  }
};

std::string Cmdline(const std::vector<std::string>& argv) {  // as pkill -f sees it
  std::string s;
  for (size_t i = 0; i < argv.size(); ++i) s += (i ? " " : "") + argv[i];
  return s;
}

bool Matches(const std::string& pattern, const std::string& cmdline) {
  return std::regex_search(cmdline, std::regex(pattern, std::regex::extended));
}

}  // namespace

TEST_CASE("the plan has every process with derived ports and exact command lines", "[plan]") {
  Job job("  - host: 127.0.0.1\n  - host: 127.0.0.1\n", 2,
          "ports: {server: 40000, trainer: 40100, rendezvous: 40200}\n"
          "processes: {servers: 2, trainers: 2, samplers_per_trainer: 3}\ntoken: s3cr3t\n",
          {"train.epochs=3"});
  PlanOptions opt;
  opt.local_binary = "/bin/distgnn";
  opt.job_id = "g-123";
  auto plan = BuildLaunchPlan(job.cfg, opt);
  REQUIRE(plan.ok());
  const auto& ps = plan->processes;
  REQUIRE(ps.size() == 2 * 2 + 2 * 2 + 2 * 2 * 3);
  CHECK(plan->log_dir == job.dir / "runs/g/logs");

  // Servers first: ports.server + m*servers + i.
  for (int m = 0; m < 2; ++m)
    for (int i = 0; i < 2; ++i) {
      const ProcessSpec& s = ps[m * 2 + i];
      CHECK(s.role == Role::kServer);
      CHECK(s.port == 40000 + m * 2 + i);
      CHECK(s.rank == m * 2 + i);
      CHECK_FALSE(s.remote);
    }
  const ProcessSpec& s = ps[3];  // server 1 of machine 1
  CHECK(s.command == std::vector<std::string>{"/bin/distgnn", "--role", "server", "--config", job.dir / "job.yaml",
                                              "--machine", "1", "--index", "1", "--job-id", "g-123", "--set",
                                              "train.epochs=3"});
  CHECK(s.workdir == job.dir.path());
  CHECK(s.env == std::vector<std::pair<std::string, std::string>>{{"DISTGNN_TOKEN", "s3cr3t"}});
  CHECK(s.label == "1/server/1");
  CHECK(s.log_file == job.dir / "runs/g/logs/1-server-1.log");

  // Trainers: ports.trainer + m*trainers + t, global rank m*T+t.
  const ProcessSpec& t = ps[4 + 3];  // trainer 1 of machine 1
  CHECK(t.role == Role::kTrainer);
  CHECK(t.port == 40100 + 1 * 2 + 1);
  CHECK(t.rank == 3);
  CHECK(t.label == "1/trainer/3");
  CHECK(t.command[2] == "trainer");

  // Samplers: index 0..T*K-1 per machine; sampler I serves trainer I / K.
  const ProcessSpec& sm = ps.back();
  CHECK(sm.role == Role::kSampler);
  CHECK(sm.machine == 1);
  CHECK(sm.index == 5);
  CHECK(sm.port == 0);
  CHECK(sm.rank == 11);
  CHECK(sm.label == "1/sampler/5");

  std::string text = FormatPlan(job.cfg, *plan);
  CHECK(text.find("[1/sampler/5] sampler machine 1 index 5 rank 11 on 127.0.0.1 (local) serves trainer 1") !=
        std::string::npos);
  CHECK(text.find("--set train.epochs=3") != std::string::npos);
  CHECK(text.find("s3cr3t") == std::string::npos);  // the token is never printed
}

TEST_CASE("ssh machines run through ssh in their workspace", "[plan]") {
  Job job("  - host: 10.0.0.1\n    ssh: u@node0\n    ssh_port: 2222\n    workspace: /srv/ws\n"
          "    ssh_options: [StrictHostKeyChecking=accept-new]\n"
          "  - host: 10.0.0.2\n    ssh: node1\n    binary: /opt/bin/distgnn\n",
          2, "token: \"it's\"\n");
  PlanOptions opt;
  opt.job_id = "g-abc";
  auto plan = BuildLaunchPlan(job.cfg, opt);
  REQUIRE(plan.ok());
  const ProcessSpec& s0 = plan->processes[0];
  CHECK(s0.remote);
  CHECK(s0.workdir == "/srv/ws");
  CHECK(s0.command ==
        std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=accept-new", "-o",
                                 "ConnectTimeout=10", "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
                                 "-p", "2222", "u@node0",
                                 "cd /srv/ws && IFS= read -r DISTGNN_TOKEN && export DISTGNN_TOKEN && exec distgnn --role server --config "
                                 "job.yaml --machine 0 --index 0 '--job-id' g-abc"});
  CHECK(s0.stdin_text == "it's\n");  // the token travels on ssh's stdin, in no argv
  for (const auto& a : s0.command) CHECK(a.find("it's") == std::string::npos);
  // No workspace: same absolute paths (shared filesystem), the machine's own binary.
  const ProcessSpec& s1 = plan->processes[1];
  CHECK(s1.command.back() == "cd " + job.dir.path() + " && IFS= read -r DISTGNN_TOKEN && export DISTGNN_TOKEN && exec /opt/bin/distgnn --role "
                             "server --config " + job.dir / "job.yaml" + " --machine 1 --index 0 '--job-id' g-abc");

  // The kill pattern finds exactly this process, never the ssh client that started it.
  for (const auto& p : plan->processes) {
    std::string role_cmd = Cmdline(p.role_argv);
    CHECK(Matches(p.kill_pattern, role_cmd));
    CHECK(Matches(plan->host_kill_pattern, role_cmd));
    CHECK_FALSE(Matches(p.kill_pattern, Cmdline(p.command)));
    CHECK_FALSE(Matches(plan->host_kill_pattern, Cmdline(p.command)));
    CHECK_FALSE(Matches(p.kill_pattern, "pkill -TERM -f " + p.kill_pattern));
    for (const auto& q : plan->processes)
      if (&q != &p) CHECK_FALSE(Matches(p.kill_pattern, Cmdline(q.role_argv)));
  }
  CHECK_FALSE(Matches(plan->host_kill_pattern, "distgnn --role server --job-id g-abcd"));
}

TEST_CASE("IsLocalHost and ShellQuote", "[plan]") {
  CHECK(IsLocalHost("127.0.0.1"));
  CHECK(IsLocalHost("localhost"));
  CHECK(IsLocalHost("::1"));
  CHECK_FALSE(IsLocalHost("10.255.255.1"));
  CHECK(ShellQuote("plain/path-1.yaml") == "plain/path-1.yaml");
  CHECK(ShellQuote("a b") == "'a b'");
  CHECK(ShellQuote("") == "''");
  CHECK(ShellQuote("x'y") == "'x'\\''y'");
  CHECK(NewJobId("g").size() == 2 + 12);
  CHECK(NewJobId("g") != NewJobId("g"));
}

TEST_CASE("copy sends each ssh machine its own part and the shared files", "[plan]") {
  Job job("  - host: 10.0.0.1\n    ssh: u@node0\n    workspace: /srv/ws\n  - host: 127.0.0.1\n", 2);
  auto plan = BuildCopyPlan(job.cfg, true);
  REQUIRE(plan.ok());
  REQUIRE(plan->size() == 2);
  const MachineCopy& m0 = (*plan)[0];
  std::vector<std::string> rel;
  for (const auto& it : m0.items) rel.push_back(it.relative);
  CHECK(rel == std::vector<std::string>{"job.yaml", "parts/g.json", "parts/orig_nids.npy", "parts/p0", "m.pt"});
  REQUIRE(m0.commands.size() == 2);
  CHECK(m0.commands[0].back() == "mkdir -p /srv/ws /srv/ws/parts");
  CHECK(m0.commands[1][0] == "rsync");
  CHECK(m0.commands[1].back() == "u@node0:/srv/ws/");
  CHECK(m0.commands[1][5] == job.dir.path() + "/./job.yaml");
  CHECK((*plan)[1].items.empty());
  CHECK((*plan)[1].note.find("local machine") != std::string::npos);

  auto scp = BuildCopyPlan(job.cfg, false);
  REQUIRE(scp.ok());
  CHECK((*scp)[0].commands.size() == 1 + 5);
  CHECK((*scp)[0].commands[4].back() == "u@node0:/srv/ws/parts/");  // part folder into parts/
}

TEST_CASE("copy places a machine's own TLS certificates and keys, keys 0600, and no other machine's", "[plan][tls]") {
  Job job("  - host: 10.0.0.1\n    ssh: u@node0\n    workspace: /srv/ws\n  - host: 10.0.0.2\n    ssh: u@node1\n", 2,
          "tls: {ca: certs/ca.crt, dir: certs}\n");
  std::filesystem::create_directories(job.dir / "certs");
  REQUIRE(MakeJobCa("g", CertValidity(), job.dir / "certs/ca.crt", job.dir / "certs/ca.key", false).ok());
  REQUIRE(IssueJobCertificates(job.cfg, job.cfg.tls.ca, job.dir / "certs/ca.key", CertValidity(), false).ok());
  struct stat st;
  REQUIRE(::stat((job.dir / "certs/trainer-10.0.0.2.key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(std::filesystem::exists(job.dir / "certs/launcher.crt"));
  auto plan = BuildCopyPlan(job.cfg, true);
  INFO((plan.ok() ? "" : plan.status().message()));
  REQUIRE(plan.ok());
  const MachineCopy& m0 = (*plan)[0];
  std::vector<std::string> rel;
  for (const auto& it : m0.items) rel.push_back(it.relative);
  CHECK(rel == std::vector<std::string>{"job.yaml", "parts/g.json", "parts/orig_nids.npy", "parts/p0", "m.pt",
                                        "certs/ca.crt", "certs/server-10.0.0.1.crt", "certs/server-10.0.0.1.key",
                                        "certs/trainer-10.0.0.1.crt", "certs/trainer-10.0.0.1.key",
                                        "certs/sampler-10.0.0.1.crt", "certs/sampler-10.0.0.1.key"});
  REQUIRE(m0.commands.size() == 3);
  CHECK(m0.commands[2].back() ==
        "chmod 600 /srv/ws/certs/server-10.0.0.1.key /srv/ws/certs/trainer-10.0.0.1.key /srv/ws/certs/sampler-10.0.0.1.key");
  CHECK((*plan)[1].items.empty());  // no workspace: shares this filesystem
}

TEST_CASE("copy refuses files outside the config's folder", "[plan]") {
  TempDir other;
  std::ofstream(other / "model.pt") << "x";
  Job job("  - host: 10.0.0.1\n    ssh: u@node0\n    workspace: /srv/ws\n  - host: 127.0.0.1\n", 2, "",
          {"train.model=" + other / "model.pt"});
  auto plan = BuildCopyPlan(job.cfg, true);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.status().message().find("train.model: " + other / "model.pt" + " lies outside the config's folder") !=
        std::string::npos);
}

TEST_CASE("a job without a token gets a random one per launch, handed over outside any argv", "[plan][security]") {
  Job job("  - host: 127.0.0.1\n  - host: 10.0.0.2\n    ssh: node1\n", 2);
  REQUIRE(job.cfg.token.empty());
  auto warnings = dg::SecurityWarnings(job.cfg);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("no cluster token") != std::string::npos);
  CHECK(warnings[0].find("--insecure") != std::string::npos);  // machine 1 is not loopback
  JobConfig a = job.cfg, b = job.cfg;
  REQUIRE(*dg::EnsureJobToken(&a));
  REQUIRE(*dg::EnsureJobToken(&b));
  CHECK(a.token.size() == 64);
  CHECK(a.token != b.token);
  CHECK_FALSE(*dg::EnsureJobToken(&a));  // an existing token is kept
  PlanOptions opt;
  opt.job_id = "t-1";
  auto plan = BuildLaunchPlan(a, opt);
  REQUIRE(plan.ok());
  for (const auto& p : plan->processes) {
    for (const auto& arg : p.command) CHECK(arg.find(a.token) == std::string::npos);
    if (p.remote) {
      CHECK(p.stdin_text == a.token + "\n");
      CHECK(p.env.empty());
    } else {
      CHECK(p.env == std::vector<std::pair<std::string, std::string>>{{"DISTGNN_TOKEN", a.token}});
    }
  }
  Job in_file("  - host: 127.0.0.1\n  - host: 127.0.0.1\n", 2, "token: short\n");
  warnings = dg::SecurityWarnings(in_file.cfg);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("keep that file private") != std::string::npos);
  CHECK(warnings[1].find("only 5 characters") != std::string::npos);
}

TEST_CASE("scheduler slurm: every process is an srun step on its node, the token on srun's stdin", "[plan]") {
  Job job("  - host: node0\n  - host: node1\n", 2, "scheduler: slurm\ntoken: s3cr3t\n");
  PlanOptions opt;
  opt.local_binary = "/shared/distgnn";
  opt.job_id = "g-abc";
  auto plan = BuildLaunchPlan(job.cfg, opt);
  REQUIRE(plan.ok());
  for (const ProcessSpec& p : plan->processes) {
    INFO(p.label);
    CHECK(p.remote);
    CHECK(p.stdin_text == "s3cr3t\n");
    REQUIRE(p.command.size() == 10);
    CHECK(std::vector<std::string>(p.command.begin(), p.command.begin() + 9) ==
          std::vector<std::string>{"srun", "--nodes=1", "--ntasks=1", "--nodelist=node" + std::to_string(p.machine),
                                   "--overlap", "--kill-on-bad-exit=0", "--quiet", "/bin/sh", "-c"});
    CHECK(p.command[9].rfind("cd " + job.dir.path() + " && IFS= read -r DISTGNN_TOKEN && export DISTGNN_TOKEN && "
                              "exec /shared/distgnn --role ", 0) == 0);
    for (const auto& a : p.command) CHECK(a.find("s3cr3t") == std::string::npos);
    // pkill finds the role on its node, never the srun client carrying its command.
    CHECK(Matches(p.kill_pattern, Cmdline(p.role_argv)));
    CHECK_FALSE(Matches(p.kill_pattern, Cmdline(p.command)));
  }
  CHECK(FormatPlan(job.cfg, *plan).find("on node0:") != std::string::npos);
  CHECK(FormatPlan(job.cfg, *plan).find("via srun on node node1") != std::string::npos);
}

TEST_CASE("machines from slurm outside an allocation, an unknown source or scheduler: one error naming the key",
          "[plan]") {
  TempDir dir;
  unsetenv("SLURM_JOB_NODELIST");
  auto r = LoadJob(dir, "{from: slurm}\n", 2, "", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("key 'machines.from'") != std::string::npos);
  CHECK(r.status().message().find("SLURM_JOB_NODELIST is not set") != std::string::npos);
  r = LoadJob(dir, "{from: pbs}\n", 2, "", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("expected slurm") != std::string::npos);
  r = LoadJob(dir, "  - host: a\n  - host: b\n", 2, "scheduler: kubernetes\n", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("key 'scheduler'") != std::string::npos);
}
