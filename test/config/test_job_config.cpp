// LoadJobConfig: a valid file, and every error class with a message that names
// the file, the key path and the line.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/base/version.h"
#include "config/job_config.h"
#include "test/support/test_support.h"

using dg::LoadJobConfig;
using dg::test::TempDir;

namespace {

const char kGood[] = R"(job: cora-sage
partition: parts/cora.json
token: ""
machines:
  - host: 127.0.0.1
  - host: 127.0.0.1
ports: {server: 30050, trainer: 30200, rendezvous: 29500}
processes: {servers: 1, trainers: 1, samplers_per_trainer: 2}
train:
  model: models/sage.pt
  fanouts: [10, 25]
  batch_size: 1000
  epochs: 10
  lr: 0.003
  optimizer: adam
  eval_every: 1
  seed: 0
output_dir: runs
)";

// A job folder with a 2-part partition json and a model file.
struct Job {
  TempDir dir;
  explicit Job(const std::string& yaml = kGood, int num_parts = 2) {
    std::filesystem::create_directories(dir / "parts");
    std::filesystem::create_directories(dir / "models");
    std::ofstream(dir / "parts/cora.json") << "{\"num_parts\": " << num_parts << ", \"graph_name\": \"cora\"}\n";
    std::ofstream(dir / "models/sage.pt") << "x";
    Write(yaml);
  }
  void Write(const std::string& yaml) { std::ofstream(dir / "job.yaml") << yaml; }
  std::string path() const { return dir / "job.yaml"; }
  // Loads expecting failure; returns the message.
  std::string Error(const std::vector<std::string>& sets = {}) const {
    auto r = LoadJobConfig(path(), sets);
    REQUIRE_FALSE(r.ok());
    return r.status().message();
  }
};

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

}  // namespace

TEST_CASE("a valid config loads with paths resolved against its folder", "[config]") {
  Job job;
  unsetenv("DISTGNN_TOKEN");
  auto r = LoadJobConfig(job.path());
  REQUIRE(r.ok());
  const dg::JobConfig& c = *r;
  CHECK(c.job == "cora-sage");
  CHECK(c.partition == job.dir / "parts/cora.json");
  CHECK(c.train.model == job.dir / "models/sage.pt");
  CHECK(c.output_dir == job.dir / "runs");
  CHECK(c.RunDir() == job.dir / "runs/cora-sage");
  CHECK(c.base_dir == job.dir.path());
  CHECK(c.num_machines() == 2);
  CHECK(c.samplers_per_trainer == 2);
  CHECK(c.train.fanouts == std::vector<int>{10, 25});
  CHECK(c.train.lr.value_or(-1) == Approx(0.003));
  CHECK(c.token.empty());
  CHECK(c.ServerPort(1, 0) == 30051);
  CHECK(c.TrainerPort(1, 0) == 30201);
  CHECK(c.max_frame_bytes == (int64_t(1) << 30));  // defaults
  CHECK(c.train.credits == 4);
}

TEST_CASE("token comes from DISTGNN_TOKEN when the file says \"\"", "[config]") {
  Job job;
  setenv("DISTGNN_TOKEN", "from-env", 1);
  auto r = LoadJobConfig(job.path());
  unsetenv("DISTGNN_TOKEN");
  REQUIRE(r.ok());
  CHECK(r->token == "from-env");
  job.Write(Replace(kGood, "token: \"\"", "token: in-file"));
  setenv("DISTGNN_TOKEN", "from-env", 1);
  r = LoadJobConfig(job.path());
  unsetenv("DISTGNN_TOKEN");
  CHECK(r->token == "in-file");
}

TEST_CASE("set overrides (--set) apply before validation", "[config]") {
  Job job;
  auto r = LoadJobConfig(job.path(), {"train.epochs=3", "train.fanouts=[5, 10, 15]", "machines[1].host=localhost",
                                      "network.heartbeat_seconds=0.5", "train.save_predictions=true"});
  REQUIRE(r.ok());
  CHECK(r->train.epochs == 3);
  CHECK(r->train.fanouts == std::vector<int>{5, 10, 15});
  CHECK(r->machines[1].host == "localhost");
  CHECK(r->heartbeat_seconds == Approx(0.5));
  CHECK(r->train.save_predictions);
  CHECK(r->overrides.size() == 5);
}

