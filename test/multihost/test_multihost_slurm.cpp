// Jobs under a real Slurm (test/support/slurm_cluster.h: slurmctld, one
// slurmd per namespace host, munge): `sbatch --nodes=2` of a batch script
// that runs `distgnn launch` on a YAML with `machines: {from: slurm}`, so the
// machines come from the allocation and every role is an srun step on its
// node. Checked: Cora trains to the accuracy bar with every role started by
// srun (no ssh anywhere) and no step left; `scancel` leaves no distgnn
// process on any host within peer_timeout_seconds + 5 s; a node lost mid-run
// (cable pulled, then every process of the host killed) is named by launch
// within peer_timeout_seconds + 5 s, and launch ends.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <sstream>

#include "test/integration/cora_launch_job.h"
#include "test/support/skip.h"
#include "test/support/slurm_cluster.h"

using namespace dg::test;

namespace {

constexpr double kPeerTimeout = 3;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Cora in 2 parts, a SAGE model, job.yaml with machines from Slurm and a batch
// script running `exec distgnn launch job.yaml --set train.epochs=EPOCHS`.
struct SlurmJob {
  TempDir dir;
  std::string id;  // the Slurm job id once submitted

  explicit SlurmJob(int epochs) {
    auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                         "--name", "cora", "--out", dir / "parts"},
                        120);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "128", "--classes", "7",
                    "--layers", "2", "-o", dir / "sage.pt"},
                   120);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    std::ofstream y(dir / "job.yaml");
    y << "job: cora\npartition: parts/cora.json\nmachines: {from: slurm}\n"
      << "ports: {server: 7300, trainer: 7310, rendezvous: 7320}\n"
      << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 2}\n"
      << "network: {peer_timeout_seconds: " << kPeerTimeout << ", heartbeat_seconds: 1}\n"
      << "train: {model: sage.pt, fanouts: [10, 25], batch_size: 70, epochs: 40, lr: 0.01, weight_decay: 0.0005, "
         "seed: 0}\noutput_dir: runs\n";
    std::ofstream s(dir / "train.sbatch");
    s << "#!/bin/bash\nexec " << DistgnnBin() << " launch " << dir / "job.yaml" << " --set train.epochs=" << epochs
      << "\n";
  }

  void Submit(const SlurmCluster& c) {
    std::string error;
    id = c.Submit({"--nodes=2", "--job-name=cora", "-D", dir.path(), "-o", Output(), dir / "train.sbatch"}, &error);
    INFO("sbatch: " << error);
    REQUIRE(!id.empty());
  }
  std::string Output() const { return dir / "launch.out"; }
  std::string Log() const { return ReadFile(Output()); }
  std::string Metrics() const { return dir / "runs/cora/metrics.jsonl"; }

  // Submits and returns once epochs are being written.
  void StartTraining(const SlurmCluster& c) {
    Submit(c);
    REQUIRE(WaitFor(120, [&] { return EpochLines(Metrics()) > 0 || Log().find("error:") != std::string::npos; }));
    INFO(Log());
    REQUIRE(EpochLines(Metrics()) > 0);
  }
};

bool NoDistgnnOn(const SlurmCluster& c, const std::vector<int>& hosts) {
  for (int h : hosts)
    if (!c.DistgnnPids(h).empty()) return false;
  return true;
}

// The first line of every role's log is the command the launcher ran.
std::vector<std::string> LaunchCommands(const SlurmJob& job) {
  std::vector<std::string> out;
  for (int m = 0; m < 2; ++m)
    for (const char* role : {"server-0", "trainer-0", "sampler-0", "sampler-1"}) {
      std::istringstream in(ReadFile(job.dir / ("runs/cora/logs/" + std::to_string(m) + "-" + role + ".log")));
      std::string first;
      std::getline(in, first);
      out.push_back(first);
    }
  return out;
}

