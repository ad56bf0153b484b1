// Shared pieces of the launcher tests: a job directory whose roles are played by
// test/integration/fake_role.py (launch is pointed at it with DISTGNN_LAUNCH_BINARY).
#pragma once

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "test/support/test_support.h"

namespace dg::test {

using Behaviors = std::map<std::string, std::string>;

struct FakeJob {
  TempDir dir;
  int server_port = 0, trainer_port = 0, rendezvous_port = 0;
  int machines = 2;
  std::string yaml, pids, exits;

  // behaviors: fake_roles.json entries, e.g. {"trainer-1-0", R"({"sleep": 1, "exit": 3})"}.
  // machine_extra: YAML lines appended to every machine entry (ssh settings).
  explicit FakeJob(const std::map<std::string, std::string>& behaviors, int num_machines = 2,
                   const std::string& machine_extra = "", const std::string& token = "") {
    machines = num_machines;
    server_port = FreePortRange(2 * machines + 1);  // held until this test process exits
    trainer_port = server_port + machines;
    rendezvous_port = trainer_port + machines;
    pids = dir / "pids";
    exits = dir / "exits";
    std::filesystem::create_directories(pids);
    std::filesystem::create_directories(exits);
    std::filesystem::create_directories(dir / "parts");
    std::filesystem::create_directories(dir / "models");
    {
      std::ofstream j(dir / "parts/toy.json");
      j << "{\"num_parts\": " << machines << ", \"graph_name\": \"toy\", \"orig_nids\": \"orig_nids.npy\", \"parts\": [";
      for (int m = 0; m < machines; ++m) j << (m ? ", " : "") << "{\"dir\": \"part" << m << "\"}";
      j << "]}\n";
    }
    for (int m = 0; m < machines; ++m) {
      std::filesystem::create_directories(dir / ("parts/part" + std::to_string(m)));
      std::ofstream(dir / ("parts/part" + std::to_string(m) + "/indptr.npy")) << "part" << m;
    }
    std::ofstream(dir / "parts/orig_nids.npy") << "nids";
    std::ofstream(dir / "models/model.pt") << "model";
    std::ofstream y(dir / "job.yaml");
    y << "job: toy\npartition: parts/toy.json\ntoken: \"" << token << "\"\nmachines:\n";
    for (int m = 0; m < machines; ++m) y << "  - host: 127.0.0.1\n" << machine_extra;
    y << "ports: {server: " << server_port << ", trainer: " << trainer_port << ", rendezvous: " << rendezvous_port
      << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: 1}\n"
      << "train:\n  model: models/model.pt\n  epochs: 2\noutput_dir: runs\n";
    y.close();
    yaml = dir / "job.yaml";
    std::ofstream f(dir / "fake_roles.json");
    f << "{\"pids_dir\": \"" << pids << "\", \"exits_dir\": \"" << exits << "\", \"server_port\": " << server_port << ", \"servers\": 1";
    for (const auto& [k, v] : behaviors) f << ", \"" << k << "\": " << v;
    f << "}\n";
  }

  // pid of every fake role (and helper) that was started.
  std::map<std::string, pid_t> Pids() const {
    std::map<std::string, pid_t> out;
    for (const auto& e : std::filesystem::directory_iterator(pids)) {
      std::ifstream in(e.path());
      pid_t pid = 0;
      if (in >> pid) out[e.path().filename().string()] = pid;
    }
    return out;
  }
  // When the fake role `key` exited on its own (wall-clock seconds), or 0 if it did not.
  double ExitTime(const std::string& key) const {
    std::ifstream in(exits + "/" + key);
    double t = 0;
    in >> t;
    return t;
  }
  std::vector<std::string> Survivors() const {
    std::vector<std::string> out;
    for (const auto& [name, pid] : Pids())
      if (ProcessAlive(pid)) out.push_back(name + " (pid " + std::to_string(pid) + ")");
    return out;
  }
};

inline std::string FakeRoleScript() { return SourceDir() + "/test/integration/fake_role.py"; }

// Sets DISTGNN_LAUNCH_BINARY for the launches started while it lives.
struct FakeRoles {
  FakeRoles() { setenv("DISTGNN_LAUNCH_BINARY", FakeRoleScript().c_str(), 1); }
  ~FakeRoles() { unsetenv("DISTGNN_LAUNCH_BINARY"); }
};

inline bool WaitFor(double seconds, const std::function<bool()>& pred) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// pids of processes whose command line contains `needle`.
inline std::vector<pid_t> FindProcesses(const std::string& needle) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  while (dirent* e = d ? readdir(d) : nullptr) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == getpid()) continue;
    std::string cmd;
    try {  // a process exiting under us makes the read fail (ESRCH): it is gone, skip it
      cmd = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
    } catch (const std::exception&) {
      continue;
    }
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(needle) != std::string::npos && ProcessAlive(pid)) out.push_back(pid);
  }
  if (d) closedir(d);
  return out;
}

inline std::string JobId(const std::string& launch_output) {
  std::smatch m;
  if (std::regex_search(launch_output, m, std::regex("\\(id ([A-Za-z0-9_.-]+)\\)"))) return m[1];
  return "";
}

}  // namespace dg::test
