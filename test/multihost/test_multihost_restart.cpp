// Automatic restart on a cluster in a box (2 hosts, test/support/netns_cluster.h):
// a Cora job with a persistent DistEmbedding, step checkpoints every 3 steps
// and `restart: {max: 2}` loses, mid-epoch, a trainer (kill -9), a server
// (kill -9), host 1's link for 5 s, or host 1 to a freeze past the peer
// timeout; each time the launcher relaunches it from the last complete
// checkpoint and it ends with trainer parameters and embedding rows
// bit-identical to the same job run without a failure (run once and shared
// by the four cases), at most 3 steps redone, no distgnn process left on
// either host.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "test/integration/cora_launch_job.h"
#include "test/integration/dist_job.h"
#include "test/support/netns_cluster.h"
#include "test/support/skip.h"

using namespace dg::test;

namespace {

namespace fs = std::filesystem;
constexpr double kPeerTimeout = 3;
constexpr int kServerPort = 7300, kTrainerPort = 7310, kRendezvousPort = 7320;

// Cora in 2 partitions, machine 0 local in host 0, machine 1 over ssh in host 1;
// batch 10: 7 steps per trainer per epoch, a step checkpoint every 3.
struct RestartJob {
  TempDir dir;
  RestartJob(const NetnsCluster& c, int epochs) {
    auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                         "--name", "cora", "--out", dir / "parts"},
                        120);
    REQUIRE(r.exit_code == 0);
    r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1449", "--hidden", "32", "--classes", "7",
                    "--layers", "2", "-o", dir / "sage.pt"},
                   120);
    REQUIRE(r.exit_code == 0);
    std::ofstream y(dir / "job.yaml");
    y << "job: cora\npartition: parts/cora.json\ntoken: \"multihost-test-token-0123456789abcdef\"\nmachines:\n"
      << "  - host: " << c.addresses[0] << "\n  - host: " << c.addresses[1] << "\n"
      << c.SshMachineYaml(1, c.addresses[1], dir / "ws1", DistgnnBin())
      << "ports: {server: " << kServerPort << ", trainer: " << kTrainerPort << ", rendezvous: " << kRendezvousPort
      << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: 1}\n"
      << "network: {peer_timeout_seconds: " << kPeerTimeout << ", heartbeat_seconds: 0.5}\n"
      << "train: {model: sage.pt, fanouts: [10, 25], batch_size: 10, epochs: " << epochs
      << ", lr: 0.01, weight_decay: 0.0005, seed: 0, checkpoint_every_steps: 3,"
      << " embedding: {dim: 16, optimizer: sparse_adam, lr: 0.05, persistent: true}}\n"
      << "restart: {max: 2, wait_seconds: 30}\noutput_dir: runs\n";
    y.close();
    Subprocess copy;
    copy.Start(c.InHost(0, {DistgnnBin(), "copy", dir / "job.yaml"}), dir / "copy.log");
    const int rc = copy.Wait(120);
    INFO(copy.Output());
    REQUIRE(rc == 0);
  }
  std::string run_dir() const { return dir / "runs/cora"; }
  // trainer 1 writes its summary into its run directory on host 1 (its workspace).
  std::string Trainer1Json() const {
    for (const auto& e : fs::recursive_directory_iterator(dir / "ws1"))
      if (e.path().filename() == "trainer-1.json") return ReadFile(e.path());
    return "";
  }
  // The persisted embedding rows of partition p (host 0: the job's parts/, host 1: its workspace).
  std::string Embedding(int p) const {
    for (const auto& e : fs::recursive_directory_iterator(dir / ""))
      if (e.path().string().find("part" + std::to_string(p) + "/tensors/embedding.npy") != std::string::npos &&
          (p == 0) == (e.path().string().find("/ws1/") == std::string::npos))
        return ReadFile(e.path());
    return "";
  }
};

std::vector<pid_t> DistgnnOn(const NetnsCluster& c, int h) {
  std::vector<pid_t> out;
  for (pid_t p : c.Pids(h)) {
    std::string cmd = ReadFile("/proc/" + std::to_string(p) + "/cmdline");
    if (cmd.rfind(DistgnnBin() + std::string(1, '\0'), 0) == 0) out.push_back(p);
  }
  return out;
}

struct Finished {
  int code = -1;
  std::string output, fingerprint, run_json;
};

// Launches the job in host 0; `fail` (if any) runs once step checkpoint 9
// (batch 2 of epoch 2) is complete. Waits for the launcher.
Finished Run(const NetnsCluster& c, const RestartJob& job, const std::function<void(const std::string& id)>& fail) {
  Subprocess launch;
  launch.Start(c.InHost(0, {DistgnnBin(), "launch", job.dir / "job.yaml"}), job.dir / "launch.log");
  if (fail) {
    std::string id;
    REQUIRE(WaitFor(60, [&] { return !(id = JobId(launch.Output())).empty(); }));
    INFO(launch.Output());
    REQUIRE(WaitFor(120, [&] { return fs::exists(job.run_dir() + "/checkpoints/step-9/manifest.json"); }));
    fail(id);
  }
  Finished f;
  f.code = launch.Wait(300);
  f.output = launch.Output();
  f.fingerprint = JsonField(ReadFile(job.run_dir() + "/trainer-0.json"), "param_fingerprint");
  f.run_json = ReadFile(job.run_dir() + "/run.json");
  return f;
}

