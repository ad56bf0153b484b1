// distgnn-mpi-partition across the hosts of a cluster in a box
// (test/support/netns_cluster.h): mpirun in host 0's namespace starts one rank
// per host over ssh (OpenMPI's plm_rsh_agent with the cluster's key) and the
// ranks talk TCP on the hosts' addresses only. The output of P = K and P < K
// runs passes the partition checks against Cora in memory; a rank killed on
// host 1 ends the run within a bound, the message names rank 1, and no
// output, staging directory or rank is left on any host. A pulled cable
// (host 1's link down, its rank alive but unreachable) ends the run on host 0
// through the ranks' progress deadline (runtime/watchdog.h), names the stage,
// and leaves nothing once the link is back up.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/storage/dataset.h"
#include "test/partition/partition_checks.h"
#include "test/support/netns_cluster.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

std::string MpiBin() { return (fs::path(DistgnnBin()).parent_path() / "distgnn-mpi-partition").string(); }

// mpirun in host 0 with one rank per host of `hosts` (slots repeat a host).
std::vector<std::string> MpirunOn(const NetnsCluster& c, const std::vector<int>& hosts) {
  std::string list;
  for (int h : hosts) list += (list.empty() ? "" : ",") + c.addresses[h];
  const std::string subnet = c.addresses[0].substr(0, c.addresses[0].rfind('.')) + ".0/24";
  return c.InHost(0, {"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(hosts.size()),
                      "--host", list, "--mca", "plm_rsh_agent",
                      "ssh -i " + c.SshKey() +
                          " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
                      "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include", subnet, "--mca",
                      "oob_tcp_if_include", subnet, MpiBin()});
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Pids of distgnn-mpi-partition ranks in host h.
std::vector<pid_t> RanksOn(const NetnsCluster& c, int h) {
  std::vector<pid_t> out;
  for (pid_t p : c.Pids(h))
    if (ReadAll("/proc/" + std::to_string(p) + "/cmdline").rfind(MpiBin() + std::string(1, '\0'), 0) == 0)
      out.push_back(p);
  return out;
}

// A random 400k-node, 6M-edge graph in dir/ds: long enough to be cut off mid-run.
void WriteBigGraph(const TempDir& dir) {
  fs::create_directories(dir / "ds");
  const int64_t n = 400000, m = 6000000;
  Array src = Array::Zeros(DType::kInt64, {m}), dst = Array::Zeros(DType::kInt64, {m});
  uint64_t x = 88172645463325252ull;
  for (int64_t e = 0; e < m; ++e) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    src.as<int64_t>()[e] = static_cast<int64_t>(x % n);
    dst.as<int64_t>()[e] = static_cast<int64_t>((x >> 20) % n);
  }
  REQUIRE(NpyWrite(dir / "ds/src.npy", src).ok());
  REQUIRE(NpyWrite(dir / "ds/dst.npy", dst).ok());
}

// Waits until the staging directory of `name` is in dir and host h runs a rank; that rank's pids.
std::vector<pid_t> WaitForRanks(const NetnsCluster& c, const TempDir& dir, Subprocess* run, const std::string& name,
                                int h) {
  std::vector<pid_t> ranks;
  const auto t0 = std::chrono::steady_clock::now();
  while (ranks.empty() && run->running() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bool staged = false;
    for (const auto& e : fs::directory_iterator(dir.path()))
      staged = staged || e.path().filename().string().rfind("." + name + ".tmp-mpi-", 0) == 0;
    if (staged) ranks = RanksOn(c, h);
  }
  return ranks;
}

// Live processes of the run in host h: ranks and OpenMPI's daemons.
std::vector<pid_t> RunProcessesOn(const NetnsCluster& c, int h) {
  std::vector<pid_t> out = RanksOn(c, h);
  for (pid_t p : c.Pids(h))
    if (ReadAll("/proc/" + std::to_string(p) + "/cmdline").find("orted") != std::string::npos) out.push_back(p);
  return out;
}

test::ReferenceGraph CoraUndirected() {
  EdgeListOptions eo;
  eo.undirected = true;
  auto ds = LoadDataset(CoraDir(), eo);
  REQUIRE(ds.ok());
  test::ReferenceGraph g;
  g.num_nodes = ds->num_nodes;
  g.src = ds->edges.src;
  g.dst = ds->edges.dst;
  g.node_data = ds->node_data;
  return g;
}

void PartitionCoraOn(const NetnsCluster& c, const std::vector<int>& hosts, int k) {
  if (!fs::exists(MpiBin())) DG_SKIP_OR_FAIL(MpiBin() + " missing");
  TempDir dir;
  std::vector<std::string> argv = MpirunOn(c, hosts);
  for (const std::string& a : {std::string("--dataset"), CoraDir(), std::string("--undirected"),
                               std::string("--num-parts"), std::to_string(k), std::string("--name"),
                               std::string("cora"), std::string("--out"), dir / "parts"})
    argv.push_back(a);
  Subprocess run;
  run.Start(argv, dir / "log");
  const int rc = run.Wait(180);
  INFO(run.Output());
  REQUIRE(rc == 0);
  CHECK(run.Output().find("partition (MPI, " + std::to_string(hosts.size()) + " ranks)") != std::string::npos);
  test::CheckPartition(dir / "parts/cora.json", CoraUndirected(), k);
  for (int h = 0; h < static_cast<int>(c.addresses.size()); ++h) CHECK(RanksOn(c, h).empty());
}

}  // namespace

