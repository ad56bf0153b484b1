// The only 32-bit limit on arcs of `partition --mpi` is PT-Scotch's (Debian's
// SCOTCH_Num): the adjacency's offsets are 64-bit, so the cluster and stream
// methods take a graph past 2^31 - 1 arcs. The test hook
// DISTGNN_TEST_SCOTCH_MAX_ARCS (methods/scotch.cpp) narrows the limit so that
// Cora crosses it: the methods that do not call PT-Scotch write the same bytes
// as without the hook, and PT-Scotch is refused with the count named and
// nothing left behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "test/partition/mpi_run.h"
#include "test/support/skip.h"
#include "test/support/test_support.h"

using namespace dg;
using namespace dg::test;
namespace fs = std::filesystem;

namespace {

// RunMpi with `env` (NAME=value, "" = none) exported to every rank.
RunResult RunMpiWith(const std::string& env, const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> argv = Mpirun(2);
  argv.insert(argv.begin() + 1, {"--timeout", "110"});
  if (!env.empty()) argv.insert(argv.begin() + 1, {"-x", env});
  argv.push_back(MpiBin());
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess p;
  p.Start(argv, log);
  const int rc = p.Wait(120);
  return {rc, p.Output()};
}

// Every file under a and b, byte for byte.
void CheckSameTree(const fs::path& a, const fs::path& b) {
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(a)) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), a);
    INFO(rel.string());
    REQUIRE(fs::exists(b / rel));
    CHECK(ReadAll(e.path().string()) == ReadAll((b / rel).string()));
    ++files;
  }
  for (const auto& e : fs::recursive_directory_iterator(b)) CHECK(fs::exists(a / fs::relative(e.path(), b)));
  CHECK(files > 10);
}

}  // namespace

TEST_CASE("MPI partition: past PT-Scotch's arc limit the other methods write the same bytes and PT-Scotch is refused",
          "[partition][mpi]") {
  if (!HaveMpi()) DG_SKIP_OR_FAIL("mpirun or " + MpiBin() + " missing");
  TempDir tmp;
  const std::string narrowed = "DISTGNN_TEST_SCOTCH_MAX_ARCS=1000";  // Cora's symmetric graph has 10,556 arcs
  for (const char* method : {"cluster", "stream"}) {
    std::vector<std::string> args = {"--dataset", CoraDir(), "--undirected", "--num-parts", "3", "--name", "cora",
                                     "--method", method, "--cluster-max-arcs", "100000", "--out"};
    auto plain = RunMpiWith("", [&] { auto a = args; a.push_back(tmp / (std::string(method) + "-plain")); return a; }(),
                            tmp / (std::string("log-plain-") + method));
    INFO(plain.output);
    REQUIRE(plain.exit_code == 0);
    auto past = RunMpiWith(narrowed, [&] { auto a = args; a.push_back(tmp / (std::string(method) + "-past")); return a; }(),
                           tmp / (std::string("log-past-") + method));
    INFO(past.output);
    REQUIRE(past.exit_code == 0);
    CheckSameTree(tmp / (std::string(method) + "-plain"), tmp / (std::string(method) + "-past"));
  }
  auto refused = RunMpiWith(narrowed, {"--dataset", CoraDir(), "--undirected", "--num-parts", "2", "--name", "cora",
                                       "--method", "scotch", "--out", tmp / "scotch"},
                            tmp / "log-scotch");
  INFO(refused.output);
  CHECK(refused.exit_code != 0);
  CHECK(refused.output.find("PT-Scotch (Debian's build counts in a 32-bit SCOTCH_Num) takes at most 1000 arcs; this "
                            "symmetric graph has 10556") != std::string::npos);
  CHECK(NoTraceOf(tmp.path(), "scotch", "log-scotch"));
}
