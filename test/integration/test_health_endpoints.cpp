// /healthz and /readyz on the metrics port of real role processes (a 2-machine
// Cora job started by hand, as systemd or Kubernetes start it): servers ready
// once they listen, a sampler not ready (503, one line saying why) until its
// trainer is up, a trainer not ready until it has joined the other trainer;
// /healthz answers 200 meanwhile and unknown paths stay 404.
#include <catch2/catch.hpp>

#include <signal.h>

#include <fstream>
#include <map>
#include <memory>

#include "common/net/metrics_http.h"
#include "common/net/prometheus.h"
#include "test/integration/test_launch_support.h"

using namespace dg;
using namespace dg::test;

namespace {

struct HealthJob {
  TempDir dir;
  int base = FreePortRange(5), metrics = FreePortRange(6);  // P = 1 server + 1 trainer + 1 sampler per machine
  std::map<std::string, std::unique_ptr<Subprocess>> procs;

  HealthJob() {
    REQUIRE(RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method",
                        "random", "--name", "cora", "--out", dir / "parts"},
                       120)
                .exit_code == 0);
    REQUIRE(RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "16", "--classes", "7",
                        "--layers", "2", "-o", dir / "sage.pt"},
                       120)
                .exit_code == 0);
    std::ofstream y(dir / "job.yaml");
    y << "job: cora\npartition: parts/cora.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
      << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4
      << ", metrics: " << metrics << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: 1}\n"
      << "train: {model: sage.pt, fanouts: [5, 5], batch_size: 10, epochs: 1000, lr: 0.01, seed: 0}\n"
      << "output_dir: runs\n";
  }
  void Start(const std::string& role, int machine) {
    const std::string name = role + "-" + std::to_string(machine);
    procs[name] = std::make_unique<Subprocess>();
    procs[name]->Start({DistgnnBin(), "--role", role, "--config", dir / "job.yaml", "--machine",
                        std::to_string(machine), "--index", "0"},
                       dir / (name + ".log"));
  }
  int Port(const std::string& role, int machine) const {
    return metrics + 3 * machine + (role == "server" ? 0 : role == "trainer" ? 1 : 2);
  }
  // The reply of GET path once the process answers at all (within 120 s).
  HttpReply Fetch(const std::string& role, int machine, const std::string& path) {
    Result<HttpReply> r = Status::NotFound("no reply");
    WaitFor(120, [&] { return (r = HttpFetch("127.0.0.1", Port(role, machine), path, 2)).ok(); });
    INFO(Logs());
    REQUIRE(r.ok());
    return *r;
  }
  // Waits until GET /readyz is 200; the last reply.
  HttpReply WaitReady(const std::string& role, int machine) {
    HttpReply last;
    WaitFor(120, [&] {
      auto r = HttpFetch("127.0.0.1", Port(role, machine), "/readyz", 2);
      if (r.ok()) last = *r;
      return r.ok() && r->status == 200;
    });
    return last;
  }
  std::string Logs() const {
    std::string out;
    for (const auto& [name, p] : procs) out += "=== " + name + " ===\n" + p->Output() + "\n";
    return out;
  }
};

}  // namespace

TEST_CASE("servers, samplers and trainers answer /healthz and /readyz: 503 with a reason until ready, then 200",
          "[health][metrics][cora]") {
  HealthJob job;
  job.Start("server", 0);
  job.Start("server", 1);
  for (int m = 0; m < 2; ++m) {
    const HttpReply ready = job.WaitReady("server", m);
    INFO(job.Logs());
    CHECK(ready.status == 200);
    CHECK(ready.body == "ready\n");
    const HttpReply health = job.Fetch("server", m, "/healthz");
    CHECK(health.status == 200);
    CHECK(health.body == "ok\n");
    CHECK(job.Fetch("server", m, "/nope").status == 404);
  }

  // Sampler 0 has its servers but no trainer yet.
  job.Start("sampler", 0);
  HttpReply sampler = job.Fetch("sampler", 0, "/readyz");
  INFO(job.Logs());
  CHECK(sampler.status == 503);
  CHECK(sampler.body == "not ready: connected to every server; waiting for trainer 0 (127.0.0.1:" +
                            std::to_string(job.base + 2) + ")\n");
  CHECK(job.Fetch("sampler", 0, "/healthz").status == 200);

  // Trainer 0 takes its sampler, then waits for trainer 1 at the rendezvous.
  job.Start("trainer", 0);
  CHECK(job.WaitReady("sampler", 0).status == 200);
  HttpReply trainer = job.Fetch("trainer", 0, "/readyz");
  CHECK(trainer.status == 503);
  CHECK(trainer.body == "not ready: loading the model and joining the other trainers\n");
  CHECK(job.Fetch("trainer", 0, "/healthz").status == 200);
  CHECK(job.Fetch("trainer", 0, "/metrics").body.find("distgnn_trainer_joined{rank=\"0\"} 0") != std::string::npos);

  job.Start("sampler", 1);
  job.Start("trainer", 1);
  for (int m = 0; m < 2; ++m) {
    const HttpReply ready = job.WaitReady("trainer", m);
    CHECK(ready.status == 200);
    CHECK(ready.body == "ready\n");
    CHECK(job.WaitReady("sampler", m).status == 200);
    CHECK(job.Fetch("trainer", m, "/metrics").body.find("distgnn_trainer_joined{rank=\"" + std::to_string(m) +
                                                        "\"} 1") != std::string::npos);
  }
  for (auto& [name, p] : job.procs) p->Signal(SIGTERM);
  for (auto& [name, p] : job.procs) p->Wait(30);
}
