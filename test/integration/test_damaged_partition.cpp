// Damaged partition files, as copies, rsyncs and old disks make them: each is
// refused by the real servers of `distgnn launch` before they listen, in one
// line naming the file, the entry and the bound; launch ends within seconds,
// before any trainer starts, with nothing left running and no process killed
// by a signal. `distgnn partition verify` names the same file and entry, and
// catches what only checksums can (a changed feature value).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <functional>

#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "test/integration/cora_launch_job.h"

using namespace dg;
using namespace dg::test;

namespace {

// Rewrites an .npy file through fn (in memory), keeping its dtype and shape unless fn changes them.
void EditNpy(const std::string& path, const std::function<void(Array*)>& fn) {
  auto a = NpyRead(path);
  REQUIRE(a.ok());
  Array copy = std::move(*a);
  fn(&copy);
  REQUIRE(NpyWrite(path, copy).ok());
}

PartitionConfig Config(const TempDir& dir) {
  auto c = LoadPartitionConfig(dir / "parts/cora.json");
  REQUIRE(c.ok());
  return *c;
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Launches the job; the refusal must be in the output (launch shows the failed
// server's last log lines) and in that server's log, exactly once, on one line.
// machine -1: both servers refuse (refusals[m] is machine m's line); launch names the first.
void ExpectRefusedAtStart(const TempDir& dir, int machine, std::string refusal,
                          const std::vector<std::string>& extra = {}, const std::vector<std::string>& refusals = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> args = {"launch", dir / "job.yaml", "--grace", "2"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = RunDistgnn(args, 120);
  const double took = Since(t0);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  if (machine < 0) {  // either server may be the first to refuse: take the one launch names
    machine = r.output.find("[0/server/0] (server 0 of machine 0") != std::string::npos &&
                      r.output.find("FAILED: [0/server/0]") != std::string::npos
                  ? 0
                  : 1;
    refusal = refusals[machine];
  }
  CHECK(took < 30);  // a couple of seconds alone; generous for a loaded machine
  CHECK(std::regex_search(r.output, std::regex("\\[" + std::to_string(machine) +
                                               "/server/0\\][^\\n]*exited with code 1")));
  CHECK(r.output.find(refusal) != std::string::npos);
  const std::string log = ReadFile(dir / ("runs/cora/logs/" + std::to_string(machine) + "-server-0.log"));
  INFO(log);
  const size_t at = log.find(refusal);
  REQUIRE(at != std::string::npos);
  CHECK(log.find(refusal, at + 1) == std::string::npos);  // said once
  CHECK(log.find("serving partition") == std::string::npos);  // it never listened
  // Before any trainer started; nothing left; no process died of a signal.
  for (const char* role : {"[0/trainer/", "[1/trainer/", "[0/sampler/", "[1/sampler/"}) CHECK(r.output.find(role) == std::string::npos);
  CHECK(r.output.find("killed by signal") == std::string::npos);
  CHECK(r.output.find("SIGKILL") == std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(dir / "runs/cora/logs")) {
    INFO(e.path());
    CHECK(ReadFile(e.path()).find("signal") == std::string::npos);
  }
  const std::string id = JobId(r.output);
  REQUIRE(!id.empty());
  CHECK(WaitFor(5, [&] { return FindProcesses("--job-id " + id).empty(); }));
}

RunResult Verify(const TempDir& dir, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"partition", "verify", dir / "parts/cora.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunDistgnn(args, 120);
}

void ExpectVerifyRefuses(const TempDir& dir, const std::string& refusal) {
  auto v = Verify(dir);
  INFO(v.output);
  CHECK(v.exit_code == 1);
  CHECK(v.output.find(refusal) != std::string::npos);
  CHECK(std::count(v.output.begin(), v.output.end(), '\n') == 1);  // one line
}

}  // namespace

TEST_CASE("a fresh partition verifies: every file's checksum, every part's structure", "[partition][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const PartitionConfig c = Config(dir);
  CHECK(c.checksums.count("part0/indices.npy") == 1);
  CHECK(c.checksums.count("part1/node_data/features.npy") == 1);
  CHECK(c.checksums.count("orig_nids.npy") == 1);
  CHECK(c.checksums.count("cora.json") == 0);  // not itself
  auto v = Verify(dir);
  INFO(v.output);
  CHECK(v.exit_code == 0);
  CHECK(v.output.find("cora.json: 2 parts: structure OK") != std::string::npos);
  CHECK(v.output.find(std::to_string(c.checksums.size()) + " files match their SHA-256 checksums") !=
        std::string::npos);
  CHECK(std::count(v.output.begin(), v.output.end(), '\n') == 1);
  v = Verify(dir, {"--part", "1"});
  INFO(v.output);
  CHECK(v.exit_code == 0);
  CHECK(v.output.find("part 1: structure OK") != std::string::npos);
  v = Verify(dir, {"--part", "2"});
  CHECK(v.exit_code == 1);
  CHECK(v.output.find("partition 2 does not exist") != std::string::npos);
}

TEST_CASE("a source id past the node count is refused at server start, naming file and entry",
          "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  EditNpy(dir / "parts/part1/indices.npy", [](Array* a) { a->as<int64_t>()[1791] = 1000000000000; });
  const std::string refusal = "parts/part1/indices.npy: entry 1791 is 1000000000000, outside [0, 2708)";
  ExpectRefusedAtStart(dir, 1, refusal);
  ExpectVerifyRefuses(dir, refusal);
  auto v = Verify(dir, {"--part", "0"});  // the other part is fine
  CHECK(v.exit_code == 0);
}

TEST_CASE("a negative source id is refused at server start", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  EditNpy(dir / "parts/part0/indices.npy", [](Array* a) { a->as<int64_t>()[5] = -3; });
  ExpectRefusedAtStart(dir, 0, "parts/part0/indices.npy: entry 5 is -3, outside [0, 2708)");
}

TEST_CASE("train_nids.npy listing a node another part owns is refused at server start", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const PartitionConfig c = Config(dir);
  const int64_t last = c.parts[0].num_train - 1, foreign = c.node_map[1] + 7;  // still sorted: only ownership breaks
  EditNpy(dir / "parts/part0/train_nids.npy", [&](Array* a) { a->as<int64_t>()[last] = foreign; });
  ExpectRefusedAtStart(dir, 0, "parts/part0/train_nids.npy: entry " + std::to_string(last) + " is " +
                                   std::to_string(foreign) + ", outside [0, " + std::to_string(c.node_map[1]) +
                                   "), the nodes part 0 owns");
}

TEST_CASE("an unsorted train_nids.npy is refused at server start", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  int64_t second = 0;
  EditNpy(dir / "parts/part1/train_nids.npy", [&](Array* a) {
    std::swap(a->as<int64_t>()[3], a->as<int64_t>()[4]);
    second = a->as<int64_t>()[4];
  });
  ExpectRefusedAtStart(dir, 1, "parts/part1/train_nids.npy: entry 4 is " + std::to_string(second) +
                                   ", not above entry 3");
}

TEST_CASE("a non-monotone indptr.npy is refused at server start", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  int64_t before = 0;
  EditNpy(dir / "parts/part1/indptr.npy", [&](Array* a) {
    int64_t* ip = a->as<int64_t>();
    before = ip[99];
    ip[100] = ip[99] - 1;
  });
  REQUIRE(before > 0);
  ExpectRefusedAtStart(dir, 1, "parts/part1/indptr.npy: entry 100 is " + std::to_string(before - 1) +
                                   ", below entry 99 (" + std::to_string(before) + ")");
}

TEST_CASE("a truncated features.npy is refused at server start", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const std::string f = dir / "parts/part0/node_data/features.npy";
  const auto size = std::filesystem::file_size(f);
  std::filesystem::resize_file(f, size / 2);
  ExpectRefusedAtStart(dir, 0, "parts/part0/node_data/features.npy: truncated .npy data: expected");
}

TEST_CASE("indices.npy of the wrong dtype is refused at server start", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const std::string f = dir / "parts/part1/indices.npy";
  auto a = NpyRead(f);
  REQUIRE(a.ok());
  Array narrow = Array::Zeros(DType::kInt32, a->shape);
  for (int64_t i = 0; i < a->numel(); ++i) narrow.as<int32_t>()[i] = static_cast<int32_t>(a->as<int64_t>()[i]);
  REQUIRE(NpyWrite(f, narrow).ok());
  ExpectRefusedAtStart(dir, 1, "parts/part1/indices.npy: dtype int32, the partition config says int64");
}

TEST_CASE("swapped part folders (part0 <-> part1) are refused at server start", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const PartitionConfig c = Config(dir);
  REQUIRE(c.parts[0].num_nodes != c.parts[1].num_nodes);
  std::filesystem::rename(dir / "parts/part0", dir / "parts/swap");
  std::filesystem::rename(dir / "parts/part1", dir / "parts/part0");
  std::filesystem::rename(dir / "parts/swap", dir / "parts/part1");
  auto shape = [&](int p, int q) {  // part p's folder holds part q's files
    return "parts/part" + std::to_string(p) + "/indptr.npy: shape [" + std::to_string(c.parts[q].num_nodes + 1) +
           "], the partition config says [" + std::to_string(c.parts[p].num_nodes + 1) + "]";
  };
  ExpectRefusedAtStart(dir, -1, "", {}, {shape(0, 1), shape(1, 0)});
}

TEST_CASE("a part copied from another partition is refused: node count at start and in verify",
          "[launch][verify][cora]") {
  TempDir dir, other;
  PrepareCoraLaunch(dir);
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "3", "--method", "metis",
                       "--name", "cora", "--out", other / "parts"},
                      120);
  REQUIRE(r.exit_code == 0);
  auto o = LoadPartitionConfig(other / "parts/cora.json");
  REQUIRE(o.ok());
  const PartitionConfig c = Config(dir);
  REQUIRE(o->parts[1].num_nodes != c.parts[1].num_nodes);
  std::filesystem::remove_all(dir / "parts/part1");
  std::filesystem::copy(other / "parts/part1", dir / "parts/part1", std::filesystem::copy_options::recursive);
  const std::string refusal = "parts/part1/indptr.npy: shape [" + std::to_string(o->parts[1].num_nodes + 1) +
                              "], the partition config says [" + std::to_string(c.parts[1].num_nodes + 1) + "]";
  ExpectRefusedAtStart(dir, 1, refusal);
  ExpectVerifyRefuses(dir, refusal);
}

TEST_CASE("a part copied from a same-shaped partition (other features) is caught by its checksums only",
          "[launch][verify][cora]") {
  TempDir dir, other;
  PrepareCoraLaunch(dir);
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                       "--name", "cora", "--normalize-features", "--out", other / "parts"},
                      120);
  REQUIRE(r.exit_code == 0);
  const PartitionConfig c = Config(dir);
  std::filesystem::remove_all(dir / "parts/part1");
  std::filesystem::copy(other / "parts/part1", dir / "parts/part1", std::filesystem::copy_options::recursive);
  const std::string f = dir / "parts/part1/node_data/features.npy";
  ExpectVerifyRefuses(dir, f + ": SHA-256 ");
  ExpectVerifyRefuses(dir, ", " + c.path + " records " + c.checksums.at("part1/node_data/features.npy") +
                               ": the file changed after it was partitioned");
  auto v = Verify(dir, {"--part", "1"});
  CHECK(v.exit_code == 1);
  CHECK(v.output.find(f + ": SHA-256 ") != std::string::npos);
  v = Verify(dir, {"--part", "0"});
  CHECK(v.exit_code == 0);
}

