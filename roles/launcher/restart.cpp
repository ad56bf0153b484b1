#include "roles/launcher/restart.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "common/io/json_writer.h"
#include "roles/launcher/child_process.h"
#include "roles/launcher/process_starter.h"

namespace dg {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

}  // namespace

Status WaitForMachines(const JobConfig& cfg, const LaunchPlan& plan, double wait_seconds) {
  std::map<int, std::string> patterns;  // remote machine -> the failed attempt's processes
  for (const ProcessSpec& p : plan.processes)
    if (p.remote) patterns[p.machine] = plan.host_kill_pattern;
  const auto deadline = Clock::now() + std::chrono::duration<double>(wait_seconds);
  std::string missing;
  for (const auto& [m, pat] : patterns) {
    bool back = false;
    while (true) {
      std::vector<std::string> argv =
          StarterFor(cfg, m).Shell(cfg.machines[m], "pkill -KILL -f " + ShellQuote(pat) + "; true", /*probe=*/true);
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (RunWithin(argv, std::max(1.0, std::min(10.0, left))) == 0) {
        back = true;
        break;
      }
      if (Clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    if (!back)
      missing += (missing.empty() ? "" : ", ") + ("machine " + std::to_string(m) + " (" + cfg.machines[m].host + ")");
  }
  if (!missing.empty())
    return Status::Timeout(missing + " did not answer ssh within restart.wait_seconds = " +
                               std::to_string(static_cast<int>(wait_seconds)) + " s");
  return Status::OK();
}

std::string KeepAttemptLogs(const LaunchPlan& plan, int attempt) {
  const std::string to = plan.log_dir + "-attempt-" + std::to_string(attempt);
  std::error_code ec;
  fs::remove_all(to, ec);
  fs::rename(plan.log_dir, to, ec);
  return ec ? plan.log_dir : to;
}

int64_t LastTrainerStep(const std::string& log_file) {
  std::ifstream in(log_file);
  const std::regex progress("epoch ([0-9]+) step ([0-9]+)/([0-9]+) ");
  int64_t last = -1;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_search(line, m, progress)) continue;
    const int64_t e = std::stoll(m[1]), s = std::stoll(m[2]), t = std::stoll(m[3]);
    last = (e - 1) * t + s;
  }
  return last;
}

int64_t ResumedStep(const std::string& log_file) {
  std::ifstream in(log_file);
  const std::regex resumed("resuming at step ([0-9]+) ");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, resumed)) return std::stoll(m[1]);
  return -1;
}

std::string RestartsJson(const std::vector<RestartRecord>& restarts) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < restarts.size(); ++i) {
    const RestartRecord& r = restarts[i];
    s << (i ? ", " : "") << "{\"when\": " << JsonQuote(r.when) << ", \"failure\": " << JsonQuote(r.failure)
      << ", \"wait_seconds\": " << static_cast<int64_t>(r.wait_seconds * 1000) / 1000.0
      << ", \"reached_step\": " << r.reached_step << ", \"resumed_step\": " << r.resumed_step
      << ", \"steps_redone\": " << r.steps_redone() << "}";
  }
  s << "]";
  return s.str();
}

Status AddRestartsToRunInfo(const std::string& run_dir, const std::vector<RestartRecord>& restarts) {
  const std::string path = run_dir + "/run.json";
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind('}');
  if (close == std::string::npos) return Status::Corruption(path + ": not a JSON object");
  text = text.substr(0, close) + ", \"restarts\": " + RestartsJson(restarts) + "}\n";
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) return Status::IOError("write " + path + " failed");
  return Status::OK();
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return when;
}

}  // namespace dg