TEST_CASE("network.connect_wait_seconds defaults to 120 and is checked", "[config]") {
  Job job;
  auto d = LoadJobConfig(job.path(), {});
  REQUIRE(d.ok());
  CHECK(d->connect_wait_seconds == Approx(120));
  auto r = LoadJobConfig(job.path(), {"network.connect_wait_seconds=7.5"});
  REQUIRE(r.ok());
  CHECK(r->connect_wait_seconds == Approx(7.5));
  auto bad = LoadJobConfig(job.path(), {"network.connect_wait_seconds=0"});
  REQUIRE(!bad.ok());
  CHECK(bad.status().message().find("network.connect_wait_seconds") != std::string::npos);
}

TEST_CASE("distgnn --version prints the version", "[config]") {
  auto r = dg::test::RunDistgnn({"--version"}, 30);
  CHECK(r.exit_code == 0);
  CHECK(r.output == std::string("distgnn ") + dg::kDistgnnVersion + "\n");
}

TEST_CASE("unknown keys are named with the closest valid key and the line", "[config]") {
  Job job(Replace(kGood, "  epochs: 10", "  epoch: 10"));
  std::string e = job.Error();
  CHECK(e.find("job.yaml:13:") != std::string::npos);
  CHECK(e.find("key 'train.epoch': unknown key; did you mean 'train.epochs'?") != std::string::npos);

  job.Write(Replace(kGood, "output_dir: runs", "outptu_dir: runs"));
  e = job.Error();
  CHECK(e.find("job.yaml:18: key 'outptu_dir': unknown key; did you mean 'output_dir'?") != std::string::npos);

  job.Write(Replace(kGood, "  - host: 127.0.0.1\nports", "  - host: 127.0.0.1\n    workspce: /srv\nports"));
  e = job.Error();
  CHECK(e.find("key 'machines[1].workspce'") != std::string::npos);
  CHECK(e.find("did you mean 'machines[1].workspace'?") != std::string::npos);

  job.Write(Replace(kGood, "output_dir: runs", "something_else: 1"));
  e = job.Error();
  CHECK(e.find("key 'something_else': unknown key; valid keys here: job, partition") != std::string::npos);
}

