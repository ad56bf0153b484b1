// Historical rows (train.historical, roles/trainer/tasks/historical_task.h) on
// Cora with real processes on 127.0.0.1: with max age 0 train-local is the
// node task bit for bit; with a positive age rows are read, fewer bytes move
// and the model still learns; a run SIGKILLed after a mid-epoch step
// checkpoint and resumed (train-local, and a launched job whose trainer is
// restarted: the store on the server) ends bit-identical; a 2-partition job
// reads rows of the other machine's nodes and moves fewer bytes than the
// exact job, also with block 0 aggregated at the servers (where max age 0 is
// the aggregated node job bit for bit); settings that cannot work are one
// error naming the key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "test/integration/cora_launch_job.h"
#include "test/integration/dist_job.h"
#include "test/integration/restart_support.h"

using namespace dg::test;

namespace {

const std::vector<std::string> kSage = {"--arch", "sage", "--in-dim", "1433", "--hidden", "32",
                                        "--classes", "7", "--layers", "2"};

void ExportSage(const TempDir& dir) {
  std::vector<std::string> args{"model", "export"};
  args.insert(args.end(), kSage.begin(), kSage.end());
  args.insert(args.end(), {"-o", dir / "m.pt"});
  auto r = RunDistgnn(args, 120);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

std::vector<std::string> TrainLocal(const TempDir& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"--dataset", CoraDir(), "--undirected", "--model", dir / "m.pt", "--fanouts", "5,10",
                                "--batch-size", "16", "--epochs", "3", "--lr", "0.01", "--seed", "3", "--threads",
                                "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

double Sum(const std::vector<std::string>& values) {
  double s = 0;
  for (const std::string& v : values) s += v.empty() ? 0 : std::stod(v);
  return s;
}

}  // namespace

TEST_CASE("train-local with historical rows: max age 0 is the node task bit for bit, age 8 reads rows, moves "
          "fewer bytes and still learns",
          "[historical][cora]") {
  TempDir dir;
  ExportSage(dir);
  auto exact = TrainLocalTo(TrainLocal(dir, {}), dir / "exact");
  INFO(exact.output);
  REQUIRE(exact.exit_code == 0);
  auto none = TrainLocalTo(TrainLocal(dir, {"--historical-layers", "1", "--historical-max-age", "0"}), dir / "none");
  INFO(none.output);
  REQUIRE(none.exit_code == 0);
  CheckSameRun(dir / "exact", dir / "none", "val_acc");
  CHECK(EpochValues(dir / "none/metrics.jsonl", "hits") == std::vector<std::string>{"0", "0", "0"});

  auto aged = TrainLocalTo(TrainLocal(dir, {"--historical-layers", "1", "--historical-max-age", "8"}), dir / "aged");
  INFO(aged.output);
  REQUIRE(aged.exit_code == 0);
  const double hits = Sum(EpochValues(dir / "aged/metrics.jsonl", "hits"));
  const double lookups = Sum(EpochValues(dir / "aged/metrics.jsonl", "lookups"));
  WARN("Cora, batch 16, fanouts 5,10, max age 8: " << hits << " of " << lookups << " rows read; test accuracy "
                                                     << FinalTestAcc(dir / "aged/metrics.jsonl") << ", exact "
                                                     << FinalTestAcc(dir / "exact/metrics.jsonl"));
  CHECK(hits > 0.3 * lookups);
  CHECK(Sum(EpochValues(dir / "aged/metrics.jsonl", "bytes_per_step")) <
        0.9 * Sum(EpochValues(dir / "none/metrics.jsonl", "bytes_per_step")));
  CHECK(FinalTestAcc(dir / "aged/metrics.jsonl") >= 0.6);  // the majority class is 0.319
}

TEST_CASE("train-local with historical rows, SIGKILLed after a mid-epoch step checkpoint and resumed, ends "
          "bit-identical",
          "[historical][checkpoint][cora]") {
  TempDir dir;
  ExportSage(dir);
  // 140 training nodes in batches of 16: 9 steps an epoch; checkpoints every 4.
  const std::vector<std::string> common =
      TrainLocal(dir, {"--historical-layers", "1", "--historical-max-age", "6", "--checkpoint-every-steps", "4"});
  CheckTrainLocalResumeExact(dir, common, 12, 27, "val_acc");
  CHECK(Sum(EpochValues(dir / "killed/metrics.jsonl", "hits")) > 0);
}

TEST_CASE("launch --max-restarts 1: historical rows in the server's store, the trainer SIGKILLed mid-epoch, "
          "restarts from its step checkpoint and ends bit-identical",
          "[historical][checkpoint][launch][cora]") {
  // One trainer: with several, a step may or may not see another's rows of the same step.
  DistJobOptions o;
  o.parts = 1;
  o.samplers = 0;
  o.epochs = 3;
  o.peer_timeout_seconds = 3;
  o.model = kSage;
  o.fanouts = "[5, 10]";
  o.extra_train_yaml =
      "historical: {layers: [1], max_age_steps: 6, nodes: all}, intra_op_threads: 1, checkpoint_every_steps: 4";
  // 140 training nodes in batches of 16: 9 steps an epoch.
  CheckLaunchRestartExact(o, {"--set", "train.batch_size=16"}, 12, 0, "val_acc", nullptr,
                          [](const std::string& run_dir) {
                            CHECK(Sum(EpochValues(run_dir + "/metrics.jsonl", "hits")) > 0);
                          });
}

TEST_CASE("launch: historical rows on 2 partitions read the other machine's rows and move fewer bytes than the "
          "exact job",
          "[historical][launch][cora]") {
  DistJobOptions o;
  o.parts = 2;
  o.samplers = 0;
  o.epochs = 4;
  o.model = kSage;
  o.fanouts = "[5, 10]";
  o.extra_train_yaml = "intra_op_threads: 1, input_aggregation: off";
  DistJob exact(o);
  auto r = RunDistgnn({"launch", exact.dir() / "job.yaml", "--set", "train.batch_size=16"}, 600);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* nodes : {"remote", "all"}) {
    DYNAMIC_SECTION("nodes: " << nodes) {
      o.extra_train_yaml = std::string("intra_op_threads: 1, historical: {layers: [1], max_age_steps: 6, nodes: ") +
                           nodes + "}";
      DistJob job(o);
      r = RunDistgnn({"launch", job.dir() / "job.yaml", "--set", "train.batch_size=16"}, 600);
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
      const std::string m = job.run_dir() + "/metrics.jsonl";
      const double hits = Sum(EpochValues(m, "hits")), lookups = Sum(EpochValues(m, "lookups"));
      const double bytes = Sum(EpochValues(m, "bytes_per_step"));
      const double exact_bytes = Sum(EpochValues(exact.run_dir() + "/metrics.jsonl", "bytes_per_step"));
      WARN("Cora, 2 partitions, nodes " << nodes << ", max age 6: " << hits << " of " << lookups
                                        << " rows read; bytes per step " << bytes / 4 << " against "
                                        << exact_bytes / 4 << "; test accuracy " << FinalTestAcc(m) << ", exact "
                                        << FinalTestAcc(exact.run_dir() + "/metrics.jsonl"));
      CHECK(hits > 0.3 * lookups);
      CHECK(bytes < exact_bytes);
      CHECK(FinalTestAcc(m) >= 0.6);
    }
  }
}

TEST_CASE("launch with input_aggregation on: historical rows aggregate the misses' block 0 at the servers: max "
          "age 0 is the aggregated node job bit for bit, age 6 reads stored rows in block 0's round trips and moves "
          "fewer bytes",
          "[historical][launch][aggregate][cora]") {
  DistJobOptions o;
  o.parts = 2;
  o.samplers = 0;
  o.epochs = 3;
  o.model = kSage;
  o.fanouts = "[5, 10]";
  const std::string common = "intra_op_threads: 1, input_aggregation: on";
  auto run = [&](const std::string& extra) {
    o.extra_train_yaml = common + extra;
    auto job = std::make_unique<DistJob>(o);
    auto r = RunDistgnn({"launch", job->dir() / "job.yaml", "--set", "train.batch_size=16"}, 600);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return job;
  };
  auto exact = run("");
  auto none = run(", historical: {layers: [1], max_age_steps: 0}");
  CheckSameRun(exact->run_dir(), none->run_dir(), "val_acc");
  const std::string em = exact->run_dir() + "/metrics.jsonl";
  // The same requests each epoch. The channels count all their traffic,
  // heartbeats on a timer included, and on a loaded machine one epoch has been
  // seen to carry a fifth more than its twin while the losses matched bit for
  // bit: every epoch but one must match within 0.5 %.
  const auto none_bytes = EpochValues(none->run_dir() + "/metrics.jsonl", "bytes_per_step");
  const auto exact_epoch_bytes = EpochValues(em, "bytes_per_step");
  REQUIRE(none_bytes.size() == exact_epoch_bytes.size());
  size_t same_bytes = 0;
  for (size_t i = 0; i < none_bytes.size(); ++i) {
    INFO("epoch " << i << ": bytes per step " << none_bytes[i] << " against " << exact_epoch_bytes[i]);
    if (std::stod(none_bytes[i]) == Approx(std::stod(exact_epoch_bytes[i])).epsilon(0.005)) ++same_bytes;
  }
  CHECK(same_bytes + 1 >= none_bytes.size());

  // Stored rows come in block 0's SAMPLE_BLOCKs; with nodes: all the
  // machine-local candidates are asked of their own server too.
  for (const char* nodes : {"remote", "all"}) {
    auto aged = run(std::string(", historical: {layers: [1], max_age_steps: 6, nodes: ") + nodes + "}");
    const std::string m = aged->run_dir() + "/metrics.jsonl";
    const double hits = Sum(EpochValues(m, "hits")), lookups = Sum(EpochValues(m, "lookups"));
    const double bytes = Sum(EpochValues(m, "bytes_per_step")), exact_bytes = Sum(EpochValues(em, "bytes_per_step"));
    WARN("Cora, 2 partitions, block 0 aggregated, nodes " << nodes << ", max age 6: " << hits << " of " << lookups
                                                          << " rows read; bytes per step " << bytes / 3 << " against "
                                                          << exact_bytes / 3 << "; test accuracy " << FinalTestAcc(m)
                                                          << ", exact " << FinalTestAcc(em));
    CHECK(hits > 0.3 * lookups);
    CHECK(bytes < exact_bytes);
    CHECK(FinalTestAcc(m) >= 0.6);
  }
}

TEST_CASE("historical rows: settings that cannot work are one error naming the key", "[historical][config]") {
  TempDir dir;
  ExportSage(dir);
  auto p = RunDistgnn({"partition", "--dataset", CoraDir(), "--undirected", "--num-parts", "1", "--method", "metis",
                       "--name", "cora", "--out", dir / "parts"},
                      120);
  REQUIRE(p.exit_code == 0);
  auto check = [&](const std::string& train, const std::string& expect) {
    std::ofstream(dir / "job.yaml") << "job: j\npartition: parts/cora.json\nmachines:\n  - host: 127.0.0.1\n"
                                    << "ports: {server: 20000, trainer: 20002, rendezvous: 20004}\n"
                                    << "train: {model: m.pt, fanouts: [5, 10], " << train << "}\n";
    auto r = RunDistgnn({"config", "check", dir / "job.yaml"}, 60);
    INFO(r.output);
    CHECK(r.exit_code != 0);
    CHECK(r.output.find(expect) != std::string::npos);
  };
  check("historical: {layers: [2], max_age_steps: 5}", "train.historical.layers[0]");
  check("historical: {layers: [1]}", "'train.historical.max_age_steps': missing");
  check("historical: {layers: [1], max_age_steps: 5, nodes: some}", "train.historical.nodes");
  check("historical: {layers: [1], max_age_steps: -1}", "train.historical.max_age_steps");
  check("historical: {layers: [1], max_age_steps: 5}, embedding: {dim: 8}", "does not support learnt rows");
  check("historical: {layers: [1], max_age_steps: 5}, task: link", "trains node classification");
  auto r = RunDistgnn({"train-local", "--dataset", CoraDir(), "--model", dir / "m.pt", "--fanouts", "5,10",
                       "--historical-layers", "0", "--historical-max-age", "3", "--out", dir / "bad"},
                      60);
  INFO(r.output);
  CHECK(r.exit_code != 0);
  CHECK(r.output.find("--historical-layers") != std::string::npos);
}
