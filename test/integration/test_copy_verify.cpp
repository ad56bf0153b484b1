// `distgnn copy` verifies what it copied on each machine (`partition verify
// --part M`, run there through the same ssh) before it reports success: a
// real sshd on 127.0.0.1 (sshd_fixture.h), the real binary, Cora.
#include <catch2/catch.hpp>

#include "common/io/npy.h"
#include "test/integration/cora_launch_job.h"
#include "test/integration/sshd_fixture.h"
#include "test/support/skip.h"

using namespace dg;
using namespace dg::test;

TEST_CASE("copy verifies each machine's copy and refuses one whose checksum differs", "[launch][ssh][verify][cora]") {
  Sshd sshd;
  if (!sshd.skip_reason.empty()) DG_SKIP_OR_FAIL("no test sshd: " << sshd.skip_reason);
  TempDir dir, remote;
  const std::vector<std::string> ws = {remote / "ws0", remote / "ws1"};
  std::vector<std::string> extra;
  for (const auto& w : ws) extra.push_back(sshd.MachineYaml(w) + "    binary: " + DistgnnBin() + "\n");
  PrepareCoraLaunch(dir, extra);

  auto r = RunDistgnn({"copy", dir / "job.yaml"}, 180);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("partition verify parts/cora.json --part 0") != std::string::npos);
  CHECK(r.output.find("parts/cora.json: part 0: structure OK") != std::string::npos);
  CHECK(r.output.find("parts/cora.json: part 1: structure OK") != std::string::npos);
  CHECK(r.output.find("files match their SHA-256 checksums") != std::string::npos);
  CHECK(r.output.find("copy: done") != std::string::npos);

  // One feature value of part 1 changes after partitioning: the copy carries
  // it to machine 1, whose verify names the file; copy fails there.
  const std::string f = dir / "parts/part1/node_data/features.npy";
  auto a = NpyRead(f);
  REQUIRE(a.ok());
  Array feats = std::move(*a);
  feats.as<float>()[777] += 0.5f;
  REQUIRE(NpyWrite(f, feats).ok());
  r = RunDistgnn({"copy", dir / "job.yaml"}, 180);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find("parts/cora.json: part 0: structure OK") != std::string::npos);  // machine 0 is fine
  CHECK(r.output.find("parts/part1/node_data/features.npy: SHA-256 ") != std::string::npos);
  CHECK(r.output.find(": the file changed after it was partitioned") != std::string::npos);
  CHECK(r.output.find("the copy on machine 1 (" + sshd.user + "@127.0.0.1) fails `partition verify`") !=
        std::string::npos);
  CHECK(r.output.find("copy: done") == std::string::npos);

  // --no-verify copies without the check (for placeholder partitions).
  r = RunDistgnn({"copy", dir / "job.yaml", "--no-verify"}, 180);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("partition verify") == std::string::npos);
}