TEST_CASE("wrong types and out-of-range values name key, line and expectation", "[config]") {
  Job job(Replace(kGood, "epochs: 10", "epochs: ten"));
  CHECK(job.Error() == job.path() + ":13: key 'train.epochs': expected an integer in [1, 1000000], got 'ten'");

  job.Write(Replace(kGood, "fanouts: [10, 25]", "fanouts: [10, x]"));
  std::string e = job.Error();
  CHECK(e.find(":11: key 'train.fanouts[1]': expected an integer") != std::string::npos);
  CHECK(e.find("got 'x'") != std::string::npos);

  job.Write(Replace(kGood, "fanouts: [10, 25]", "fanouts: 10"));
  CHECK(job.Error().find("key 'train.fanouts': expected a non-empty list") != std::string::npos);

  job.Write(Replace(kGood, "fanouts: [10, 25]", "fanouts: [10, 0]"));
  CHECK(job.Error().find("key 'train.fanouts[1]': expected a fanout >= 1 or -1") != std::string::npos);

  job.Write(Replace(kGood, "server: 30050", "server: 70000"));
  CHECK(job.Error().find(":7: key 'ports.server': expected an integer in [1, 65535], got 70000") != std::string::npos);

  job.Write(Replace(kGood, "lr: 0.003", "lr: -1"));
  CHECK(job.Error().find("key 'train.lr': expected a number > 0") != std::string::npos);

  // A job's errors name its keys and file, never train-local's flags.
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adamw"));
  e = job.Error();
  CHECK(e == job.path() + ":15: key 'train.optimizer': expected adam or sgd, got 'adamw'");
  CHECK(e.find("--optimizer") == std::string::npos);
  // train.momentum is read from the file and checked with its line.
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: sgd\n  momentum: 0.9"));
  auto sgd = LoadJobConfig(job.path());
  REQUIRE(sgd.ok());
  CHECK(sgd->train.optimizer == dg::OptimizerKind::kSgd);
  CHECK(sgd->train.momentum == Approx(0.9));
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adam\n  momentum: 0.9"));
  CHECK(job.Error() == job.path() + ":16: key 'train.momentum': goes with train.optimizer sgd (adam keeps its own moments)");
  job.Write(Replace(kGood, "lr: 0.003", "lr: 0"));  // a range rule of ValidateTrainSpec, with the key's line
  CHECK(job.Error() == job.path() + ":14: key 'train.lr': expected a number > 0 and <= 1000, got 0");
  job.Write(kGood);
  CHECK(job.Error({"train.lr=0"}) == job.path() + " (--set train.lr=0): key 'train.lr': expected a number > 0 and <= 1000, got 0");
  job.Write(Replace(kGood, "batch_size: 1000", "batch_size: 0"));
  e = job.Error();
  CHECK(e == job.path() + ":12: key 'train.batch_size': expected an integer in [1, 100000000], got 0");
  CHECK(e.find("--batch-size") == std::string::npos);

  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adagrad"));
  CHECK(job.Error().find("key 'train.optimizer': expected adam or sgd, got 'adagrad'") != std::string::npos);

  job.Write(Replace(kGood, "eval_every: 1", "eval_every: 1\n  select_by: best"));
  CHECK(job.Error().find("key 'train.select_by': expected val_metric or val_loss, got 'best'") != std::string::npos);
  job.Write(Replace(kGood, "eval_every: 1", "eval_every: 1\n  select_by: val_loss"));
  auto by_loss = LoadJobConfig(job.path());
  REQUIRE(by_loss.ok());
  CHECK(by_loss->train.select_by == dg::ModelSelection::kValLoss);

  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adam\n  embedding: {dim: 16, optimizer: adam}"));
  CHECK(job.Error().find("key 'train.embedding.optimizer': expected sparse_adam or sparse_adagrad, got 'adam'") !=
        std::string::npos);
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adam\n  embedding: {optimizer: sparse_adam}"));
  CHECK(job.Error().find("key 'train.embedding.dim': missing") != std::string::npos);
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adam\n  embedding: {dim: 16, weight_decay: 0.001}"));
  auto decayed = LoadJobConfig(job.path());
  REQUIRE(decayed.ok());
  CHECK(decayed->train.embedding.weight_decay == 0.001);
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adam\n  embedding: {dim: 16, weight_decay: -1}"));
  CHECK(job.Error().find("key 'train.embedding.weight_decay': expected a number >= 0") != std::string::npos);
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adam\n  embedding: {dim: 16, weight_decay: lots}"));
  CHECK(job.Error().find("train.embedding.weight_decay") != std::string::npos);
  job.Write(Replace(kGood, "optimizer: adam", "optimizer: adam\n  embedding: {dim: 16, rate: 1}"));
  CHECK(job.Error().find("train.embedding") != std::string::npos);
  CHECK(job.Error().find("rate") != std::string::npos);

  job.Write(Replace(kGood, "servers: 1,", "servers: 0,"));
  CHECK(job.Error().find("key 'processes.servers': expected an integer in [1, 64], got 0") != std::string::npos);

  job.Write(std::string(kGood) + "network: {heartbeat_seconds: 5, peer_timeout_seconds: 2}\n");
  CHECK(job.Error().find("key 'network.peer_timeout_seconds': must be larger than") != std::string::npos);

  job.Write(Replace(kGood, "job: cora-sage", "job: cora sage/x"));
  CHECK(job.Error().find(":1: key 'job': expected letters, digits") != std::string::npos);

  job.Write(Replace(kGood, "machines:\n  - host: 127.0.0.1\n  - host: 127.0.0.1", "machines: 127.0.0.1"));
  CHECK(job.Error().find("key 'machines': expected a non-empty list") != std::string::npos);
}

