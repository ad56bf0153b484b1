// Metrics endpoints of a real launched job (ports.metrics) and `distgnn status`
// reading them: servers' per-type requests and latencies, trainers' progress,
// samplers' batches; trainers' and samplers' /metrics read directly.
#include <catch2/catch.hpp>

#include <signal.h>

#include <fstream>
#include <regex>

#include "common/net/metrics_http.h"
#include "common/net/prometheus.h"
#include "test/integration/test_launch_support.h"

using namespace dg::test;

namespace {

double Value(const std::string& body, const std::string& name) {
  for (const auto& s : dg::ParsePromText(body))
    if (s.name == name) return s.value;
  return -1;
}

// Cora in 2 parts, a SAGE export and dir/job.yaml: 2 machines of 127.0.0.1,
// 1 server and 1 trainer each with `samplers` samplers, 1000 epochs.
void WriteJob(const TempDir& dir, int base, int metrics, int samplers, const std::string& extra = "") {
  REQUIRE(RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--method", "metis",
                      "--name", "cora", "--out", dir / "parts"},
                     120)
              .exit_code == 0);
  REQUIRE(RunDistgnn({"model", "export", "--arch", "sage", "--in-dim", "1433", "--hidden", "16", "--classes", "7",
                      "--layers", "2", "-o", dir / "sage.pt"},
                     120)
              .exit_code == 0);
  std::ofstream y(dir / "job.yaml");
  y << "job: cora\npartition: parts/cora.json\nmachines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1\n"
    << "ports: {server: " << base << ", trainer: " << base + 2 << ", rendezvous: " << base + 4
    << ", metrics: " << metrics << "}\nprocesses: {servers: 1, trainers: 1, samplers_per_trainer: " << samplers
    << "}\ntrain: {model: sage.pt, fanouts: [5, 5], batch_size: 10, epochs: 1000, lr: 0.01, seed: 0}\n"
    << "output_dir: runs\n" << extra;
}

}  // namespace

TEST_CASE("a launched job serves /metrics from every process and `distgnn status` tabulates them",
          "[status][metrics][launch][cora]") {
  TempDir dir;
  const int base = FreePortRange(5), metrics = FreePortRange(8);
  WriteJob(dir, base, metrics, 2);
  // The derived ports: P = 1 server + 1 trainer + 2 samplers per machine.
  auto plan = RunDistgnn({"config", "check", dir / "job.yaml"}, 60);
  REQUIRE(plan.exit_code == 0);
  CHECK(plan.output.find("[1/trainer/1] trainer machine 1 index 0 rank 1 on 127.0.0.1:" + std::to_string(base + 3) +
                         " metrics :" + std::to_string(metrics + 4 + 1)) != std::string::npos);

  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml"}, dir / "launch.log");
  // Until trainer 0 is past its first epoch (polling the real endpoint, with a deadline).
  std::string trainer_body;
  REQUIRE(WaitFor(120, [&] {
    auto b = dg::HttpGet("127.0.0.1", metrics + 1, "/metrics", 1);
    if (b.ok()) trainer_body = *b;
    return b.ok() && Value(*b, "distgnn_trainer_epoch") >= 2;
  }));
  CHECK(Value(trainer_body, "distgnn_trainer_epochs") == 1000);
  CHECK(Value(trainer_body, "distgnn_trainer_steps_per_epoch") == 7);  // 70 train seeds per trainer / 10
  CHECK(Value(trainer_body, "distgnn_trainer_last_epoch_loss") > 0);
  CHECK(Value(trainer_body, "distgnn_trainer_steps_total") >= 7);
  auto sampler = dg::HttpGet("127.0.0.1", metrics + 4 + 2, "/metrics", 2);  // machine 1, sampler 0
  REQUIRE(sampler.ok());
  CHECK(Value(*sampler, "distgnn_sampler_batches_total") > 0);
  CHECK(Value(*sampler, "distgnn_sampler_sent_bytes_total") > 0);

  auto st = RunDistgnn({"status", dir / "job.yaml", "--once", "--interval", "0.5"}, 60);
  INFO(st.output);
  CHECK(st.exit_code == 0);
  CHECK(st.output.find("8 of 8 endpoints answered") != std::string::npos);
  CHECK(std::regex_search(st.output, std::regex("\\[0/server/0\\] 127\\.0\\.0\\.1:[0-9]+ +up [0-9]+s, [0-9]+ connections")));
  CHECK(std::regex_search(st.output, std::regex("\n    SAMPLE_NEIGHBORS +[0-9]+ req +[0-9.]+/s .* p50 +[0-9.]+ ms  p99")));
  CHECK(std::regex_search(st.output, std::regex("\\[1/trainer/0\\] .*epoch [0-9]+/1000  step [0-9]+/7  loss [0-9.]+ .* ETA ")));
  CHECK(std::regex_search(st.output, std::regex("\\[0/sampler/1\\] .*batches/s")));
  CHECK(st.output.find_first_of("\r\033") == std::string::npos);  // not a terminal: plain text

  launch.Signal(SIGINT);
  CHECK(launch.Wait(60) != -1);
  // Nothing answers any more: status says so and exits 1.
  auto gone = RunDistgnn({"status", dir / "job.yaml", "--once", "--interval", "0.2"}, 60);
  CHECK(gone.exit_code == 1);
  CHECK(gone.output.find("0 of 8 endpoints answered") != std::string::npos);
}

// tls.https_metrics: every endpoint speaks HTTPS with its process's
// certificate; `distgnn status` presents the job's client certificate.
TEST_CASE("a TLS job with tls.https_metrics: status reads every endpoint over HTTPS, plain HTTP gets nothing",
          "[status][metrics][launch][cora][tls]") {
  TempDir dir;
  const int base = FreePortRange(5), metrics = FreePortRange(4);
  WriteJob(dir, base, metrics, 0, "tls: {https_metrics: true}\n");
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml"}, dir / "launch.log");
  // Until every endpoint answers `status` (its trainers are training).
  std::string out;
  const bool up = WaitFor(120, [&] {
    auto st = RunDistgnn({"status", dir / "job.yaml", "--once", "--interval", "0.3"}, 60);
    out = st.output;
    return st.exit_code == 0 && out.find("4 of 4 endpoints answered") != std::string::npos &&
           std::regex_search(out, std::regex("\\[1/trainer/0\\] .*epoch [0-9]+/1000"));
  });
  INFO(out);
  CHECK(up);
  CHECK(!dg::HttpGet("127.0.0.1", metrics + 1, "/metrics", 1).ok());  // plaintext: no reply
  CHECK(ReadFile(dir / "runs/cora/logs/0-trainer-0.log").find("metrics on https://") != std::string::npos);
  launch.Signal(SIGINT);
  CHECK(launch.Wait(60) != -1);
}
