// `distgnn launch` mechanics: order, log streaming, token and overrides passed
// on, failure detection, teardown, nothing left behind. Real roles where they
// can produce the situation; fake roles (test/integration/fake_role.py) only for
// what a real role never does: ignore SIGTERM, spawn helper processes, never
// listen, and for a launch that must start no role at all.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

TEST_CASE("launch runs the real roles with the token and --set overrides and exits 0 when the trainers finish",
          "[launch][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir, {"", ""}, "s3cret");  // roles refuse each other's HELLO unless all got the token
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--verbose", "--set", "train.epochs=3"}, dir / "launch.log");
  int rc = launch.Wait(300);
  std::string out = launch.Output();
  INFO(out);
  REQUIRE(rc == 0);
  for (const char* label : {"[0/server/0]", "[1/server/0]", "[0/trainer/0]", "[1/trainer/1]", "[0/sampler/0]",
                            "[1/sampler/1]"})
    CHECK(out.find(label) != std::string::npos);
  CHECK(out.find("all 2 server(s) accept connections") != std::string::npos);
  std::string logs = dir / "runs/cora/logs";
  for (const char* f : {"0-server-0.log", "1-server-0.log", "0-trainer-0.log", "1-trainer-0.log", "0-sampler-0.log",
                        "0-sampler-1.log", "1-sampler-0.log", "1-sampler-1.log"})
    CHECK(std::filesystem::exists(logs + "/" + f));
  CHECK(EpochLines(dir / "runs/cora/metrics.jsonl") == 3);  // --set train.epochs=3 reached the trainers
  CHECK(ReadFile(logs + "/0-trainer-0.log").find("epoch 3:") != std::string::npos);
  CHECK(FindProcesses("--job-id " + JobId(out)).empty());
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
  launch.Start({DistgnnBin(), "launch", job.yaml, "--grace", "2"}, job.dir / "launch.log");
  int rc = launch.Wait(30);
  double ended = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string out = launch.Output();
  INFO(out);
  CHECK(rc != 0);
  CHECK(rc != -1);
  double failed = job.ExitTime("trainer-1-0");  // launch ends within 15 s of the failure
  REQUIRE(failed > 0);
  CHECK(ended - failed < 15);
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

TEST_CASE("a real server that exits early (a broken partition) fails the launch", "[launch][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  const std::string broken = dir / "parts/part1/indptr.npy";
  std::ofstream(broken, std::ios::trunc) << "not an npy file";
  auto r = RunDistgnn({"launch", dir / "job.yaml", "--grace", "2"}, 120);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("[1/server/0] (server 0 of machine 1, host 127.0.0.1:") != std::string::npos);
  CHECK(std::regex_search(r.output, std::regex("\\[1/server/0\\][^\\n]*exited with code [1-9]")));
  CHECK(r.output.find("indptr.npy") != std::string::npos);  // its log lines name the file
  CHECK(r.output.find("[0/trainer/0]") == std::string::npos);  // trainers never started
  CHECK(FindProcesses("--job-id " + JobId(r.output)).empty());
}

TEST_CASE("Ctrl-C (SIGINT) to launch stops every real process", "[launch][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--grace", "2", "--set", "train.epochs=500"},
               dir / "launch.log");
  std::string id;
  REQUIRE(WaitFor(60, [&] { return !(id = JobId(launch.Output())).empty(); }));
  REQUIRE(WaitFor(120, [&] { return EpochLines(dir / "runs/cora/metrics.jsonl") > 0; }));  // training runs
  CHECK(RoleProcesses(id, "sampler", 1).size() == 2);
  launch.Signal(SIGINT);
  int rc = launch.Wait(30);
  INFO(launch.Output());
  CHECK(rc == 128 + SIGINT);
  CHECK(launch.Output().find("interrupted") != std::string::npos);
  CHECK(WaitFor(5, [&] { return FindProcesses("--job-id " + id).empty(); }));
}

TEST_CASE("Ctrl-C (SIGINT) to launch also stops a role's helper processes", "[launch]") {
  FakeRoles fake;  // a real role has no helper processes
  FakeJob job(Behaviors{{"server-1-0", R"({"grandchild": true})"}});  // trainers and samplers run until stopped
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", job.yaml, "--grace", "2"}, job.dir / "launch.log");
  REQUIRE(WaitFor(90, [&] { return job.Pids().size() == 7; }));
  launch.Signal(SIGINT);
  int rc = launch.Wait(15);
  INFO(launch.Output());
  CHECK(rc == 128 + SIGINT);
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("launch refuses a non-local host without ssh, and a bad config", "[launch]") {
  FakeRoles fake;  // so a role that should not start leaves a trace (its pid file)
  FakeJob job(Behaviors{});
  auto r = RunDistgnn({"launch", job.yaml, "--set", "machines[1].host=10.255.255.1"}, 120);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("machines[1].host 10.255.255.1 is not this machine and has no ssh target") !=
        std::string::npos);
  r = RunDistgnn({"launch", job.yaml, "--set", "train.epoch=3"}, 120);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("did you mean 'train.epochs'") != std::string::npos);
  CHECK(job.Pids().empty());
}
