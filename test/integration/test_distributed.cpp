// Distributed training end to end: servers, samplers and trainers as separate
// `distgnn` processes on 127.0.0.1 training SAGE on partitions of bundled Cora.
// Checked: accuracy, identical parameters on every trainer, equal step counts,
// clean exits, the same parameters whatever the number of samplers, and the
// same loss curve as `train-local` for one partition.
#include <catch2/catch.hpp>

#include <sstream>

#include "test/integration/dist_job.h"
#include "test/integration/restart_support.h"

using namespace dg::test;

namespace {

DistJobOptions Opts(int parts, int samplers, int epochs = 60) {
  DistJobOptions o;
  o.parts = parts;
  o.samplers = samplers;
  o.epochs = epochs;
  return o;
}

}  // namespace

TEST_CASE("2 servers, 2 trainers, 2 samplers each train Cora to >= 0.78 with identical parameters",
          "[distributed][cora]") {
  DistJob two(Opts(2, 2));
  const std::string fp2 = RunToCompletion(two, 2, 0.78);

  SECTION("the same job with 1 sampler per trainer and with in-trainer sampling ends with the same parameters") {
    DistJob one(Opts(2, 1));
    CHECK(RunToCompletion(one, 2, 0.78) == fp2);
    DistJob none(Opts(2, 0));
    CHECK(RunToCompletion(none, 2, 0.78) == fp2);
  }
}

TEST_CASE("4 partitions with 1 sampler per trainer train Cora to >= 0.78", "[distributed][cora]") {
  DistJob job(Opts(4, 1));
  RunToCompletion(job, 4, 0.78);
}

TEST_CASE("1 partition, 1 trainer: the same loss curve as train-local", "[distributed][cora]") {
  DistJob job(Opts(1, 1, 10));
  RunToCompletion(job, 1, 0.0);
  auto r = RunDistgnn({"train-local", "--dataset", CoraDir(), "--undirected", "--model", job.dir() / "model.pt",
                       "--fanouts", "10,25", "--batch-size", "140", "--epochs", "10", "--lr", "0.01",
                       "--weight-decay", "0.0005", "--seed", "0", "--out", job.dir() / "local"},
                      240);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto dist = EpochLosses(job.run_dir() + "/metrics.jsonl");
  auto local = EpochLosses(job.dir() / "local/metrics.jsonl");
  REQUIRE(dist.size() == 10);
  REQUIRE(local.size() == dist.size());
  for (size_t e = 0; e < dist.size(); ++e) {
    INFO("epoch " << e + 1);
    CHECK(dist[e] == Approx(local[e]).epsilon(1e-4));
  }
}

TEST_CASE("2 trainers stopped after 3 epochs and resumed to 6 end with the parameters of an uninterrupted run",
          "[distributed][cora][resume]") {
  DistJob full(Opts(2, 1, 6));
  const std::string uninterrupted = RunToCompletion(full, 2, 0.0);
  DistJob part(Opts(2, 1, 3));
  RunToCompletion(part, 2, 0.0);
  // Only trainer 0 wrote checkpoint.pt; trainer 1 gets it by broadcast.
  const std::string resumed = RunToCompletion(part, 2, 0.0, {"--set", "train.epochs=6"}, {"--resume"});
  CHECK(resumed == uninterrupted);
  for (const char* t : {"trainer-0", "trainer-1"})
    CHECK(part.Proc(t).Output().find("resuming after epoch 3") != std::string::npos);
  CHECK(EpochLosses(part.run_dir() + "/metrics.jsonl") == EpochLosses(full.run_dir() + "/metrics.jsonl"));
}

TEST_CASE("2 trainers evaluate Cora layer by layer over 2 partitions with node batches' figures",
          "[distributed][cora][layerwise]") {
  // Training takes every neighbour too, so that evaluating with the training
  // fanouts is full-neighbour evaluation by node batches.
  DistJobOptions o = Opts(2, 0, 4);
  o.fanouts = "[100000, 100000]";
  o.extra_train_yaml = "intra_op_threads: 1";
  DistJob layers(o);
  auto r = RunDistgnn({"launch", layers.dir() / "job.yaml"}, 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  o.extra_train_yaml += ", eval_full_neighbors: false";
  DistJob batches(o);
  r = RunDistgnn({"launch", batches.dir() / "job.yaml"}, 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string log = ReadFile(layers.run_dir() + "/logs/0-trainer-0.log");
  CHECK(log.find("evaluation: every node layer by layer") != std::string::npos);
  CHECK(ReadFile(batches.run_dir() + "/logs/0-trainer-0.log").find("layer by layer") == std::string::npos);
  const std::string a = layers.run_dir() + "/metrics.jsonl", b = batches.run_dir() + "/metrics.jsonl";
  CHECK(EpochLosses(a) == EpochLosses(b));  // the same training
  for (const char* key : {"val_acc", "test_acc"}) CHECK(EpochValues(a, key) == EpochValues(b, key));
  const auto la = EpochValues(a, "val_loss"), lb = EpochValues(b, "val_loss");
  REQUIRE(la.size() == 4);
  REQUIRE(lb.size() == la.size());
  for (size_t e = 0; e < la.size(); ++e) CHECK(std::stod(la[e]) == Approx(std::stod(lb[e])).epsilon(1e-5));
}

