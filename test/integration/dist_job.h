// DistJob: a distributed Cora job whose roles the test starts by hand, each a
// real `distgnn --role ...` process on 127.0.0.1 with ephemeral ports, so a
// test can watch (or SIGKILL / SIGSTOP) every process on its own.
//
// One machine per partition (all 127.0.0.1), 1 server and 1 trainer each,
// `samplers` samplers per trainer. Outputs go to dir/runs/<job>/; every
// process logs to dir/logs/<name>.log. The destructor SIGKILLs whatever is
// still running (Subprocess), so a failing test leaves nothing behind.
#pragma once

#include <catch2/catch.hpp>
#include <signal.h>

#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/test_launch_support.h"

namespace dg::test {

struct DistJobOptions {
  int parts = 2;
  int samplers = 2;                // per trainer
  int epochs = 60;
  double peer_timeout_seconds = 10;
  std::string extra_train_yaml;    // more keys for the train: map, "k: v, ..."
  // `distgnn model export` flags of the job's model (written to model.pt).
  std::vector<std::string> model = {"--arch", "sage", "--in-dim", "1433", "--hidden", "128",
                                    "--classes", "7", "--layers", "2"};
  std::string fanouts = "[10, 25]";  // train.fanouts
  // More `distgnn partition` flags (e.g. --edge-split for link prediction).
  std::vector<std::string> partition_args;
};

class DistJob {
 public:
  // Partitions Cora, exports the model (SAGE, hidden 128 unless o.model says
  // otherwise) and writes job.yaml.
  explicit DistJob(const DistJobOptions& o) : o_(o) {
    static int counter = 0;
    job_id_ = "disttest-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    std::vector<std::string> partition = {"partition", "--dataset", CoraDir(), "--undirected", "--num-parts",
                                          std::to_string(o.parts), "--method", "metis", "--name", "cora", "--out",
                                          dir_ / "parts"};
    partition.insert(partition.end(), o.partition_args.begin(), o.partition_args.end());
    auto r = RunDistgnn(partition, 120);
    if (r.exit_code != 0) throw std::runtime_error("partition failed: " + r.output);
    std::vector<std::string> export_args = {"model", "export"};
    export_args.insert(export_args.end(), o.model.begin(), o.model.end());
    export_args.insert(export_args.end(), {"-o", dir_ / "model.pt"});
    r = RunDistgnn(export_args, 120);
    if (r.exit_code != 0) throw std::runtime_error("model export failed: " + r.output);
    const int base = FreePortRange(2 * o.parts + 1);
    std::ofstream y(dir_ / "job.yaml");
    y << "job: cora\npartition: parts/cora.json\nmachines:\n";
    for (int m = 0; m < o.parts; ++m) y << "  - host: 127.0.0.1\n";
    y << "ports: {server: " << base << ", trainer: " << base + o.parts << ", rendezvous: " << base + 2 * o.parts
      << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: " << o.samplers << "}\n"
      << "train: {model: model.pt, fanouts: " << o.fanouts << ", batch_size: " << 140 / o.parts << ", epochs: " << o.epochs
      << ", lr: 0.01, weight_decay: 0.0005, seed: 0" << (o.extra_train_yaml.empty() ? "" : ", ")
      << o.extra_train_yaml << "}\n"
      << "network: {heartbeat_seconds: 0.5, peer_timeout_seconds: " << o.peer_timeout_seconds << "}\n"
      << "output_dir: runs\n";
    std::filesystem::create_directories(dir_ / "logs");
  }

  const TempDir& dir() const { return dir_; }
  std::string run_dir() const { return dir_ / "runs/cora"; }
  const std::string& job_id() const { return job_id_; }

  // Starts servers, then samplers, then trainers (the roles retry their
  // connections, so the order only saves time).
  // `all_args` go to every role (e.g. --set train.epochs=6), `trainer_args`
  // to trainers only (e.g. --resume). Starting again replaces the processes.
  void StartAll(const std::vector<std::string>& all_args = {}, const std::vector<std::string>& trainer_args = {}) {
    std::vector<std::string> trainer = all_args;
    trainer.insert(trainer.end(), trainer_args.begin(), trainer_args.end());
    for (int m = 0; m < o_.parts; ++m) Start("server", m, 0, all_args);
    for (int m = 0; m < o_.parts; ++m)
      for (int s = 0; s < o_.samplers; ++s) Start("sampler", m, s, all_args);
    for (int m = 0; m < o_.parts; ++m) Start("trainer", m, 0, trainer);
  }

  // Process names: "server-M", "trainer-M", "sampler-M-I".
  static std::string Name(const std::string& role, int machine, int index) {
    return role == "sampler" ? role + "-" + std::to_string(machine) + "-" + std::to_string(index)
                             : role + "-" + std::to_string(machine);
  }
  Subprocess& Proc(const std::string& name) { return *procs_.at(name); }
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const auto& [name, p] : procs_) out.push_back(name);
    return out;
  }

  // Waits until every trainer and sampler has exited (up to timeout_s
  // overall); exit code per name, -1 for a process still running then.
  std::map<std::string, int> WaitWorkers(double timeout_s) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    std::map<std::string, int> rc;
    for (auto& [name, p] : procs_) {
      if (name.rfind("server", 0) == 0) continue;
      double left = std::chrono::duration<double>(end - std::chrono::steady_clock::now()).count();
      rc[name] = p->Wait(std::max(0.0, left));
    }
    return rc;
  }

  // Servers are long-lived: SIGTERM (a clean shutdown), then their exit codes.
  std::map<std::string, int> StopServers(double timeout_s = 30) {
    std::map<std::string, int> rc;
    for (auto& [name, p] : procs_)
      if (name.rfind("server", 0) == 0) p->Signal(SIGTERM);
    for (auto& [name, p] : procs_)
      if (name.rfind("server", 0) == 0) rc[name] = p->Wait(timeout_s);
    return rc;
  }

  // Every process's last log lines, for INFO on failure.
  std::string Logs() const {
    std::string out;
    for (const auto& [name, p] : procs_) {
      std::string text = p->Output();
      if (text.size() > 1500) text = "..." + text.substr(text.size() - 1500);
      out += "=== " + name + " ===\n" + text + "\n";
    }
    return out;
  }

  // The process whose training has started (a progress/epoch line in rank 0's log).
  bool TrainingStarted() { return Proc("trainer-0").Output().find("epoch 1") != std::string::npos; }

 private:
  void Start(const std::string& role, int machine, int index, const std::vector<std::string>& extra) {
    const std::string name = Name(role, machine, index);
    auto p = std::make_unique<Subprocess>();
    std::vector<std::string> argv{DistgnnBin(), "--role", role, "--config", dir_ / "job.yaml", "--machine",
                                  std::to_string(machine), "--index", std::to_string(index), "--job-id", job_id_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    p->Start(argv, dir_ / ("logs/" + name + "-" + std::to_string(++starts_) + ".log"));
    procs_[name] = std::move(p);
  }

  DistJobOptions o_;
  TempDir dir_;
  std::string job_id_;
  std::map<std::string, std::unique_ptr<Subprocess>> procs_;
  int starts_ = 0;  // log files are never reused
};

