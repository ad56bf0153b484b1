// The ssh path of `distgnn copy` and `distgnn launch`, for real: an sshd on a
// loopback port with a throwaway host key and client key; the job's machines
// are reached through it (roles played by fake_role.py). Skipped, visibly, when
// sshd cannot start (scripts/setup.sh installs openssh-server).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <chrono>
#include <functional>

#include "test/integration/test_launch_support.h"

using namespace dg::test;

namespace {

int Run(const std::string& cmd) { return std::system(cmd.c_str()); }

bool PortOpen(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  close(fd);
  return ok;
}

// sshd -D on 127.0.0.1:<free port>, accepting only a fresh key for the current user.
struct Sshd {
  TempDir dir;
  Subprocess proc;
  int port = 0;
  std::string key, user, skip_reason;

  Sshd() {
    const char* sshd = "/usr/sbin/sshd";
    if (access(sshd, X_OK) != 0 || Run("command -v ssh >/dev/null && command -v ssh-keygen >/dev/null") != 0) {
      skip_reason = "sshd/ssh/ssh-keygen not installed (scripts/setup.sh installs openssh-server)";
      return;
    }
    passwd* pw = getpwuid(getuid());
    user = pw ? pw->pw_name : "root";
    key = dir / "id_ed25519";
    if (Run("ssh-keygen -q -t ed25519 -N '' -f " + dir / "host_key" + " && ssh-keygen -q -t ed25519 -N '' -f " + key +
            " && cp " + key + ".pub " + dir / "authorized_keys") != 0) {
      skip_reason = "ssh-keygen failed";
      return;
    }
    mkdir("/run/sshd", 0755);  // sshd's privilege separation directory
    port = FreePort();
    std::ofstream c(dir / "sshd_config");
    c << "Port " << port << "\nListenAddress 127.0.0.1\nHostKey " << dir / "host_key"
      << "\nAuthorizedKeysFile " << dir / "authorized_keys"
      << "\nPidFile " << dir / "sshd.pid"
      << "\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
         "UsePAM no\nSubsystem sftp internal-sftp\nStrictModes no\nMaxStartups 100\nMaxSessions 100\nLogLevel ERROR\n";
    c.close();
    proc.Start({sshd, "-D", "-e", "-f", dir / "sshd_config"}, dir / "sshd.log");
    if (!WaitFor(10, [&] { return !proc.running() || PortOpen(port); }) || !proc.running()) {
      skip_reason = "sshd did not start: " + proc.Output();
      return;
    }
    if (Run("ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p " +
            std::to_string(port) + " -i " + key + " " + user + "@127.0.0.1 true") != 0)
      skip_reason = "ssh into the test sshd failed: " + proc.Output();
  }

  // YAML lines for a machine entry reached through this sshd.
  std::string MachineYaml(const std::string& workspace) const {
    return "    ssh: " + user + "@127.0.0.1\n    ssh_port: " + std::to_string(port) + "\n    ssh_key: " + key +
           "\n    workspace: " + workspace +
           "\n    ssh_options: [StrictHostKeyChecking=no, UserKnownHostsFile=/dev/null, LogLevel=ERROR]\n";
  }
};

bool SkipIf(const Sshd& sshd) {
  if (sshd.skip_reason.empty()) return false;
  WARN("SKIPPED ssh test: " << sshd.skip_reason);
  return true;
}

}  // namespace

TEST_CASE("copy sends each ssh machine its share, by rsync and by scp", "[launch][ssh]") {
  Sshd sshd;
  if (SkipIf(sshd)) return;
  TempDir remote;
  std::string ws = remote / "ws";
  FakeJob job(Behaviors{}, 2, sshd.MachineYaml(ws));

  auto dry = RunDistgnn({"copy", job.yaml, "--dry-run"}, 30);
  INFO(dry.output);
  REQUIRE(dry.exit_code == 0);
  CHECK(dry.output.find("mkdir -p") != std::string::npos);
  CHECK(!std::filesystem::exists(ws));

  auto r = RunDistgnn({"copy", job.yaml}, 60);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* f : {"job.yaml", "parts/toy.json", "parts/orig_nids.npy", "parts/part0/indptr.npy",
                        "parts/part1/indptr.npy", "models/model.pt"})
    CHECK(std::filesystem::exists(ws + "/" + f));

  // scp, and machine 1 in its own workspace: it gets part1 only.
  std::string ws0 = remote / "scp0", ws1 = remote / "scp1";
  r = RunDistgnn({"copy", job.yaml, "--scp", "--set", "machines[0].workspace=" + ws0, "--set",
                  "machines[1].workspace=" + ws1},
                 60);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(std::filesystem::exists(ws0 + "/parts/part0/indptr.npy"));
  CHECK(!std::filesystem::exists(ws0 + "/parts/part1"));
  CHECK(std::filesystem::exists(ws1 + "/parts/part1/indptr.npy"));
  CHECK(!std::filesystem::exists(ws1 + "/parts/part0"));
  CHECK(std::filesystem::exists(ws1 + "/models/model.pt"));
  CHECK(std::filesystem::exists(ws1 + "/job.yaml"));
}

TEST_CASE("launch over ssh runs the roles in the workspace and exits 0", "[launch][ssh]") {
  Sshd sshd;
  if (SkipIf(sshd)) return;
  TempDir remote;
  std::string ws = remote / "ws";
  FakeJob job(Behaviors{{"trainer", R"({"sleep": 1, "exit": 0})"}}, 2, sshd.MachineYaml(ws), "s3cret");
  REQUIRE(RunDistgnn({"copy", job.yaml}, 60).exit_code == 0);
  std::filesystem::copy_file(job.dir / "fake_roles.json", ws + "/fake_roles.json");
  FakeRoles fake;
  auto r = RunDistgnn({"launch", job.yaml, "--verbose"}, 60);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::string tlog = ReadFile(job.dir / "runs/toy/logs/1-trainer-0.log");
  CHECK(tlog.find("token=s3cret") != std::string::npos);
  CHECK(tlog.find("cwd=" + ws) != std::string::npos);
  CHECK(r.output.find("[1/sampler/0] fake sampler-1-0 got SIGTERM") != std::string::npos);  // by ssh pkill
  CHECK(job.Pids().size() == 6);
  CHECK(WaitFor(5, [&] { return job.Survivors().empty(); }));
}

TEST_CASE("a failing remote trainer stops every remote process via ssh", "[launch][ssh]") {
  Sshd sshd;
  if (SkipIf(sshd)) return;
  TempDir remote;
  std::string ws = remote / "ws";
  FakeJob job(Behaviors{{"trainer-1-0", R"({"sleep": 2, "exit": 3})"}, {"server-0-0", R"({"ignore_term": true})"}},
              2, sshd.MachineYaml(ws));
  REQUIRE(RunDistgnn({"copy", job.yaml}, 60).exit_code == 0);
  std::filesystem::copy_file(job.dir / "fake_roles.json", ws + "/fake_roles.json");
  FakeRoles fake;
  auto t0 = std::chrono::steady_clock::now();
  auto r = RunDistgnn({"launch", job.yaml, "--grace", "2"}, 60);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(took < 15);
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
  CHECK(r.output.find("[0/server/0]") != std::string::npos);
  CHECK(r.output.find("exited with code 255: ssh failed (host nobody@127.0.0.1 unreachable") != std::string::npos);
}
