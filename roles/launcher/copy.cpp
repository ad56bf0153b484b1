// `distgnn copy FILE [--dry-run]`: copy each ssh machine's share of the job
// (config, partition json, orig_*.npy, its own part folder, model) to its
// workspace (config/copy_plan.h), with rsync over ssh or scp.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "cmd/cli.h"
#include "roles/launcher/copy_plan.h"
#include "config/job_config.h"
#include "roles/launcher/launch_plan.h"

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

int RunCommand(const std::vector<std::string>& argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::perror(argv[0].c_str());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int RunCopy(int argc, char** argv) {
  namespace po = cli::po;
  po::options_description desc("distgnn copy FILE [options]");
  std::string file;
  std::vector<std::string> sets;
  desc.add_options()("help,h", "show this help")
      ("config", po::value(&file)->required(), "the job YAML")
      ("set", po::value(&sets)->composing(), "override one key, e.g. --set train.model=other.pt")
      ("dry-run", "print the commands without running them")
      ("scp", "use scp even when rsync is installed");
  po::positional_options_description pos;
  pos.add("config", 1);
  po::variables_map vm;
  Status st = cli::Parse(desc, argc, argv, &vm, &pos);
  if (!st.ok()) return cli::ExitCode(argv[0], st);

  auto cfg = LoadJobConfig(file, sets);
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], cfg.status().message().c_str());
    return 1;
  }
  bool rsync = !vm.count("scp") && HaveProgram("rsync");
  auto plan = BuildCopyPlan(*cfg, rsync);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], plan.status().message().c_str());
    return 1;
  }
  const bool dry = vm.count("dry-run") > 0;
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
      int rc = RunCommand(cmd);
      if (rc != 0) {
        std::fprintf(stderr, "%s: error: copying to machine %d (%s) failed: %s exited with code %d%s\n", argv[0],
                     mc.machine, mc.target.c_str(), cmd[0].c_str(), rc,
                     rc == 255 ? " (host unreachable or key refused)" : "");
        return 1;
      }
    }
  }
  if (!dry) std::printf("copy: done\n");
  return 0;
}

}  // namespace dg