// A number after `"key": ` in a JSON text ("" if absent).
inline std::string JsonField(const std::string& text, const std::string& key) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("\"" + key + "\": *\"?([^,}\"]*)"))) return m[1];
  return "";
}

struct TrainerSummary {
  std::string fingerprint;
  int64_t steps = 0;
};

inline TrainerSummary ReadSummary(const std::string& run_dir, int rank) {
  std::string text = ReadFile(run_dir + "/trainer-" + std::to_string(rank) + ".json");
  INFO("trainer-" << rank << ".json: " << text);
  REQUIRE(!text.empty());
  return {JsonField(text, "param_fingerprint"), std::stoll(JsonField(text, "steps"))};
}

inline double FinalTestAccuracy(const std::string& run_dir) {
  std::string metrics = ReadFile(run_dir + "/metrics.jsonl");
  std::smatch m;
  INFO(metrics);
  REQUIRE(std::regex_search(metrics, m, std::regex("\"final\": *true.*\"test_acc\": *([0-9.eE+-]+)")));
  return std::stod(m[1]);
}

inline std::vector<double> EpochLosses(const std::string& metrics_path) {
  std::vector<double> out;
  std::istringstream in(ReadFile(metrics_path));
  for (std::string line; std::getline(in, line);)
    if (line.find("\"final\"") == std::string::npos && !JsonField(line, "loss").empty())
      out.push_back(std::stod(JsonField(line, "loss")));
  return out;
}

// Runs a job to completion and checks what every successful run must give:
// every trainer and sampler exits 0 by itself, the servers exit 0 on SIGTERM, nothing is left, all trainers have the same
// parameters and step counts. Returns rank 0's fingerprint.
inline std::string RunToCompletion(DistJob& job, int parts, double min_test_acc,
                                   const std::vector<std::string>& all_args = {},
                                   const std::vector<std::string>& trainer_args = {}) {
  job.StartAll(all_args, trainer_args);
  auto rc = job.WaitWorkers(240);
  for (const auto& [name, code] : job.StopServers()) rc[name] = code;
  INFO(job.Logs());
  for (const auto& [name, code] : rc) {
    INFO(name);
    CHECK(code == 0);
  }
  CHECK(FindProcesses("--job-id " + job.job_id()).empty());
  CHECK(FinalTestAccuracy(job.run_dir()) >= min_test_acc);
  TrainerSummary first = ReadSummary(job.run_dir(), 0);
  CHECK(first.steps > 0);
  for (int r = 1; r < parts; ++r) {
    TrainerSummary s = ReadSummary(job.run_dir(), r);
    CHECK(s.fingerprint == first.fingerprint);
    CHECK(s.steps == first.steps);
  }
  return first.fingerprint;
}

}  // namespace dg::test