TEST_CASE("a changed feature value passes the structure check but not the checksums", "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const PartitionConfig c = Config(dir);
  const std::string f = dir / "parts/part1/node_data/features.npy";
  EditNpy(f, [](Array* a) { a->as<float>()[12345] += 1.0f; });
  ExpectVerifyRefuses(dir, f + ": SHA-256 ");
  ExpectVerifyRefuses(dir, ", " + c.path + " records " + c.checksums.at("part1/node_data/features.npy") +
                               ": the file changed after it was partitioned");
  auto v = Verify(dir, {"--part", "0"});
  CHECK(v.exit_code == 0);
  // Servers asked to (YAML verify_checksums, or --verify-checksums) refuse it.
  ExpectRefusedAtStart(dir, 1, f + ": SHA-256 ", {"--set", "verify_checksums=true"});
  const int port = FreePort();
  auto s = RunDistgnn({"--role", "server", "--partition-config", c.path, "--part", "1", "--host", "127.0.0.1", "--port",
                       std::to_string(port), "--verify-checksums"},
                      60);
  INFO(s.output);
  CHECK(s.exit_code == 1);
  CHECK(s.output.find(f + ": SHA-256 ") != std::string::npos);
  CHECK(s.output.find("serving partition") == std::string::npos);
}

TEST_CASE("a partition config without checksums (older output) still serves and verifies its structure",
          "[launch][verify][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  PartitionConfig c = Config(dir);
  c.checksums.clear();
  std::ofstream(c.path, std::ios::trunc) << PartitionConfigToJson(c);
  auto v = Verify(dir);
  INFO(v.output);
  CHECK(v.exit_code == 0);
  CHECK(v.output.find("checksums absent") != std::string::npos);
  auto r = RunDistgnn({"launch", dir / "job.yaml", "--set", "train.epochs=1"}, 300);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(ReadFile(dir / "runs/cora/logs/1-server-0.log").find("records no checksums") != std::string::npos);
}
