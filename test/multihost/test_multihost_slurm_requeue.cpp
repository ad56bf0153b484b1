// Preemption under a real Slurm (test/support/slurm_cluster.h): the signal
// Slurm sends before a time limit with `#SBATCH --signal=B:TERM@N` is SIGTERM
// to the batch shell, i.e. to `distgnn launch` (the script execs it);
// `scancel --batch --signal=TERM` sends exactly that at once. Every trainer
// finishes its step and writes the step checkpoint with the servers' part,
// `launch --requeue` requeues the job, and the requeued run (`--resume`)
// ends with the parameters and DistEmbedding tables of the same job run
// without a stop, bit for bit.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "test/integration/cora_launch_job.h"
#include "test/integration/dist_job.h"
#include "test/support/skip.h"
#include "test/support/slurm_cluster.h"

using namespace dg::test;

namespace {

namespace fs = std::filesystem;

// Cora in 2 parts with a persistent DistEmbedding on the servers, batch 10
// (7 steps an epoch per trainer), 30 epochs (long enough to be stopped), one
// torch thread per trainer (as many on two namespace hosts as on one
// 127.0.0.1, so the sums are the same bits); `machines` is the YAML's
// machines: value. The YAML is at dir/`yaml` and names its files relative to
// itself, the partition, model and runs being in dir.
void PrepareEmbeddingJob(const TempDir& dir, const std::string& yaml, const std::string& machines, int port_base) {
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                       "--name", "cora", "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1449", "--hidden", "32", "--classes", "7",
                  "--layers", "2", "-o", dir / "sage.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const fs::path yaml_path = fs::path(dir.path()) / yaml;
  fs::create_directories(yaml_path.parent_path());
  std::string up;  // from the YAML's folder back to dir
  for (const auto& part : fs::path(yaml).parent_path()) up += part.empty() ? "" : "../";
  std::ofstream y(yaml_path);
  y << "job: cora\npartition: " << up << "parts/cora.json\nmachines: " << machines << "\n"
    << "ports: {server: " << port_base << ", trainer: " << port_base + 10 << ", rendezvous: " << port_base + 20
    << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: 1}\n"
    << "network: {peer_timeout_seconds: 3, heartbeat_seconds: 1}\n"
    << "train: {model: " << up << "sage.pt, fanouts: [10, 25], batch_size: 10, epochs: 30, lr: 0.01, "
    << "weight_decay: 0.0005, seed: 0, intra_op_threads: 1, "
    << "embedding: {dim: 16, optimizer: sparse_adam, lr: 0.05, persistent: true}}\n"
    << "output_dir: " << up << "runs\n";
}

std::string Table(const TempDir& dir, int part) {
  return ReadFile(dir / ("parts/part" + std::to_string(part) + "/tensors/embedding.npy"));
}

}  // namespace

TEST_CASE("slurm: the time-limit signal to launch mid-epoch: every trainer checkpoints, launch --requeue requeues, "
          "the requeued job resumes and ends bit-identical",
          "[multihost][slurm][preemption]") {
  SlurmCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("no Slurm cluster: " << c.skip_reason);
  // The same job run through without a stop, on 127.0.0.1.
  TempDir ref;
  PrepareEmbeddingJob(ref, "job.yaml", "[{host: 127.0.0.1}, {host: 127.0.0.1}]", 7500);
  auto full = RunDistgnn({"launch", ref / "job.yaml"}, 300);
  INFO(full.output);
  REQUIRE(full.exit_code == 0);

  // The shipped batch script as it is (`exec distgnn launch config/examples/slurm/job.yaml
  // --resume --requeue`, its #SBATCH lines), run from a folder laid out as the repository.
  TempDir dir;
  PrepareEmbeddingJob(dir, "config/examples/slurm/job.yaml", "{from: slurm}", 7400);
  fs::copy_file(SourceDir() + "/config/examples/slurm/train.sbatch", dir / "train.sbatch");
  setenv("DISTGNN", DistgnnBin().c_str(), 1);  // sbatch passes the environment on
  std::string error;
  const std::string id =
      c.Submit({"--open-mode=append", "-D", dir.path(), "-o", dir / "launch.out", dir / "train.sbatch"}, &error);
  INFO("sbatch: " << error);
  REQUIRE(!id.empty());
  const std::string metrics = dir / "runs/cora/metrics.jsonl";
  auto log = [&] { return ReadFile(dir / "launch.out"); };
  // Mid-run: after the first epoch line, the signal Slurm sends before the time limit.
  REQUIRE(WaitFor(120, [&] { return EpochLines(metrics) > 0 || log().find("error:") != std::string::npos; }));
  REQUIRE(EpochLines(metrics) > 0);
  c.ClientOutput("scancel --batch --signal=TERM " + id);
  REQUIRE(WaitFor(60, [&] { return log().find("requeueing Slurm job " + id) != std::string::npos; }));
  // Slurm holds a requeued job back until the old run's credentials expire
  // (slurm-cluster.sh sets cred_expire=15); starting it earlier, the node
  // refuses the batch script ("Job credential revoked") and the job FAILs.
  std::string state;
  REQUIRE(WaitFor(240, [&] {
    state = c.JobState(id);
    return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" || state == "TIMEOUT";
  }));
  const std::string out = log();
  INFO(out);
  INFO("slurm: " << c.Diagnosis(id));
  CHECK(state == "COMPLETED");
  CHECK(out.find("launch: preempted: SIGTERM: stopped after ") != std::string::npos);
  const std::string trainer0 = ReadFile(dir / "runs/cora/logs/0-trainer-0.log");
  INFO(trainer0);
  CHECK(trainer0.find("resuming ") != std::string::npos);  // the requeued run's trainer 0
  CHECK(ReadSummary(dir / "runs/cora", 0).fingerprint == ReadSummary(ref / "runs/cora", 0).fingerprint);
  CHECK(ReadSummary(dir / "runs/cora", 1).fingerprint == ReadSummary(ref / "runs/cora", 0).fingerprint);
  for (int p = 0; p < 2; ++p) CHECK(Table(dir, p) == Table(ref, p));
  CHECK(c.Steps(id).empty());
}
