// `distgnn partition --mpi --format ogb` under a real `mpirun` on 127.0.0.1:
// OGB's files (written by `distgnn generate --format ogb`) partition into the
// same bytes as the same graph written as a plain .npy dataset, for the same
// P, K and seed; a malformed line in edge.csv.gz ends every rank with a
// message naming OGB's file, the line and the rank's host, and leaves nothing.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "test/partition/mpi_run.h"
#include "test/partition/partition_checks.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

// The same synthetic graph as a plain .npy dataset (tmp/npy) and in OGB's layout (tmp/ogb).
void GenerateBoth(const std::string& tmp) {
  for (const std::string format : {"npy", "ogb"}) {
    auto r = RunDistgnn({"generate", "--nodes", "600", "--edges", "6000", "--feat-dim", "4", "--classes", "3",
                         "--seed", "5", "--format", format, "--out", tmp + "/" + (format == "ogb" ? "ogb" : "npy")});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
}

void WriteGz(const std::string& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  REQUIRE(gz != nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

}  // namespace

TEST_CASE("MPI partition --format ogb: the partition of the same graph as .npy, byte for byte", "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  GenerateBoth(tmp.path());
  for (const std::string method : {"scotch", "random"}) {
    INFO(method);
    auto part = [&](const std::string& dataset, std::vector<std::string> extra, const std::string& out) {
      std::vector<std::string> args = {"--dataset", tmp / dataset, "--num-parts", "2", "--method", method,
                                       "--undirected", "--seed", "7", "--balance", "train", "--name", "g",
                                       "--out", tmp / out};
      args.insert(args.end(), extra.begin(), extra.end());
      auto r = RunMpi(2, args, tmp / ("log-" + out));
      INFO(r.output);
      REQUIRE(r.exit_code == 0);
    };
    part("npy", {}, "npy-" + method);
    part("ogb", {"--format", "ogb"}, "ogb-" + method);
    RequireSameTree(tmp / ("npy-" + method), tmp / ("ogb-" + method), 9);
    CHECK(NoTraceOf(tmp.path(), "spill"));
  }
}

TEST_CASE("MPI partition --format ogb: a bad edge line names OGB's file, line and rank, and leaves nothing",
          "[partition][mpi][ogb]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  GenerateBoth(tmp.path());
  const std::string edges = tmp / "ogb/raw/edge.csv.gz";
  WriteGz(edges, "0,1\n2,3\n4;5\n");
  fs::create_directories(tmp / "outs");
  auto r = RunMpi(2, {"--dataset", tmp / "ogb", "--format", "ogb", "--num-parts", "2", "--name", "g", "--out",
                      tmp / "outs/g"},
                  tmp / "log", 60);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK(r.output.find(edges + ":3") != std::string::npos);
  CHECK(r.output.find("rank 0 on ") != std::string::npos);
  CHECK(r.output.find("spill") == std::string::npos);
  CHECK(fs::is_empty(tmp / "outs"));
}
