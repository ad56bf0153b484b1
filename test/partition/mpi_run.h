// Running distgnn-mpi-partition under a real `mpirun` on 127.0.0.1 (ranks
// oversubscribed on this machine's cores), shared by the MPI partition tests.
#pragma once

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "common/storage/partition.h"
#include "roles/partition/source_index.h"
#include "test/support/test_support.h"

namespace dg::test {

inline std::string MpiBin() {
  return (std::filesystem::path(DistgnnBin()).parent_path() / "distgnn-mpi-partition").string();
}

// mpirun's path (Subprocess does not search PATH); "" if absent.
inline std::string MpirunPath() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin");
  for (std::string d; std::getline(dirs, d, ':');)
    if (::access((d + "/mpirun").c_str(), X_OK) == 0) return d + "/mpirun";
  return "";
}

inline bool HaveMpi() { return std::filesystem::exists(MpiBin()) && !MpirunPath().empty(); }

inline std::vector<std::string> Mpirun(int np) {
  return {MpirunPath(), "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(np), "--host",
          "127.0.0.1:" + std::to_string(np)};
}

// mpirun's own --timeout ends every rank before the test gives up on it, so a
// hung run leaves no rank behind. `env`: NAME=VALUE pairs set in every rank.
inline RunResult RunMpi(int np, const std::vector<std::string>& args, const std::string& log, double timeout = 180,
                        const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = Mpirun(np);
  std::vector<std::string> options = {"--timeout", std::to_string(static_cast<int>(timeout) - 10)};
  for (const std::string& e : env) options.insert(options.end(), {"-x", e});
  argv.insert(argv.begin() + 1, options.begin(), options.end());
  argv.push_back(MpiBin());
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess p;
  p.Start(argv, log);
  const int rc = p.Wait(timeout);
  return {rc, p.Output()};
}

// The number printed right after `label` in a run's output; -1 if absent.
inline double NumberAfter(const std::string& output, const std::string& label) {
  const size_t at = output.find(label);
  if (at == std::string::npos) return -1;
  return std::strtod(output.c_str() + at + label.size(), nullptr);
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Nothing named like the output (staging or old siblings) besides `keep` in dir.
inline bool NoTraceOf(const std::string& dir, const std::string& name, const std::string& keep = "") {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f != keep && f.find(name) != std::string::npos) return false;
  }
  return true;
}

// Each part's agg_*.npy equals what the single-machine writer derives from the written CSRs.
inline void CheckAggregateIndex(const PartitionConfig& cfg, const std::string& scratch) {
  std::filesystem::copy(cfg.base_dir, scratch, std::filesystem::copy_options::recursive);
  REQUIRE(WriteAggregateIndex(scratch, cfg).ok());
  for (int p = 0; p < cfg.num_parts; ++p)
    for (const char* f : {"agg_dst.npy", "agg_indptr.npy", "agg_src.npy"}) {
      INFO("part " << p << " " << f);
      const std::string got = ReadAll(cfg.PartDir(p) + "/" + f);
      CHECK(!got.empty());
      CHECK(got == ReadAll(scratch + "/" + cfg.parts[p].dir + "/" + f));
    }
}

}  // namespace dg::test