// What the uninterrupted run ends with: trainer 0's parameter fingerprint and
// each partition's embedding file.
struct Reference {
  std::string fingerprint;
  std::string embedding[2];
};

// The uninterrupted run, made once per build of the binary and shared by the
// four cases (the job is deterministic, so each would make the same): the
// first case to take the lock runs it and keeps its results under the test
// artifacts; the others wait for the lock and read them.
Reference SharedReference(const NetnsCluster& c) {
  struct stat st {};
  REQUIRE(stat(DistgnnBin().c_str(), &st) == 0);
  const std::string root = ArtifactDir();
  fs::create_directories(root);
  const std::string dir = root + "/restart-reference-" + std::to_string(st.st_size) + "-" +
                          std::to_string(st.st_mtim.tv_sec) + "-" + std::to_string(st.st_mtim.tv_nsec);
  const int lock = open((root + "/restart-reference.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  REQUIRE(lock >= 0);
  REQUIRE(flock(lock, LOCK_EX) == 0);  // released when the process ends, whatever happens
  if (!fs::exists(dir + "/done")) {
    RestartJob ref_job(c, 6);
    const Finished ref = Run(c, ref_job, nullptr);
    INFO(ref.output);
    REQUIRE(ref.code == 0);
    REQUIRE(!ref.fingerprint.empty());
    fs::create_directories(dir);
    std::ofstream(dir + "/fingerprint") << ref.fingerprint;
    for (int p = 0; p < 2; ++p) std::ofstream(dir + "/embedding" + std::to_string(p), std::ios::binary) << ref_job.Embedding(p);
    std::ofstream(dir + "/done") << "1";
  }
  Reference ref;
  ref.fingerprint = ReadFile(dir + "/fingerprint");
  for (int p = 0; p < 2; ++p) ref.embedding[p] = ReadFile(dir + "/embedding" + std::to_string(p));
  close(lock);
  return ref;
}

// The uninterrupted run (shared), then the failing one; checks everything the issue asks.
void CheckRestart(const std::function<void(const NetnsCluster& c, const std::string& id)>& fail) {
  NetnsCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("no namespace cluster: " << c.skip_reason);
  const Reference ref = SharedReference(c);
  REQUIRE(!ref.fingerprint.empty());
  RestartJob job(c, 6);
  const Finished got = Run(c, job, [&](const std::string& id) { fail(c, id); });
  INFO(got.output);
  INFO(got.run_json);
  REQUIRE(got.code == 0);
  CHECK(got.output.find("launch: restart 1 of 2") != std::string::npos);
  CHECK(got.fingerprint == ref.fingerprint);
  CHECK(JsonField(job.Trainer1Json(), "param_fingerprint") == ref.fingerprint);
  for (int p = 0; p < 2; ++p) {
    INFO("partition " << p);
    const std::string e = job.Embedding(p);
    CHECK(!e.empty());
    CHECK(e == ref.embedding[p]);
  }
  const std::string redone = JsonField(got.run_json, "steps_redone");
  REQUIRE(!redone.empty());
  CHECK(std::stoll(redone) >= 0);
  CHECK(std::stoll(redone) <= 3);
  CHECK(WaitFor(10, [&] { return DistgnnOn(c, 0).empty() && DistgnnOn(c, 1).empty(); }));
}

}  // namespace

TEST_CASE("restart: trainer 1 killed -9 mid-epoch: the job ends bit-identical", "[multihost][restart]") {
  CheckRestart([](const NetnsCluster&, const std::string& id) {
    for (pid_t p : RoleProcesses(id, "trainer", 1)) kill(p, SIGKILL);
  });
}

TEST_CASE("restart: the server holding partition 1's DistEmbedding killed -9 mid-epoch: bit-identical",
          "[multihost][restart]") {
  CheckRestart([](const NetnsCluster&, const std::string& id) {
    for (pid_t p : RoleProcesses(id, "server", 1)) kill(p, SIGKILL);
  });
}

TEST_CASE("restart: host 1's cable pulled for 5 s and put back: bit-identical", "[multihost][restart]") {
  CheckRestart([](const NetnsCluster& c, const std::string&) {
    REQUIRE(c.Do("cut", 1) == 0);
    std::this_thread::sleep_for(std::chrono::seconds(5));
    REQUIRE(c.Do("restore", 1) == 0);
  });
}

TEST_CASE("restart: host 1 frozen past the peer timeout, then thawed: bit-identical", "[multihost][restart]") {
  CheckRestart([](const NetnsCluster& c, const std::string&) {
    REQUIRE(c.Do("freeze", 1) == 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(kPeerTimeout + 2));
    REQUIRE(c.Do("thaw", 1) == 0);
  });
}
