// The distgnn executable does not link LibTorch; the commands that run a model
// load libdistgnn_torch.so from the executable's folder (cmd/torch_commands.h).
// A copy of the executable alone still partitions, and a model command names
// the missing library; in a launched job only the trainers map LibTorch.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "test/integration/cora_launch_job.h"

using namespace dg::test;

namespace {

bool MapsLibTorch(pid_t pid) {
  return ReadFile("/proc/" + std::to_string(pid) + "/maps").find("libtorch_cpu") != std::string::npos;
}

}  // namespace

TEST_CASE("without libdistgnn_torch.so beside it the executable partitions, and model commands name the library",
          "[cli]") {
  TempDir dir;
  std::filesystem::create_directories(dir / "alone");
  std::filesystem::copy_file(DistgnnBin(), dir / "alone/distgnn");
  Subprocess partition;
  partition.Start({dir / "alone/distgnn", "partition", "--dataset", CoraDir(), "--num-parts", "2", "--method",
                   "random", "--name", "cora", "--out", dir / "parts"},
                  dir / "partition.log");
  REQUIRE(partition.Wait(120) == 0);
  CHECK(std::filesystem::exists(dir / "parts/cora.json"));
  Subprocess export_model;
  export_model.Start({dir / "alone/distgnn", "model", "export", "--arch", "sage", "--in-dim", "8", "--hidden", "8",
                      "--classes", "3", "-o", dir / "m.pt"},
                     dir / "export.log");
  CHECK(export_model.Wait(60) == 1);
  const std::string out = export_model.Output();
  INFO(out);
  CHECK(out.find("distgnn model export: error: cannot load " + (dir / "alone/libdistgnn_torch.so") +
                 " (it belongs beside the distgnn executable)") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "m.pt"));
}

TEST_CASE("in a launched job servers and samplers do not map LibTorch, trainers do", "[launch][cora]") {
  TempDir dir;
  PrepareCoraLaunch(dir);
  Subprocess launch;
  launch.Start({DistgnnBin(), "launch", dir / "job.yaml", "--set", "train.epochs=3"}, dir / "launch.log");
  std::string id;
  REQUIRE(WaitFor(60, [&] { return !(id = JobId(launch.Output())).empty(); }));
  std::vector<pid_t> trainers;
  REQUIRE(WaitFor(60, [&] {
    trainers = RoleProcesses(id, "trainer", 0);
    return !trainers.empty() && MapsLibTorch(trainers[0]);
  }));
  CHECK_FALSE(MapsLibTorch(launch.pid()));
  for (const std::string role : {"server", "sampler"}) {
    const auto pids = RoleProcesses(id, role, 0);
    INFO(role);
    REQUIRE(!pids.empty());
    for (pid_t pid : pids) CHECK_FALSE(MapsLibTorch(pid));
  }
  const int rc = launch.Wait(120);
  INFO(launch.Output());
  CHECK(rc == 0);
}
