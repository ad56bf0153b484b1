#include "roles/partition/mpi/runtime/stage.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace dg::mpi {

namespace fs = std::filesystem;

namespace {

char g_stage_path[4096] = {0};    // what the signal handler removes
char g_scratch_path[4096] = {0};

// Async-signal-safe: a forked `rm -rf`.
void RemoveDirs() {
  if (g_stage_path[0] || g_scratch_path[0]) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/rm", "rm", "-rf", "--", g_stage_path[0] ? g_stage_path : g_scratch_path,
              g_scratch_path[0] ? g_scratch_path : g_stage_path, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (pid > 0) ::waitpid(pid, nullptr, 0);
  }
}

void RemoveStageAndExit(int sig) {
  RemoveDirs();
  ::_exit(128 + sig);
}

void CleanUpOnSignals(const std::string& path) {
  std::strncpy(g_stage_path, path.c_str(), sizeof(g_stage_path) - 1);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = RemoveStageAndExit;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
}

}  // namespace

void RemoveStageAndScratch() { RemoveDirs(); }

void RemoveOnSignal(const std::string& scratch_dir) {
  std::strncpy(g_scratch_path, scratch_dir.c_str(), sizeof(g_scratch_path) - 1);
}

SharedStage::~SharedStage() {
  std::error_code ec;
  if (!tmp_.empty() && !committed_) fs::remove_all(tmp_, ec);
  g_stage_path[0] = 0;
}

Status SharedStage::Create(const Rank& r, const std::string& out_dir, bool force) {
  fs::path out(out_dir);
  if (out.filename().empty()) out = out.parent_path();
  out_ = out.string();
  force_ = force;
  int64_t token[2] = {static_cast<int64_t>(::getpid()), static_cast<int64_t>(::time(nullptr))};
  MPI_Bcast(token, 2, MPI_INT64_T, 0, r.comm);
  const std::string tmp = (out.parent_path() / ("." + out.filename().string() + ".tmp-mpi-" +
                                                std::to_string(token[0]) + "-" + std::to_string(token[1])))
                              .string();
  Status st;
  std::error_code ec;
  if (fs::exists(out, ec) && !force) st = Status::AlreadyExists("output " + out_ + " exists (use --force to replace it)");
  if (st.ok()) {
    fs::create_directories(tmp, ec);
    if (ec) st = Status::IOError("create directory " + tmp + ": " + ec.message());
  }
  if (st.ok()) {
    tmp_ = tmp;
    CleanUpOnSignals(tmp_);
    std::ofstream(tmp_ + "/.rank-" + std::to_string(r.rank)).close();
  }
  DG_RETURN_IF_ERROR(Agree(r, st));
  // The lowest rank whose marker this rank sees leads this storage.
  int lowest = r.rank;
  for (const auto& entry : fs::directory_iterator(tmp_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(".rank-", 0) == 0) lowest = std::min(lowest, std::stoi(name.substr(6)));
  }
  leader_ = lowest == r.rank;
  MPI_Barrier(r.comm);  // every rank has looked before any marker goes
  fs::remove(tmp_ + "/.rank-" + std::to_string(r.rank), ec);
  return Status::OK();
}

Status SharedStage::Commit(const Rank& r) {
  MPI_Barrier(r.comm);  // every rank's files are closed
  Status st;
  if (leader_) {
    std::error_code ec;
    fs::path old;
    if (fs::exists(out_, ec)) {
      if (!force_) st = Status::AlreadyExists("output " + out_ + " exists (use --force to replace it)");
      old = fs::path(out_).parent_path() / ("." + fs::path(out_).filename().string() + ".old-" + std::to_string(::getpid()));
      if (st.ok()) fs::rename(out_, old, ec);
      if (st.ok() && ec) st = Status::IOError("rename " + out_ + ": " + ec.message());
    }
    if (st.ok()) {
      fs::rename(tmp_, out_, ec);
      if (ec) st = Status::IOError("rename " + tmp_ + " -> " + out_ + ": " + ec.message());
    }
    if (st.ok() && !old.empty()) fs::remove_all(old, ec);
  }
  committed_ = true;  // the leader moved it (or failed to: then it removes it below)
  g_stage_path[0] = 0;
  if (leader_ && !st.ok()) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
  return Agree(r, st);
}

}  // namespace dg::mpi
