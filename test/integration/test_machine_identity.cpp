// A role's machine and process index from the environment (--machine auto,
// --index auto: roles/job/machine_identity.h), and machines[].host names
// resolved at start (roles/job/machine_hosts.h): the pure rules, then real
// `distgnn --role server` processes started under `env` with the variables a
// scheduler sets, reached over HTTP on their metrics port.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>

#include "common/net/metrics_http.h"
#include "roles/job/machine_identity.h"
#include "test/integration/test_launch_support.h"

using namespace dg;
using namespace dg::test;

namespace {

EnvLookup Env(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// A 2-machine job of Cora (random 2-way partition) whose roles the tests start
// by hand; ports.metrics on, so each server answers /readyz.
struct IdentityJob {
  TempDir dir;
  int base = FreePortRange(5), metrics = FreePortRange(4);

  IdentityJob() {
    auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method",
                         "random", "--name", "cora", "--out", dir / "parts"},
                        120);
    REQUIRE(r.exit_code == 0);
    std::ofstream(dir / "model.pt") << "x";  // servers never read it
    Write("127.0.0.1", "127.0.0.1");
  }
  void Write(const std::string& host0, const std::string& host1) {
    std::ofstream y(dir / "job.yaml");
    y << "job: cora\npartition: parts/cora.json\nmachines:\n  - host: " << host0 << "\n  - host: " << host1
      << "\nports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4
      << ", metrics: " << metrics << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: 0}\n"
      << "train: {model: model.pt, fanouts: [5], batch_size: 10, epochs: 1, lr: 0.01}\n"
      << "network: {connect_wait_seconds: 1}\n";
  }
  // The server's metrics port on machine m (P = 1 server + 1 trainer per machine).
  int ServerMetricsPort(int m) const { return metrics + 2 * m; }

  // `env -u ... VAR=VALUE... distgnn --role server --config job.yaml ARGS...`,
  // every identity variable unset but those given.
  void Start(Subprocess* p, const std::vector<std::string>& vars, const std::vector<std::string>& args,
             const std::string& log) const {
    std::vector<std::string> argv{"/usr/bin/env"};
    for (const auto& list : {MachineIndexVariables(), ProcessIndexVariables()})
      for (const std::string& v : list) argv.insert(argv.end(), {"-u", v});
    argv.insert(argv.end(), vars.begin(), vars.end());
    argv.insert(argv.end(), {DistgnnBin(), "--role", "server", "--config", dir / "job.yaml"});
    argv.insert(argv.end(), args.begin(), args.end());
    p->Start(argv, dir / log);
  }
  RunResult Run(const std::vector<std::string>& vars, const std::vector<std::string>& args = {}) const {
    Subprocess p;
    Start(&p, vars, args, "run.log");
    const int code = p.Wait(60);
    return {code, p.Output()};
  }
};

}  // namespace

TEST_CASE("machine auto reads SLURM_NODEID, JOB_COMPLETION_INDEX, GROUP_RANK, RANK in that order",
          "[identity]") {
  const auto& vars = MachineIndexVariables();
  IndexChoice c = ChooseIndex("auto", vars, Env({{"RANK", "3"}, {"GROUP_RANK", "1"}, {"JOB_COMPLETION_INDEX", "2"}}));
  CHECK(c.value == 2);
  CHECK(c.from.variable == "JOB_COMPLETION_INDEX");
  CHECK(DescribeIndex("machine", c) == "machine 2 from JOB_COMPLETION_INDEX=2");
  c = ChooseIndex("", vars, Env({{"SLURM_NODEID", "0"}, {"JOB_COMPLETION_INDEX", "2"}}));
  CHECK(c.value == 0);
  CHECK(c.from.variable == "SLURM_NODEID");
  c = ChooseIndex("auto", vars, Env({{"SLURM_NODEID", ""}, {"RANK", "1"}, {"GROUP_RANK", "1"}}));  // empty = unset
  CHECK(c.from.variable == "GROUP_RANK");
  c = ChooseIndex("auto", vars, Env({{"RANK", "4"}}));
  CHECK(c.from.variable == "RANK");
  // A number on the flag wins over the environment, and says nothing.
  c = ChooseIndex("1", vars, Env({{"SLURM_NODEID", "0"}}));
  CHECK(c.value == 1);
  CHECK(c.from.variable.empty());
  CHECK(DescribeIndex("machine", c).empty());
  CHECK(CheckIndex(c, "--machine", vars, 2, "job.yaml has 2 machines").ok());
  c = ChooseIndex("auto", ProcessIndexVariables(), Env({{"LOCAL_RANK", "1"}, {"SLURM_LOCALID", "0"}}));
  CHECK(c.value == 0);
  CHECK(c.from.variable == "SLURM_LOCALID");
}