TEST_CASE("missing keys and files are named", "[config]") {
  Job job(Replace(kGood, "job: cora-sage\n", ""));
  CHECK(job.Error().find("key 'job': missing") != std::string::npos);

  job.Write(Replace(kGood, "  model: models/sage.pt\n", ""));
  CHECK(job.Error().find("key 'train.model': missing") != std::string::npos);

  job.Write(Replace(kGood, "models/sage.pt", "models/gat.pt"));
  std::string e = job.Error();
  CHECK(e.find(":10: key 'train.model': model file '" + job.dir / "models/gat.pt" + "' does not exist") !=
        std::string::npos);

  job.Write(Replace(kGood, "parts/cora.json", "parts/nope.json"));
  CHECK(job.Error().find(":2: key 'partition': partition config '" + job.dir / "parts/nope.json") != std::string::npos);

  job.Write(Replace(kGood, "  - host: 127.0.0.1\nports",
                    "  - host: 127.0.0.1\n    ssh: me@node1\n    ssh_key: keys/id\nports"));
  CHECK(job.Error().find("key 'machines[1].ssh_key': ssh identity file") != std::string::npos);

  auto r = LoadJobConfig(job.dir / "absent.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == job.dir / "absent.yaml" + ": config file not found");
}

TEST_CASE("the machine count must equal num_parts", "[config]") {
  Job job(kGood, 3);
  std::string e = job.Error();
  CHECK(e.find("job.yaml:5: key 'machines': 2 machines listed, but") != std::string::npos);
  CHECK(e.find("has num_parts 3") != std::string::npos);
}

TEST_CASE("derived ports that clash or leave the range are refused", "[config]") {
  Job job;
  // 2 machines x 30 servers from 30050 reach 30109; trainers from 30060 collide on 127.0.0.1.
  std::string e = job.Error({"processes.servers=30", "ports.trainer=30060"});
  CHECK(e.find("key 'ports'") != std::string::npos);
  CHECK(e.find("port 30060 on host 127.0.0.1 is used by both server 10 of machine 0 and trainer 0 of machine 0") !=
        std::string::npos);

  e = job.Error({"ports.rendezvous=30051"});
  CHECK(e.find("port 30051 on host 127.0.0.1 is used by both server 0 of machine 1 and the trainers' rendezvous") !=
        std::string::npos);

  // Different hosts do not clash: trainer 0 of machine 0 (10.0.0.1:30051) vs server 0 of machine 1 (10.0.0.2:30051).
  CHECK(LoadJobConfig(job.path(), {"machines[0].host=10.0.0.1", "machines[1].host=10.0.0.2", "ports.trainer=30051",
                                   "ports.rendezvous=30052"})
            .ok());

  e = job.Error({"ports.server=65535"});
  CHECK(e.find("key 'ports.server': derived ports run from 65535 to 65536") != std::string::npos);
}

TEST_CASE("bad overrides are named", "[config]") {
  Job job;
  CHECK(job.Error({"train.epochs"}).find("--set train.epochs: no '='") != std::string::npos);
  CHECK(job.Error({"machines[5].host=x"}).find("'machines' has 2 entries, no [5]") != std::string::npos);
  CHECK(job.Error({"train.epochs.x=1"}).find("'train.epochs' is not a map") != std::string::npos);
  CHECK(job.Error({"train.epochs=abc"}) ==
        job.path() + " (--set train.epochs=abc): key 'train.epochs': expected an integer in [1, 1000000], got 'abc'");
  CHECK(job.Error({"train.epoch=3"}).find("(--set train.epoch=3): key 'train.epoch': unknown key; did you mean "
                                          "'train.epochs'?") != std::string::npos);
}

TEST_CASE("YAML syntax errors name the line", "[config]") {
  Job job("job: x\ntrain:\n  model: [a\n");
  std::string e = job.Error();
  CHECK(e.find(job.path() + ":") == 0);
  CHECK(e.find("YAML syntax error") != std::string::npos);
  job.Write("- just\n- a list\n");
  CHECK(job.Error().find("expected a map of keys") != std::string::npos);
}

TEST_CASE("the bundled examples are valid configs", "[config]") {
  Job job;
  for (const char* name : {"cora-local.yaml", "cluster-ssh.yaml"}) {
    std::string path = dg::test::SourceDir() + "/config/examples/" + name;
    INFO(path);
    int parts = std::string(name) == "cora-local.yaml" ? 2 : 4;
    Job data("", parts);
    auto r = LoadJobConfig(path, {"partition=" + data.dir / "parts/cora.json",
                                  "train.model=" + data.dir / "models/sage.pt"});
    INFO((r.ok() ? std::string("ok") : r.status().message()));
    CHECK(r.ok());
  }
}

TEST_CASE("metrics ports are derived per process from ports.metrics and checked for clashes", "[config][metrics]") {
  Job job;
  auto off = LoadJobConfig(job.path());
  REQUIRE(off.ok());
  CHECK(off->metrics_port == 0);
  CHECK(off->MetricsPort(dg::MetricsRole::kServer, 0, 0) == 0);  // off
  // 2 machines x (1 server + 1 trainer + 2 samplers): P = 4.
  auto on = LoadJobConfig(job.path(), {"ports.metrics=30400"});
  REQUIRE(on.ok());
  CHECK(on->MetricsPort(dg::MetricsRole::kServer, 0, 0) == 30400);
  CHECK(on->MetricsPort(dg::MetricsRole::kTrainer, 0, 0) == 30401);
  CHECK(on->MetricsPort(dg::MetricsRole::kSampler, 0, 1) == 30403);
  CHECK(on->MetricsPort(dg::MetricsRole::kServer, 1, 0) == 30404);
  CHECK(on->MetricsPort(dg::MetricsRole::kSampler, 1, 1) == 30407);
  std::string e = job.Error({"ports.metrics=30049"});  // 30049..30056 covers server 0 of machine 0 (30050)
  CHECK(e.find("port 30050 on host 127.0.0.1 is used by both server 0 of machine 0 and metrics of trainer 0 of "
                "machine 0 (ports.metrics)") != std::string::npos);
  e = job.Error({"ports.metrics=65533"});
  CHECK(e.find("key 'ports.metrics'") != std::string::npos);
}

TEST_CASE("DISTGNN_TOKEN_FILE: read when private, refused when others may read it", "[config][security]") {
  Job job;
  unsetenv("DISTGNN_TOKEN");
  const std::string file = job.dir / "token";
  std::ofstream(file) << "file-token\n";
  std::filesystem::permissions(file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  setenv("DISTGNN_TOKEN_FILE", file.c_str(), 1);
  auto r = LoadJobConfig(job.path());
  REQUIRE(r.ok());
  CHECK(r->token == "file-token");
  CHECK_FALSE(r->token_from_yaml);
  std::filesystem::permissions(file, std::filesystem::perms::group_read, std::filesystem::perm_options::add);
  r = LoadJobConfig(job.path());
  unsetenv("DISTGNN_TOKEN_FILE");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("has mode 640: a token file must be readable by its owner only") !=
        std::string::npos);
}

TEST_CASE("limits: keys load, defaults hold, bad values name the key", "[config][security]") {
  Job job;
  unsetenv("DISTGNN_TOKEN");
  auto r = LoadJobConfig(job.path());
  REQUIRE(r.ok());
  CHECK(r->limits.mutable_tensor_bytes == -1);  // half the server's RAM
  CHECK(r->limits.max_fanout == 1000000);
  CHECK(r->limits.max_pending == 4096);
  job.Write(std::string(kGood) + "limits: {mutable_tensor_bytes: 1000, max_fanout: 50, max_pending_bytes: 7, "
                                 "max_pending: 3, max_threads_per_connection: 2}\n");
  r = LoadJobConfig(job.path());
  REQUIRE(r.ok());
  CHECK(r->limits.mutable_tensor_bytes == 1000);
  CHECK(r->limits.max_fanout == 50);
  CHECK(r->limits.max_pending_bytes == 7);
  CHECK(r->limits.max_pending == 3);
  CHECK(r->limits.max_threads_per_connection == 2);
  job.Write(std::string(kGood) + "limits: {max_fanout: 0}\n");
  CHECK(job.Error().find("key 'limits.max_fanout': expected an integer in [1, ") != std::string::npos);
  job.Write(std::string(kGood) + "limits: {max_fanot: 5}\n");
  CHECK(job.Error().find("did you mean 'limits.max_fanout'?") != std::string::npos);
}

TEST_CASE("train.input_aggregation and train.feature_wire_dtype: values, with or without sampler processes", "[config][wire]") {
  Job job;
  auto ok = LoadJobConfig(job.path(), {"processes.samplers_per_trainer=0", "train.input_aggregation=on",
                                       "train.feature_wire_dtype=bfloat16"});
  INFO(ok.status().ToString());
  REQUIRE(ok.ok());
  CHECK(ok->train.input_aggregation == dg::InputAggregation::kOn);
  CHECK(ok->train.feature_wire_dtype == dg::WireDType::kBFloat16);
  auto defaults = LoadJobConfig(job.path());
  REQUIRE(defaults.ok());
  CHECK(defaults->train.input_aggregation == dg::InputAggregation::kAuto);
  CHECK(defaults->train.feature_wire_dtype == dg::WireDType::kFloat32);
  CHECK(job.Error({"train.input_aggregation=yes"}).find("key 'train.input_aggregation': expected auto, on or off, got 'yes'") !=
        std::string::npos);
  CHECK(job.Error({"train.feature_wire_dtype=half"})
            .find("key 'train.feature_wire_dtype': expected float32, float16 or bfloat16, got 'half'") !=
        std::string::npos);
  // Sampler processes take both (the MINIBATCH carries block 0's mean and 16-bit rows).
  CHECK(LoadJobConfig(job.path(), {"train.input_aggregation=on", "train.feature_wire_dtype=float16"}).ok());
}

TEST_CASE("restart and step checkpoint keys: defaults, values, bad values named", "[config][restart]") {
  Job job;
  auto d = LoadJobConfig(job.path(), {});
  REQUIRE(d.ok());
  CHECK(d->restart.max == 0);
  CHECK(d->restart.wait_seconds == Approx(60));
  CHECK(d->train.checkpoint_every_steps == 0);
  CHECK(d->train.checkpoint_keep == 2);
  job.Write(std::string(kGood) + "restart: {max: 3, wait_seconds: 12.5}\n");
  auto r = LoadJobConfig(job.path(), {"train.checkpoint_every_steps=50", "train.checkpoint_keep=4"});
  REQUIRE(r.ok());
  CHECK(r->restart.max == 3);
  CHECK(r->restart.wait_seconds == Approx(12.5));
  CHECK(r->train.checkpoint_every_steps == 50);
  CHECK(r->train.checkpoint_keep == 4);
  CHECK(job.Error({"train.checkpoint_keep=0"}).find("train.checkpoint_keep") != std::string::npos);
  CHECK(job.Error({"train.checkpoint_every_steps=-1"}).find("train.checkpoint_every_steps") != std::string::npos);
  CHECK(job.Error({"restart.max=-2"}).find("restart.max") != std::string::npos);
  job.Write(std::string(kGood) + "restart: {retries: 3}\n");
  CHECK(job.Error().find("restart") != std::string::npos);
}

TEST_CASE("train.grad_clip and train.lr_schedule: defaults, both forms, every refusal named by its key and line",
          "[config][schedule]") {
  Job job;
  auto d = LoadJobConfig(job.path(), {});
  REQUIRE(d.ok());
  CHECK(d->train.grad_clip == 0);
  CHECK(d->train.lr_schedule.kind == dg::LrScheduleKind::kNone);
  const auto with = [](const std::string& lines) { return Replace(kGood, "optimizer: adam", "optimizer: adam\n" + lines); };
  job.Write(with("  grad_clip: 1.5\n  lr_schedule: {kind: cosine, warmup_steps: 10, min_lr: 0.0001}"));
  auto cos = LoadJobConfig(job.path());
  REQUIRE(cos.ok());
  CHECK(cos->train.grad_clip == 1.5);
  CHECK(cos->train.lr_schedule.kind == dg::LrScheduleKind::kCosine);
  CHECK(cos->train.lr_schedule.warmup_steps == 10);
  CHECK(cos->train.lr_schedule.min_lr == 0.0001);
  job.Write(with("  lr_schedule: {kind: step, step_size: 100, gamma: 0.5}"));
  auto step = LoadJobConfig(job.path());
  REQUIRE(step.ok());
  CHECK(step->train.lr_schedule.kind == dg::LrScheduleKind::kStep);
  CHECK(step->train.lr_schedule.step_size == 100);
  CHECK(step->train.lr_schedule.gamma_or_default() == 0.5);
  job.Write(with("  lr_schedule: cosine"));
  auto word = LoadJobConfig(job.path());
  REQUIRE(word.ok());
  CHECK(word->train.lr_schedule.kind == dg::LrScheduleKind::kCosine);
  CHECK_FALSE(word->train.lr_schedule.warmup_steps.has_value());

  const std::vector<std::pair<std::string, std::string>> refused = {
      {"  grad_clip: -1", "key 'train.grad_clip': expected a number >= 0 and <= 1e+09 (0 = no clipping)"},
      {"  grad_clip: lots", "key 'train.grad_clip'"},
      {"  lr_schedule: linear", "key 'train.lr_schedule': expected none, cosine or step, got 'linear'"},
      {"  lr_schedule: {warmup_steps: 3}", "key 'train.lr_schedule.kind': missing (none, cosine or step)"},
      {"  lr_schedule: {kind: cosine, warmup: 3}", "warmup"},
      {"  lr_schedule: {kind: step}", "key 'train.lr_schedule.step_size': missing"},
      {"  lr_schedule: {kind: step, step_size: 0}", "key 'train.lr_schedule.step_size': expected an integer in [1,"},
      {"  lr_schedule: {kind: step, step_size: 5, gamma: 2}",
       "key 'train.lr_schedule.gamma': expected a number > 0 and <= 1, got 2"},
      {"  lr_schedule: {kind: step, step_size: 5, min_lr: 0.1}",
       "key 'train.lr_schedule.min_lr': goes with train.lr_schedule.kind cosine (it is step)"},
      {"  lr_schedule: {kind: cosine, gamma: 0.5}",
       "key 'train.lr_schedule.gamma': goes with train.lr_schedule.kind step (it is cosine)"},
      {"  lr_schedule: {kind: none, warmup_steps: 5}",
       "key 'train.lr_schedule.warmup_steps': goes with train.lr_schedule.kind cosine or step (it is none)"},
      {"  lr_schedule: {kind: cosine, warmup_steps: -5}", "key 'train.lr_schedule.warmup_steps': expected an integer"},
      {"  lr_schedule: {kind: cosine, min_lr: 5}", "key 'train.lr_schedule.min_lr': must be <= train.lr"},
  };
  for (const auto& [lines, message] : refused) {
    INFO(lines);
    job.Write(with(lines));
    const std::string error = job.Error();
    INFO(error);
    CHECK(error.find(message) != std::string::npos);
    CHECK(error.find("job.yaml:") != std::string::npos);  // the line of the key
  }
}

TEST_CASE("tls: one line turns TLS on with a throw-away CA, a map names the files, mistakes name the key",
          "[config][tls]") {
  Job job;
  auto off = LoadJobConfig(job.path());
  REQUIRE(off.ok());
  CHECK_FALSE(off->tls.enabled);
  auto on = LoadJobConfig(job.path(), {"tls=true"});
  INFO((on.ok() ? "" : on.status().message()));
  REQUIRE(on.ok());
  CHECK(on->tls.enabled);
  CHECK(on->tls.throwaway);
  CHECK(on->tls.dir == on->RunDir() + "/tls");
  CHECK(on->tls.ca == on->RunDir() + "/tls/ca.crt");
  const auto trainer = on->TlsFilesFor("trainer", 1);
  CHECK(trainer.cert == on->RunDir() + "/tls/trainer-127.0.0.1.crt");
  CHECK(trainer.key == on->RunDir() + "/tls/trainer-127.0.0.1.key");
  CHECK(on->TlsFilesFor("launcher", -1).cert == on->RunDir() + "/tls/launcher.crt");

  job.Write(std::string(kGood) + "tls: {ca: pki/ca.crt, dir: pki}\n");
  auto files = LoadJobConfig(job.path(), {"machines[1].tls_dir=/etc/distgnn"});
  INFO((files.ok() ? "" : files.status().message()));
  REQUIRE(files.ok());
  CHECK(files->tls.enabled);
  CHECK_FALSE(files->tls.throwaway);
  CHECK(files->tls.ca == job.dir / "pki/ca.crt");
  CHECK(files->TlsFilesFor("server", 0).cert == job.dir / "pki/server-127.0.0.1.crt");
  CHECK(files->TlsFilesFor("server", 1).cert == "/etc/distgnn/server-127.0.0.1.crt");
  CHECK(files->TlsFilesFor("server", 1).cert_key == "the certificate (machines[1].tls_dir)");

  job.Write(std::string(kGood) + "tls: maybe\n");
  CHECK_THAT(job.Error(), Catch::Contains("job.yaml:19: key 'tls': expected true or false, got 'maybe'"));
  job.Write(std::string(kGood) + "tls: {ca: pki/ca.crt, cert: x.crt}\n");
  CHECK_THAT(job.Error(), Catch::Contains("key 'tls.cert': unknown key; valid keys here: enabled, ca, dir, https_metrics"));
  job.Write(std::string(kGood) + "tls: {dir: pki, https_metrics: true}\n");
  auto https = LoadJobConfig(job.path());
  REQUIRE(https.ok());
  CHECK(https->tls.https_metrics);
  CHECK_FALSE(on->tls.https_metrics);
  job.Write(std::string(kGood) + "tls: {enabled: false, https_metrics: true}\n");
  CHECK_THAT(job.Error(), Catch::Contains("key 'tls.https_metrics': needs TLS on"));
  job.Write(std::string(kGood) + "tls: {https_metrics: yes please}\n");
  CHECK_THAT(job.Error(), Catch::Contains("key 'tls.https_metrics': expected true or false"));
}
