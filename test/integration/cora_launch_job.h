// A 2-machine Cora job for `distgnn launch` with the real roles: METIS
// partition, a SAGE model and job.yaml (1 server, 1 trainer, 2 samplers per
// machine, 60 epochs; the learning rate is the default's: 0.01 on Cora's rows).
// machine_extra[m] is appended to machine m's entry (ssh settings); the model,
// partition and YAML are written into dir; the graph is partitioned as `graph_name`.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test/integration/test_launch_support.h"

namespace dg::test {

inline void PrepareCoraLaunch(const TempDir& dir, const std::vector<std::string>& machine_extra = {"", ""},
                              const std::string& token = "", const std::string& graph_name = "cora") {
  auto r = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                       "--name", graph_name, "--out", dir / "parts"},
                      120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "128", "--classes", "7",
                  "--layers", "2", "-o", dir / "sage.pt"},
                 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const int base = FreePortRange(5);
  std::ofstream y(dir / "job.yaml");
  y << "job: cora\npartition: parts/" << graph_name << ".json\ntoken: \"" << token << "\"\nmachines:\n";
  for (const std::string& extra : machine_extra) y << "  - host: 127.0.0.1\n" << extra;
  y << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4 << "}\n"
    << "processes: {servers: 1, trainers: 1, samplers_per_trainer: 2}\n"
    << "train: {model: sage.pt, fanouts: [10, 25], batch_size: 70, epochs: 60, weight_decay: 0.0005, "
       "seed: 0}\noutput_dir: runs\n";
}

// test_acc of the final line of a metrics.jsonl.
inline double FinalTestAcc(const std::string& metrics_path) {
  std::string metrics = ReadFile(metrics_path);
  std::smatch m;
  INFO(metrics_path << ":\n" << metrics);
  REQUIRE(std::regex_search(metrics, m, std::regex("\"final\": *true.*\"test_acc\": *([0-9.eE+-]+)")));
  return std::stod(m[1]);
}

// Epoch lines (not the final one) of a metrics.jsonl.
inline int EpochLines(const std::string& metrics_path) {
  std::istringstream in(ReadFile(metrics_path));
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"epoch\"") != std::string::npos && line.find("\"final\"") == std::string::npos) ++n;
  return n;
}

// pids of the real `distgnn` processes (argv[0] is the binary, not an ssh
// client carrying the command) of job `id` with this role and machine.
inline std::vector<pid_t> RoleProcesses(const std::string& id, const std::string& role, int machine) {
  std::vector<pid_t> out;
  for (pid_t pid : FindProcesses("--job-id " + id)) {
    std::string cmd = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.rfind(DistgnnBin() + " ", 0) == 0 && cmd.find("--role " + role + " ") != std::string::npos &&
        cmd.find("--machine " + std::to_string(machine) + " ") != std::string::npos)
      out.push_back(pid);
  }
  return out;
}

}  // namespace dg::test
