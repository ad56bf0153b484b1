// `distgnn launch` mechanics with fake roles (test/integration/fake_role.py):
// order, log streaming, failure detection, teardown, nothing left behind.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>

#include "test/integration/test_launch_support.h"

using namespace dg::test;

namespace {
double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

TEST_CASE("launch runs servers, trainers and samplers and exits 0 when the trainers finish", "[launch]") {
  FakeRoles fake;
  FakeJob job(Behaviors{{"trainer", R"({"sleep": 1, "exit": 0})"}, {"server-0-0", R"({"grandchild": true})"}}, 2, "",
              "s3cret");
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", job.yaml, "--verbose", "--set", "train.epochs=3"}, job.dir / "launch.log");
  int rc = launch.Wait(60);
  std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  for (const char* label : {"[0/server/0]", "[1/server/0]", "[0/trainer/0]", "[1/trainer/1]", "[0/sampler/0]",
                            "[1/sampler/0]"})
    CHECK(out.find(label) != std::string::npos);
  CHECK(out.find("all 2 server(s) accept connections") != std::string::npos);
  // Logs per process, the token in the environment, the overrides passed on.
  std::string logs = job.dir / "runs/toy/logs";
  for (const char* f : {"0-server-0.log", "1-server-0.log", "0-trainer-0.log", "1-trainer-0.log", "0-sampler-0.log",
                        "1-sampler-0.log"})
    CHECK(std::filesystem::exists(logs + "/" + f));
  std::string tlog = ReadFile(logs + "/1-trainer-0.log");
  CHECK(tlog.find("fake trainer-1-0 job=toy-") != std::string::npos);
  CHECK(tlog.find("token=s3cret") != std::string::npos);
  CHECK(tlog.find("sets=train.epochs=3") != std::string::npos);
  CHECK(tlog.find("cwd=" + job.dir.path()) != std::string::npos);
  CHECK(ReadFile(logs + "/0-sampler-0.log").find("got SIGTERM") != std::string::npos);
  CHECK(job.Pids().size() == 7);  // 6 roles + the server's helper
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("without --verbose launch shows trainer 0 epochs and every warning as plain lines", "[launch]") {
  FakeRoles fake;
  const char* lead = R"J({"sleep": 1, "exit": 0, "say": [
      "[12:00:00.000] [trainer 0] info: epoch 1 step 5/10 loss 1.5000 acc 0.5000 9.0 steps/s wait 3% ETA 1s",
      "[12:00:00.100] [trainer 0] info: epoch 1: loss 1.2000 train_acc 0.6000 val_acc 0.5000 test_acc 0.4000 (1.00 s, wait 3%)",
      "[12:00:00.200] [trainer 0] info: model chatter"]})J";
  FakeJob job(Behaviors{{"trainer", R"({"sleep": 1, "exit": 0, "say": ["[t] [trainer 1] info: epoch 1: loss 9"]})"},
                        {"trainer-0-0", lead},
                        {"sampler-1-0", R"({"say": ["[t] [sampler 2] warning: slow server 1"]})"}});
  auto r = RunDistgnn({"launch", job.yaml}, 60);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("\nepoch 1: loss 1.2000 train_acc 0.6000 val_acc 0.5000") != std::string::npos);
  CHECK(r.output.find("[1/sampler/0] [t] [sampler 2] warning: slow server 1") != std::string::npos);
  CHECK(r.output.find("epoch 1: loss 9") == std::string::npos);       // not trainer 0
  CHECK(r.output.find("model chatter") == std::string::npos);         // trainer 0's other info lines
  CHECK(r.output.find("step 5/10") == std::string::npos);             // no progress bar without a terminal
  CHECK(r.output.find("fake server-0-0") == std::string::npos);       // only in the logs
  CHECK(r.output.find_first_of("\r\033") == std::string::npos);       // no control characters
  CHECK(ReadFile(job.dir / "runs/toy/logs/0-server-0.log").find("fake server-0-0") != std::string::npos);
}

TEST_CASE("a failing trainer makes launch exit non-zero within 15 s, naming it, with nothing left behind",
          "[launch]") {
  FakeRoles fake;
  FakeJob job(Behaviors{{"trainer-1-0", R"({"sleep": 2, "exit": 3})"},
               {"server-0-0", R"({"ignore_term": true, "grandchild": true})"}});
  Subprocess launch;
  auto t0 = std::chrono::steady_clock::now();
  launch.Start({DistgnnBin(), "launch", job.yaml, "--grace", "2"}, job.dir / "launch.log");
  int rc = launch.Wait(30);
  double took = Since(t0);
  std::string out = launch.Output();
  INFO(out);
  CHECK(rc != 0);
  CHECK(rc != -1);
  CHECK(took < 15);
  CHECK(out.find("[1/trainer/1] (trainer 0 of machine 1, host 127.0.0.1:" + std::to_string(job.trainer_port + 1) +
                 ") exited with code 3") != std::string::npos);
  CHECK(out.find("fake trainer-1-0 exits with 3") != std::string::npos);  // its last log lines
  CHECK(out.find("sending SIGKILL") != std::string::npos);                 // the server ignoring SIGTERM
  CHECK(job.Pids().size() == 7);
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("a server that never listens is named after the deadline", "[launch]") {
  FakeRoles fake;
  FakeJob job(Behaviors{{"server-1-0", R"({"no_listen": true})"}});
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", job.yaml, "--server-timeout", "2", "--grace", "2"}, job.dir / "launch.log");
  int rc = launch.Wait(30);
  std::string out = launch.Output();
  INFO(out);
  CHECK(rc == 1);
  CHECK(out.find("[1/server/0] (server 0 of machine 1, host 127.0.0.1:" + std::to_string(job.server_port + 1) +
                 ") did not accept connections") != std::string::npos);
  CHECK(out.find("fake server-1-0 job=") != std::string::npos);  // its log lines
  CHECK(job.Pids().count("trainer-0-0") == 0);                    // trainers never started
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("a server that exits early fails the launch", "[launch]") {
  FakeRoles fake;
  FakeJob job(Behaviors{{"server-0-0", R"({"no_listen": true, "sleep": 0.2, "exit": 0})"}});
  auto r = RunDistgnn({"launch", job.yaml, "--grace", "2"}, 30);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("[0/server/0]") != std::string::npos);
  CHECK(r.output.find("exited with code 0") != std::string::npos);
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("Ctrl-C (SIGINT) to launch stops every process", "[launch]") {
  FakeRoles fake;
  FakeJob job(Behaviors{{"server-1-0", R"({"grandchild": true})"}});  // trainers and samplers run until stopped
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", job.yaml, "--grace", "2"}, job.dir / "launch.log");
  REQUIRE(WaitFor(20, [&] { return job.Pids().size() == 7; }));
  launch.Signal(SIGINT);
  int rc = launch.Wait(15);
  INFO(launch.Output());
  CHECK(rc == 128 + SIGINT);
  CHECK(launch.Output().find("interrupted") != std::string::npos);
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("launch refuses a non-local host without ssh, and a bad config", "[launch]") {
  FakeRoles fake;
  FakeJob job(Behaviors{});
  auto r = RunDistgnn({"launch", job.yaml, "--set", "machines[1].host=10.255.255.1"}, 30);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("machines[1].host 10.255.255.1 is not this machine and has no ssh target") !=
        std::string::npos);
  r = RunDistgnn({"launch", job.yaml, "--set", "train.epoch=3"}, 30);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("did you mean 'train.epochs'") != std::string::npos);
  CHECK(job.Pids().empty());
}