TEST_CASE("MPI partition over ssh on 2 hosts: P = K = 2 and P = 2 < K = 3", "[multihost][mpi][partition]") {
  NetnsCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("netns cluster: " + c.skip_reason);
  PartitionCoraOn(c, {0, 1}, 2);
  PartitionCoraOn(c, {0, 1}, 3);
}

TEST_CASE("MPI partition over ssh on 3 hosts: P = K = 3", "[multihost][mpi][partition]") {
  NetnsCluster c(3);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("netns cluster: " + c.skip_reason);
  PartitionCoraOn(c, {0, 1, 2}, 3);
}

TEST_CASE("MPI partition: a rank killed on host 1 ends the run and leaves nothing on any host",
          "[multihost][mpi][partition]") {
  NetnsCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("netns cluster: " + c.skip_reason);
  if (!fs::exists(MpiBin())) DG_SKIP_OR_FAIL(MpiBin() + " missing");
  TempDir dir;
  WriteBigGraph(dir);  // long enough to be killed mid-run
  std::vector<std::string> argv = MpirunOn(c, {0, 1});
  for (const std::string& a : {std::string("--dataset"), dir / "ds", std::string("--num-parts"), std::string("2"),
                               std::string("--name"), std::string("big"), std::string("--out"), dir / "big",
                               std::string("--batch-edges"), std::string("100000")})
    argv.push_back(a);
  Subprocess run;
  run.Start(argv, dir / "log");
  std::vector<pid_t> victims;
  bool staged = false;
  const auto t0 = std::chrono::steady_clock::now();
  while (victims.empty() && run.running() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    staged = false;
    for (const auto& e : fs::directory_iterator(dir.path()))
      staged = staged || e.path().filename().string().rfind(".big.tmp-mpi-", 0) == 0;
    if (staged) victims = RanksOn(c, 1);
  }
  INFO("staging directory seen: " << staged << "; mpirun running: " << run.running() << "\n" << run.Output());
  REQUIRE(victims.size() == 1);
  ::kill(victims[0], SIGKILL);
  const int rc = run.Wait(30);
  INFO(run.Output());
  REQUIRE(rc != -1);  // ended within 30 s
  CHECK(rc != 0);
  CHECK(run.Output().find("rank 1") != std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string f = e.path().filename().string();
    CHECK(f.find("big") == std::string::npos);  // no output, no staging directory
    CHECK(f.find(".distgnn-spill") == std::string::npos);
  }
  CHECK(RanksOn(c, 0).empty());
  CHECK(RanksOn(c, 1).empty());
}

TEST_CASE("MPI partition: host 1 cut off mid-run ends the run on host 0 and leaves nothing once it is back",
          "[multihost][mpi][partition]") {
  NetnsCluster c(2);
  if (!c.skip_reason.empty()) DG_SKIP_OR_FAIL("netns cluster: " + c.skip_reason);
  if (!fs::exists(MpiBin())) DG_SKIP_OR_FAIL(MpiBin() + " missing");
  TempDir dir;
  WriteBigGraph(dir);
  std::vector<std::string> argv = MpirunOn(c, {0, 1});
  // mpirun's --timeout only backs the test up: the ranks' deadline ends the run.
  argv.insert(std::find(argv.begin(), argv.end(), "mpirun") + 1, {"--timeout", "240"});
  for (const std::string& a : {std::string("--dataset"), dir / "ds", std::string("--num-parts"), std::string("2"),
                               std::string("--method"), std::string("random"), std::string("--name"),
                               std::string("big"), std::string("--out"), dir / "big", std::string("--batch-edges"),
                               std::string("100000"), std::string("--progress-timeout"), std::string("20")})
    argv.push_back(a);
  Subprocess run;
  run.Start(argv, dir / "log");
  const std::vector<pid_t> cut_off = WaitForRanks(c, dir, &run, "big", 1);
  INFO("mpirun running: " << run.running() << "\n" << run.Output());
  REQUIRE(cut_off.size() == 1);
  REQUIRE(c.Do("cut", 1) == 0);
  const auto cut = std::chrono::steady_clock::now();
  // Host 0: its rank ends within the deadline and the abort's grace, naming the stage.
  while (!RanksOn(c, 0).empty() && std::chrono::steady_clock::now() - cut < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double rank_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - cut).count();
  CHECK(RanksOn(c, 0).empty());
  CHECK(rank_s < 45);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CHECK(run.Output().find("no progress for 20 s in stage") != std::string::npos);
  // mpirun waits on host 1's unreachable daemon to confirm the abort (docs/partitioning.md, "Failures").
  const bool mpirun_waits = run.running();
  // The link back: mpirun, host 1's rank (its own deadline) and daemon all end.
  REQUIRE(c.Do("restore", 1) == 0);
  const auto back = std::chrono::steady_clock::now();
  const int rc = run.Wait(60);
  INFO(run.Output());
  REQUIRE(rc != -1);
  CHECK(rc != 0);
  while ((!RunProcessesOn(c, 0).empty() || !RunProcessesOn(c, 1).empty()) &&
         std::chrono::steady_clock::now() - back < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double back_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - back).count();
  WARN("cut off: host 0's rank ended " << rank_s << " s after the cut; mpirun "
                                        << (mpirun_waits ? "waited for the link" : "had ended") << "; everything ended "
                                        << back_s << " s after the link was back");
  CHECK(RunProcessesOn(c, 0).empty());
  CHECK(RunProcessesOn(c, 1).empty());
  CHECK(!test::ProcessAlive(cut_off[0]));
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string f = e.path().filename().string();
    CHECK(f.find("big") == std::string::npos);  // no output, no staging directory
    CHECK(f.find(".distgnn-spill") == std::string::npos);
  }
}
