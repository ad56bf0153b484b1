// `distgnn launch` with the real roles: bundled Cora, 2 machines on 127.0.0.1.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <functional>
#include <regex>
#include <sstream>

#include "test/integration/test_launch_support.h"

using namespace dg::test;

namespace {

// A 2-part Cora job with a SAGE model; "" or why it could not be prepared.
std::string PrepareCora(const TempDir& dir, int base_port) {
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                       "--name", "cora", "--out", dir / "parts"},
                      120);
  if (r.exit_code != 0) return "partition failed: " + r.output;
  r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "128", "--classes", "7",
                  "--layers", "2", "-o", dir / "sage.pt"},
                 120);
  if (r.exit_code != 0) return "model export failed: " + r.output;
  std::ofstream y(dir / "job.yaml");
  y << "job: cora\npartition: parts/cora.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base_port << ", trainer: " << base_port + 2 << ", rendezvous: " << base_port + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 2}\n"
    << "train: {model: sage.pt, fanouts: [10, 25], batch_size: 70, epochs: 60, lr: 0.01, weight_decay: 0.0005, "
       "seed: 0}\noutput_dir: runs\n";
  return "";
}

}  // namespace

TEST_CASE("launch trains bundled Cora on 2 machines of 127.0.0.1 to >= 0.78", "[launch][cora]") {
  TempDir dir;
  REQUIRE(PrepareCora(dir, FreePortRange(5)) == "");
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml"}, dir / "launch.log");
  int rc = launch.Wait(300);
  std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  std::string metrics = ReadFile(dir / "runs/cora/metrics.jsonl");
  std::smatch m;
  REQUIRE(std::regex_search(metrics, m, std::regex("\"final\": *true.*\"test_acc\": *([0-9.eE+-]+)")));
  CHECK(std::stod(m[1]) >= 0.78);
  for (const char* f : {"0-server-0.log", "1-server-0.log", "0-trainer-0.log", "1-trainer-0.log", "0-sampler-1.log"})
    CHECK(std::filesystem::exists(dir / ("runs/cora/logs/" + std::string(f))));
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
}

TEST_CASE("killing one real trainer mid-run: launch names it within 15 s and leaves nothing", "[launch][cora]") {
  TempDir dir;
  REQUIRE(PrepareCora(dir, FreePortRange(5)) == "");
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "train.epochs=200"}, dir / "launch.log");
  std::string id;
  REQUIRE(WaitFor(60, [&] { return !(id = JobId(launch.Output())).empty(); }));
  std::vector<pid_t> trainer;
  REQUIRE(WaitFor(60, [&] {
    trainer = FindProcesses("--role trainer --config " + dir / "job.yaml" + " --machine 1 --index 0 --job-id " + id);
    return !trainer.empty();
  }));
  // Training runs: trainer 0 has written the metrics of a finished epoch.
  REQUIRE(WaitFor(120, [&] { return ReadFile(dir / "runs/cora/metrics.jsonl").find("\"epoch\"") != std::string::npos; }));
  auto t0 = std::chrono::steady_clock::now();
  kill(trainer[0], SIGKILL);
  int rc = launch.Wait(30);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(launch.Output());
  CHECK(rc != 0);
  CHECK(rc != -1);
  CHECK(took < 15);
  CHECK(launch.Output().find("[1/trainer/1]") != std::string::npos);
  CHECK(WaitFor(5, [&] { return FindProcesses("--job-id " + id).empty(); }));
}
