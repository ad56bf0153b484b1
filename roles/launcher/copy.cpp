// `distgnn copy FILE [--dry-run]`: copy each ssh machine's share of the job
// (config, partition json, orig_*.npy, its own part folder, model) to its
// workspace (copy_plan.h), with rsync over ssh or scp, then verify it there.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "common/base/subprocess.h"
#include "roles/launcher/copy_plan.h"
#include "config/job_config.h"
#include "roles/launcher/copy.h"
#include "roles/launcher/launch_plan.h"
#include "roles/launcher/launcher.h"

namespace dg {

namespace {

bool HaveProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string f = p.substr(start, end - start) + "/" + name;
    if (access(f.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

int CopyJob(const CopyJobOptions& options, const std::string& program) {
  const std::string& file = options.config;
  const std::vector<std::string>& sets = options.sets;

  auto cfg = LoadJobConfigOrSay(program, file, sets);
  if (!cfg) return 1;
  bool rsync = !options.scp && HaveProgram("rsync");
  auto plan = BuildCopyPlan(*cfg, rsync);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), plan.status().message().c_str());
    return 1;
  }
  const bool dry = options.dry_run;
  for (const auto& mc : *plan) {
    std::printf("machine %d (%s): ", mc.machine, cfg->machines[mc.machine].host.c_str());
    if (mc.workspace.empty()) {
      std::printf("%s\n", mc.note.c_str());
      continue;
    }
    std::printf("-> %s:%s\n", mc.target.c_str(), mc.workspace.c_str());
    for (const auto& it : mc.items)
      std::printf("    %s%s -> %s/%s\n", it.local.c_str(), it.directory ? "/" : "", mc.workspace.c_str(),
                  it.relative.c_str());
    for (const auto& cmd : mc.commands) {
      std::printf("  $ %s\n", ShellJoin(cmd).c_str());
      std::fflush(stdout);
      if (dry) continue;
      int rc = RunProcess(cmd);
      if (rc != 0) {
        std::fprintf(stderr, "%s: error: copying to machine %d (%s) failed: %s exited with code %d%s\n", program.c_str(),
                     mc.machine, mc.target.c_str(), cmd[0].c_str(), rc,
                     rc == 255 ? " (host unreachable or key refused)" : "");
        return 1;
      }
    }
    if (!options.verify) continue;
    std::printf("  $ %s\n", ShellJoin(mc.verify).c_str());
    std::fflush(stdout);
    if (dry) continue;
    if (const int rc = RunProcess(mc.verify); rc != 0) {
      std::fprintf(stderr, "%s: error: the copy on machine %d (%s) fails `partition verify` (exit code %d%s): see the line above\n",
                   program.c_str(), mc.machine, mc.target.c_str(), rc,
                   rc == 127 ? ": no distgnn there; set machines[].binary" : "");
      return 1;
    }
  }
  if (!dry) std::printf("copy: done\n");
  return 0;
}

}  // namespace dg