// The launcher's failure line naming machine 1 (its address or its node).
bool NamesMachine1(const std::string& output, const SlurmCluster& c) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.find("FAILED") != std::string::npos && line.find("machine 1") != std::string::npos &&
        (line.find(c.addresses[1]) != std::string::npos || line.find(c.Node(1)) != std::string::npos))
      return true;
  return false;
}

}  // namespace

TEST_CASE("slurm: sbatch of distgnn launch with machines from slurm: Cora >= 0.78, every role an srun step, no ssh, no "
          "step left",
          "[multihost][slurm]") {
  SlurmCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("no Slurm cluster: " << c.skip_reason);
  SlurmJob job(40);
  job.Submit(c);
  std::string state;
  REQUIRE(WaitFor(240, [&] {
    state = c.JobState(job.id);
    return state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" && state != "COMPLETING";
  }));
  INFO(job.Log());
  CHECK(state == "COMPLETED");
  CHECK(FinalTestAcc(job.Metrics()) >= 0.78);
  // The machines are the allocation's nodes at their NodeAddr, each started by srun on its node.
  const std::vector<std::string> commands = LaunchCommands(job);
  for (size_t i = 0; i < commands.size(); ++i) {
    const int m = static_cast<int>(i / 4);
    INFO(commands[i]);
    CHECK(commands[i].rfind("# srun ", 0) == 0);
    CHECK(commands[i].find("--nodelist=" + c.Node(m)) != std::string::npos);
  }
  CHECK(job.Log().find("ssh") == std::string::npos);
  CHECK(ReadFile(job.dir / "runs/cora/logs/1-server-0.log").find(c.addresses[1]) != std::string::npos);
  CHECK(c.Steps(job.id).empty());
  CHECK(WaitFor(5, [&] { return NoDistgnnOn(c, {0, 1}); }));
}

TEST_CASE("slurm: scancel of a running distgnn job leaves no distgnn process on any host within peer_timeout + 5 s",
          "[multihost][slurm]") {
  SlurmCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("no Slurm cluster: " << c.skip_reason);
  SlurmJob job(1000);
  job.StartTraining(c);
  REQUIRE(!c.DistgnnPids(1).empty());
  const auto t0 = Clock::now();
  const std::string out = c.ClientOutput("scancel " + job.id);
  INFO("scancel: " << out);
  const bool gone = WaitFor(kPeerTimeout + 5, [&] { return NoDistgnnOn(c, {0, 1}); });
  INFO(job.Log());
  INFO("gone after " << Since(t0) << " s; left on host 0: " << c.DistgnnPids(0).size()
                     << ", host 1: " << c.DistgnnPids(1).size());
  CHECK(gone);
  CHECK(WaitFor(10, [&] { return c.Steps(job.id).empty(); }));
}

TEST_CASE("slurm: a node lost mid-run: launch names its machine within peer_timeout + 5 s and ends, leaving no "
          "distgnn process",
          "[multihost][slurm]") {
  SlurmCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("no Slurm cluster: " << c.skip_reason);
  SlurmJob job(1000);
  job.StartTraining(c);
  // A node that dies: its cable first (nothing it runs says goodbye), then every process on it, slurmd too.
  const auto t0 = Clock::now();
  REQUIRE(c.Do("cut", 1) == 0);
  REQUIRE(c.Do("crash", 1) == 0);
  const bool named = WaitFor(kPeerTimeout + 5, [&] { return NamesMachine1(job.Log(), c); });
  INFO("named after " << Since(t0) << " s");
  // Launch stops the rest (the lost node's srun clients at once) and exits: nothing of the job on host 0.
  const bool ended = WaitFor(30, [&] { return NoDistgnnOn(c, {0}); });
  INFO(job.Log());
  CHECK(named);
  CHECK(ended);
  CHECK(job.Log().find("machine 1 (" + c.addresses[1] + ") is unreachable") != std::string::npos);
  CHECK(NoDistgnnOn(c, {1}));
}
