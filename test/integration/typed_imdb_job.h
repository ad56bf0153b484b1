// A typed job on bundled IMDB for the launch tests: the partition (2 parts,
// --undirected) and an RGCN export, a job YAML with 2 machines on 127.0.0.1,
// a launch and what it wrote (each epoch's loss, the final test accuracy,
// trainer 0's log and the bytes it received by message type).
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "test/integration/cora_launch_job.h"

namespace dg::test {

// parts/imdb.json and rgcn.pt (--hidden 64 --seed 0 plus `export_flags`) under dir.
inline void PrepareTypedImdb(const TempDir& dir, const std::vector<std::string>& export_flags) {
  auto r = RunDistgnn({"partition", "--dataset", SourceDir() + "/data/imdb-hetero", "--undirected", "--num-parts",
                       "2", "--name", "imdb", "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> args{"model", "export", "--arch", "rgcn", "--partition-config", dir / "parts/imdb.json",
                                "--hidden", "64", "--seed", "0", "-o", dir / "rgcn.pt"};
  args.insert(args.end(), export_flags.begin(), export_flags.end());
  r = RunDistgnn(args, 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

// dir/NAME.yaml: RGCN, fanouts [10, 10], batch 64, lr 0.005, seed 0; `train_extra`
// is appended inside the train map (", key: value, ...").
inline void WriteTypedImdbJob(const TempDir& dir, const std::string& name, int samplers_per_trainer, int epochs,
                              const std::string& train_extra) {
  const int base = FreePortRange(5);
  std::ofstream y(dir / (name + ".yaml"));
  y << "job: " << name << "\npartition: parts/imdb.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers_per_trainer << "}\n"
    << "train: {model: rgcn.pt, fanouts: [10, 10], batch_size: 64, epochs: " << epochs
    << ", lr: 0.005, seed: 0, intra_op_threads: 1" << train_extra << "}\noutput_dir: runs\n";
}

struct TypedRun {
  std::vector<double> loss;  // per epoch
  double test_acc = 0;
  std::string log;  // trainer 0's
};

// Launches dir/NAME.yaml; every process of the job is gone when it returns.
inline TypedRun LaunchTypedImdb(const TempDir& dir, const std::string& name) {
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / (name + ".yaml")}, dir / (name + ".log"));
  const int rc = launch.Wait(300);
  const std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
  TypedRun run;
  const std::string metrics_path = dir / ("runs/" + name + "/metrics.jsonl");
  const std::string metrics = ReadFile(metrics_path);
  const std::regex loss("\"epoch\": *[0-9]+, \"loss\": *([0-9.eE+-]+)");
  for (auto it = std::sregex_iterator(metrics.begin(), metrics.end(), loss); it != std::sregex_iterator(); ++it)
    run.loss.push_back(std::stod((*it)[1]));
  run.test_acc = FinalTestAcc(metrics_path);
  run.log = ReadFile(dir / ("runs/" + name + "/logs/0-trainer-0.log"));
  return run;
}

// Bytes trainer 0 received in messages of `type` (its "bytes by message" line).
inline uint64_t ReceivedBytes(const std::string& log, const std::string& type) {
  std::smatch m;
  if (!std::regex_search(log, m, std::regex("[:;] " + type + " sent [0-9]+ received ([0-9]+)"))) return 0;
  return std::stoull(m[1]);
}

}  // namespace dg::test
