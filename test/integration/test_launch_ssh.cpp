// The ssh path of `distgnn copy` and `distgnn launch`, for real: an sshd on a
// loopback port with a throwaway host key and client key; the job's machines
// are reached through it (roles played by fake_role.py where a real role cannot
// behave as needed; real roles: test_launch_ssh_cora.cpp). Fails when sshd cannot
// start (scripts/setup.sh installs openssh-server) unless DISTGNN_ALLOW_SKIP=1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <functional>

#include "test/integration/sshd_fixture.h"
#include "test/support/skip.h"

using namespace dg::test;

TEST_CASE("copy sends each ssh machine its share, by rsync and by scp", "[launch][ssh]") {
  Sshd sshd;
  if (!sshd.skip_reason.empty()) DG_SKIP_OR_FAIL("no test sshd: " << sshd.skip_reason);
  TempDir remote;
  std::string ws = remote / "ws";
  FakeJob job(Behaviors{}, 2, sshd.MachineYaml(ws));

  auto dry = RunDistgnn({"copy", job.yaml, "--dry-run"}, 120);
  INFO(dry.output);
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.output.find("mkdir -p") != std::string::npos);
  CHECK(!std::filesystem::exists(ws));

  // The fake job's partition files are placeholders: nothing to verify (real ones: test_launch_ssh_cora.cpp).
  auto r = RunDistgnn({"copy", job.yaml, "--no-verify"}, 180);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* f : {"job.yaml", "parts/toy.json", "parts/orig_nids.npy", "parts/part0/indptr.npy",
                        "parts/part1/indptr.npy", "models/model.pt"})
    CHECK(std::filesystem::exists(ws + "/" + f));

  // scp, and machine 1 in its own workspace: it gets part1 only.
  std::string ws0 = remote / "scp0", ws1 = remote / "scp1";
  r = RunDistgnn({"copy", job.yaml, "--no-verify", "--scp", "--set", "machines[0].workspace=" + ws0, "--set",
                  "machines[1].workspace=" + ws1},
                 180);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(std::filesystem::exists(ws0 + "/parts/part0/indptr.npy"));
  CHECK(!std::filesystem::exists(ws0 + "/parts/part1"));
  CHECK(std::filesystem::exists(ws1 + "/parts/part1/indptr.npy"));
  CHECK(!std::filesystem::exists(ws1 + "/parts/part0"));
  CHECK(std::filesystem::exists(ws1 + "/models/model.pt"));
  CHECK(std::filesystem::exists(ws1 + "/job.yaml"));
}

// (The real roles over ssh: test_launch_ssh_cora.cpp.) A fake trainer exits 3
// and a fake server ignores SIGTERM: no real role does either.
TEST_CASE("a failing remote trainer stops every remote process via ssh", "[launch][ssh]") {
  Sshd sshd;
  if (!sshd.skip_reason.empty()) DG_SKIP_OR_FAIL("no test sshd: " << sshd.skip_reason);
  TempDir remote;
  std::string ws = remote / "ws";
  FakeJob job(Behaviors{{"trainer-1-0", R"({"sleep": 2, "exit": 3})"}, {"server-0-0", R"({"ignore_term": true})"}},
              2, sshd.MachineYaml(ws));
  REQUIRE(RunDistgnn({"copy", job.yaml, "--no-verify"}, 180).exit_code == 0);
  std::filesystem::copy_file(job.dir / "fake_roles.json", ws + "/fake_roles.json");
  FakeRoles fake;
  auto r = RunDistgnn({"launch", job.yaml, "--grace", "2"}, 60);
  double ended = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  INFO(r.output);
  CHECK(r.exit_code == 1);
  // From the trainer's failure to launch's end: notice it, SIGINT every process
  // over ssh, wait the 2 s grace for the server that ignores it, SIGKILL it over
  // ssh. About 5 s on an idle machine; the ssh round trips stretch on a loaded
  // one, so the bound grows with the round trip measured now (never below 12 s).
  double failed = job.ExitTime("trainer-1-0");
  REQUIRE(failed > 0);
  const double rtt = std::max(sshd.RoundTripSeconds(), sshd.RoundTripSeconds());
  INFO("ssh round trip " << rtt << " s");
  CHECK(ended - failed < std::max(12.0, 2 + 4 * rtt + 4));
  CHECK(r.output.find("[1/trainer/1] (trainer 0 of machine 1, host 127.0.0.1:" + std::to_string(job.trainer_port + 1) +
                      ") exited with code 3") != std::string::npos);
  CHECK(job.Pids().size() == 6);
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("an unreachable ssh host is named", "[launch][ssh]") {
  TempDir keys;
  std::ofstream(keys / "key") << "not a key";
  FakeJob job(Behaviors{}, 2,
              "    ssh: nobody@127.0.0.1\n    ssh_port: " + std::to_string(FreePort()) + "\n    ssh_key: " +
                  keys / "key" + "\n    ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null]\n");
  FakeRoles fake;
  auto r = RunDistgnn({"launch", job.yaml, "--grace", "1"}, 60);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  // Both machines' servers are unreachable; whichever ssh fails first is named.
  CHECK(r.output.find("/server/0]") != std::string::npos);
  CHECK(r.output.find("exited with code 255: ssh failed (host nobody@127.0.0.1 unreachable") != std::string::npos);
}
