// A TLS job end to end: bundled Cora on 2 machines of 127.0.0.1 with `tls: true`
// (launch makes the throw-away job CA), 2 trainers whose gradients go over the
// TLS ring, and a packet capture of every port of the job (tcpdump on lo) in
// which neither the graph's name, any feature row's bytes nor the job lease's
// greeting appear (the lease listens on an ephemeral port: the capture takes
// the kernel's ephemeral range too). The same job without TLS is the capture's
// control: there all three are found.
#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <unordered_set>

#include "common/io/npy.h"
#include "test/integration/cora_launch_job.h"

using namespace dg;
using namespace dg::test;

namespace {

const char kGraphName[] = "coraTlsProbe";

// 256-byte windows (64 floats) of the feature rows of every part, each
// starting at a 1.0 entry and holding at least 3 (Cora's features are 0/1
// floats, ~18 ones a row): a row on the wire in clear holds one.
std::unordered_set<std::string> FeatureWindows(const TempDir& dir) {
  std::unordered_set<std::string> windows;
  for (int p = 0; p < 2; ++p) {
    auto a = NpyRead(dir / ("parts/part" + std::to_string(p) + "/node_data/features.npy"));
    INFO(a.status().ToString());
    REQUIRE(a.ok());
    const auto* f = static_cast<const float*>(a->data);
    const int64_t rows = a->shape[0], cols = a->shape[1];
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c + 64 <= cols; ++c) {
        const float* w = f + r * cols + c;
        if (w[0] == 1.0f && std::count(w, w + 64, 1.0f) >= 3) windows.emplace(reinterpret_cast<const char*>(w), 256);
      }
  }
  return windows;
}

struct CaptureFindings {
  bool graph_name = false;
  bool lease_greeting = false;  // "DGLEASE1 ", the lease's first line (common/net/job_lease.h)
  int64_t feature_windows = 0;
};

CaptureFindings Search(const std::string& pcap, const std::unordered_set<std::string>& windows) {
  const std::string bytes = ReadFile(pcap);
  CaptureFindings out;
  out.graph_name = bytes.find(kGraphName) != std::string::npos;
  out.lease_greeting = bytes.find("DGLEASE1 ") != std::string::npos;
  const char one[4] = {0, 0, '\x80', '\x3f'};
  for (size_t at = bytes.find(std::string(one, 4)); at != std::string::npos && at + 256 <= bytes.size();
       at = bytes.find(std::string(one, 4), at + 1))
    out.feature_windows += windows.count(bytes.substr(at, 256));
  return out;
}

// "tcp portrange A-B" for the kernel's ephemeral ports, where the lease listens
// (another plaintext job on this machine at the same time would show up too).
std::string EphemeralPorts() {
  std::ifstream f("/proc/sys/net/ipv4/ip_local_port_range");
  int lo = 32768, hi = 60999;
  f >> lo >> hi;
  return "tcp portrange " + std::to_string(lo) + "-" + std::to_string(hi);
}

// Runs the job under a capture of ports [base, base + 6) and the ephemeral
// range; returns what the capture holds.
CaptureFindings RunCaptured(const TempDir& dir, const std::string& name, bool tls, int base,
                            const std::unordered_set<std::string>& windows) {
  const std::string pcap = dir / (name + ".pcap");
  Subprocess capture;
  const std::string filter =
      "tcp portrange " + std::to_string(base) + "-" + std::to_string(base + 5) + " or " + EphemeralPorts();
  capture.Start({"/usr/bin/tcpdump", "-i", "lo", "-s", "0", "-U", "-w", pcap, filter}, dir / (name + "-tcpdump.log"));
  REQUIRE(WaitFor(10, [&] { return capture.Output().find("listening on lo") != std::string::npos; }));
  const std::string ports = "ports={server: " + std::to_string(base) + ", trainer: " + std::to_string(base + 2) +
                            ", rendezvous: " + std::to_string(base + 4) + "}";
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", ports, "--set", std::string("tls=") + (tls ? "true" : "false"),
                "--set", "train.epochs=5", "--set", "job=" + name},
               dir / (name + "-launch.log"));
  const int rc = launch.Wait(300);
  capture.Signal(SIGINT);
  capture.Wait(10);
  const std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  if (tls) {
    CHECK(out.find("TLS on with a throw-away job CA") != std::string::npos);
    const std::string trainer = ReadFile(dir / ("runs/" + name + "/logs/1-trainer-0.log"));
    INFO(trainer);
    CHECK(trainer.find("gradient ring: trainer 1 of 2 connected") != std::string::npos);
    CHECK(trainer.find("TLS 1.3 on: presenting") != std::string::npos);
  }
  return Search(pcap, windows);
}

}  // namespace

TEST_CASE("a TLS job's capture holds neither its graph's name, a feature row nor the lease's greeting, the plain "
          "job's all three",
          "[launch][tls]") {
  TempDir dir;
  PrepareCoraLaunch(dir, {"", ""}, "", kGraphName);
  const auto windows = FeatureWindows(dir);
  REQUIRE(windows.size() > 1000);
  const int base = FreePortRange(6);
  CaptureFindings plain = RunCaptured(dir, "plain", false, base, windows);
  CHECK(plain.graph_name);
  CHECK(plain.feature_windows > 0);
  CHECK(plain.lease_greeting);
  CaptureFindings tls = RunCaptured(dir, "tls", true, base, windows);
  CHECK(!tls.graph_name);
  CHECK(tls.feature_windows == 0);
  CHECK(!tls.lease_greeting);
  CHECK(FinalTestAcc(dir / "runs/tls/metrics.jsonl") > 0.5);
}

TEST_CASE("a TLS job's processes hold their lease over TLS: heartbeats keep it, a frozen launcher ends it",
          "[launch][tls]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const double timeout = 3;
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "tls=true", "--set", "train.epochs=500", "--set",
                "network.peer_timeout_seconds=3"},
               dir / "launch.log");
  std::string id;
  REQUIRE(WaitFor(60, [&] { return !(id = JobId(launch.Output())).empty(); }));
  INFO(launch.Output());
  REQUIRE(WaitFor(120, [&] { return EpochLines(dir / "runs/cora/metrics.jsonl") > 0; }));
  // Two lease timeouts later every process still runs: the heartbeats go over TLS.
  std::this_thread::sleep_for(std::chrono::duration<double>(2 * timeout));
  REQUIRE(launch.running());
  REQUIRE(FindProcesses("--job-id " + id).size() >= 8);  // per machine: server, trainer, 2 samplers
  // A frozen launcher sends no heartbeat (its children die with it, so it is frozen, not killed).
  launch.Signal(SIGSTOP);
  const bool gone = WaitFor(timeout + 5, [&] { return FindProcesses("--job-id " + id).empty(); });
  launch.Signal(SIGCONT);
  launch.Wait(30);
  launch.Signal(SIGKILL);
  launch.Wait(10);
  CHECK(gone);
  // A server has no other way to learn its launcher is gone (a trainer may
  // first see its ring peer go, which lost its own lease).
  for (const char* log : {"0-server-0.log", "1-server-0.log"}) {
    const std::string server = ReadFile(dir / ("runs/cora/logs/" + std::string(log)));
    INFO(log << ":\n" << server);
    CHECK(server.find("TLS 1.3 on: presenting") != std::string::npos);
    CHECK(server.find("lease lost: no heartbeat from the launcher's lease at") != std::string::npos);
  }
}