TEST_CASE("a missing, garbled or out-of-range index is one error naming the flag or variable and the count",
          "[identity]") {
  const auto& vars = MachineIndexVariables();
  const std::string note = "job.yaml has 2 machines";
  auto message = [&](const std::string& flag, const std::map<std::string, std::string>& env) {
    Status st = CheckIndex(ChooseIndex(flag, vars, Env(env)), "--machine", vars, 2, note);
    REQUIRE_FALSE(st.ok());
    return st.message();
  };
  CHECK(message("auto", {{"JOB_COMPLETION_INDEX", "2"}}) ==
        "--machine auto: JOB_COMPLETION_INDEX=2 is out of range (0..1): job.yaml has 2 machines");
  CHECK(message("auto", {{"SLURM_NODEID", "node-1"}}) ==
        "--machine auto: SLURM_NODEID=node-1 is not a number (0..1) (job.yaml has 2 machines)");
  CHECK(message("auto", {{"RANK", "-1"}}) == "--machine auto: RANK=-1 is not a number (0..1) (job.yaml has 2 machines)");
  CHECK(message("auto", {}) == "--machine auto: none of SLURM_NODEID, JOB_COMPLETION_INDEX, GROUP_RANK, RANK is set; "
                               "give --machine N (0..1) (job.yaml has 2 machines)");
  CHECK(message("5", {}) == "--machine 5: job.yaml has 2 machines");  // as before: the flag said it
  CHECK(message("one", {}) == "--machine one: expected a number (0..1) or auto");
}

TEST_CASE("a server started with --machine auto serves the machine JOB_COMPLETION_INDEX names and says so",
          "[identity][health]") {
  IdentityJob job;
  Subprocess server;
  // RANK is set too: JOB_COMPLETION_INDEX comes first.
  job.Start(&server, {"JOB_COMPLETION_INDEX=1", "RANK=0", "LOCAL_RANK=0"}, {"--index", "auto"}, "server.log");
  std::string body;
  REQUIRE(WaitFor(60, [&] {
    auto r = HttpGet("127.0.0.1", job.ServerMetricsPort(1), "/readyz", 1);
    if (r.ok()) body = *r;
    return r.ok();
  }));
  INFO(server.Output());
  CHECK(body == "ready\n");
  const std::string log = server.Output();
  CHECK(log.find("server: machine 1 from JOB_COMPLETION_INDEX=1") != std::string::npos);
  CHECK(log.find("server: index 0 from LOCAL_RANK=0") != std::string::npos);
  CHECK(log.find("serving partition 1 of 'cora'") != std::string::npos);
  CHECK(log.find("on 127.0.0.1:" + std::to_string(job.base + 1)) != std::string::npos);
  server.Signal(SIGTERM);
  CHECK(server.Wait(30) == 0);
}

TEST_CASE("a server whose environment gives no usable machine exits non-zero with one line naming it",
          "[identity]") {
  IdentityJob job;
  const std::string yaml = job.dir / "job.yaml";
  auto r = job.Run({"JOB_COMPLETION_INDEX=2"});
  CHECK(r.exit_code == 1);
  CHECK(r.output == "distgnn --role server: error: InvalidArgument: --machine auto: JOB_COMPLETION_INDEX=2 is out of "
                    "range (0..1): " + yaml + " has 2 machines\n");
  r = job.Run({"SLURM_NODEID=x", "RANK=0"});
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("SLURM_NODEID=x is not a number (0..1) (" + yaml + " has 2 machines)") != std::string::npos);
  r = job.Run({});
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("--machine auto: none of SLURM_NODEID, JOB_COMPLETION_INDEX, GROUP_RANK, RANK is set") !=
        std::string::npos);
  r = job.Run({"GROUP_RANK=0"}, {"--machine", "2"});  // an explicit number: checked as it always was
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("--machine 2: " + yaml + " has 2 machines") != std::string::npos);
  r = job.Run({"LOCAL_RANK=1"}, {"--machine", "0", "--index", "auto"});
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("--index auto: LOCAL_RANK=1 is out of range (0..0): processes.servers gives 1 server(s) per "
                      "machine") != std::string::npos);
}

TEST_CASE("host names in the job YAML are resolved at start and one that does not resolve is named", "[identity][hosts]") {
  IdentityJob job;
  const std::string yaml = job.dir / "job.yaml";
  job.Write("nonexistent.invalid", "127.0.0.1");  // this machine's own name
  auto r = job.Run({}, {"--machine", "0"});
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(yaml + ": machines[0].host nonexistent.invalid (this machine) does not resolve") !=
        std::string::npos);
  job.Write("127.0.0.1", "nonexistent.invalid");  // a peer's: waited for, network.connect_wait_seconds = 1
  r = job.Run({}, {"--machine", "0"});
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(yaml + ": machines[1].host nonexistent.invalid does not resolve") != std::string::npos);
  CHECK(r.output.find("network.connect_wait_seconds = 1 s") != std::string::npos);

  // A name that resolves: the server binds its address and serves.
  job.Write("localhost", "localhost");
  Subprocess server;
  job.Start(&server, {"JOB_COMPLETION_INDEX=0"}, {}, "localhost.log");
  REQUIRE(WaitFor(60, [&] { return HttpGet("127.0.0.1", job.ServerMetricsPort(0), "/readyz", 1).ok(); }));
  INFO(server.Output());
  CHECK(server.Output().find("on 127.0.0.1:" + std::to_string(job.base)) != std::string::npos);
  server.Signal(SIGTERM);
  CHECK(server.Wait(30) == 0);
}
