// `distgnn launch FILE [--set key=value ...] [--mode infer] [--resume]`: start every role of a job on
// every machine, stream their output, and tear everything down at the end or on
// the first failure (see launcher.h). Records RUN_DIR/run.json and job.yaml
// (token redacted) first and writes RUN_DIR/report.html at the end (train mode).
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "roles/launcher/launch.h"
#include "roles/launcher/launcher.h"
#include "common/base/console.h"
#include "report/html_report.h"
#include "config/job_config.h"
#include "roles/launcher/launch_plan.h"
#include "roles/launcher/restart.h"
#include "roles/launcher/child_process.h"
#include "roles/job/job_tls.h"
#include "roles/job/role_args.h"

namespace dg {
namespace {

// RUN_DIR/run.json and job.yaml (the YAML with its token line blanked) for the report.
void RecordRun(const JobConfig& cfg, const LaunchPlan& plan, const std::string& mode) {
  std::ifstream in(cfg.path);
  std::string yaml, line;
  const std::regex token_line("^(\\s*token\\s*:).*$");
  while (std::getline(in, line)) yaml += std::regex_replace(line, token_line, "$1 \"<redacted>\"") + "\n";
  std::string sets;
  for (const auto& o : cfg.overrides) sets += (sets.empty() ? "" : " ") + std::string("--set ") + o;
  if (!sets.empty()) yaml += "# launched with " + sets + "\n";
  Status st = WriteRunInfo(cfg.RunDir(),
                           {{"kind", "launch"}, {"mode", mode}, {"job", cfg.job}, {"job_id", plan.job_id},
                            {"config", cfg.path}, {"partition", cfg.partition}, {"overrides", sets}},
                           yaml);
  if (!st.ok()) std::fprintf(stderr, "distgnn launch: warning: %s\n", st.message().c_str());
}

// Automatic restart (restart.h): while the job fails (not by a signal), the
// whole job again from its last complete checkpoint, up to max_restarts times,
// once every machine answers. Records the restarts in run.json; returns the
// last attempt's status (every failure listed when there were several).
Status RestartUntilDone(const JobConfig& cfg, LaunchPlan* plan, PlanOptions plan_options,
                        const LaunchSettings& settings, int max_restarts, Status st, const std::string& program) {
  std::vector<RestartRecord> restarts;
  std::vector<std::string> failures;
  std::string trainer0_log;
  for (const auto& p : plan->processes)
    if (p.role == Role::kTrainer && p.rank == 0) trainer0_log = p.log_file;
  while (!st.ok() && st.code() != Status::Code::kStopped && LaunchInterruptSignal() == 0) {
    failures.push_back(st.message());
    if (static_cast<int>(restarts.size()) >= max_restarts) break;
    RestartRecord r;
    r.when = UtcNow();
    r.failure = st.message();
    const std::string kept = KeepAttemptLogs(*plan, static_cast<int>(restarts.size()) + 1);
    r.reached_step = LastTrainerStep(kept + trainer0_log.substr(plan->log_dir.size()));
    std::printf("launch: restart %zu of %d: %s; waiting up to %.0f s for every machine\n", restarts.size() + 1,
                max_restarts, st.message().c_str(), cfg.restart.wait_seconds);
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    Status back = WaitForMachines(cfg, *plan, cfg.restart.wait_seconds);
    r.wait_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!back.ok()) {
      failures.push_back(back.message());
      st = back;
      break;
    }
    plan_options.trainer_args = {"--resume"};
    auto again = BuildLaunchPlan(cfg, plan_options);
    if (!again.ok()) {
      st = again.status();
      break;
    }
    *plan = std::move(*again);
    restarts.push_back(r);
    st = RunLaunchPlan(cfg, *plan, settings);
    restarts.back().resumed_step = ResumedStep(trainer0_log);
    std::printf("launch: restart %zu: resumed at step %lld, %lld steps redone\n", restarts.size(),
                static_cast<long long>(restarts.back().resumed_step),
                static_cast<long long>(restarts.back().steps_redone()));
    std::fflush(stdout);
  }
  if (!restarts.empty()) {
    Status rs = AddRestartsToRunInfo(cfg.RunDir(), restarts);
    if (!rs.ok()) std::fprintf(stderr, "%s: warning: %s\n", program.c_str(), rs.message().c_str());
  }
  if (!st.ok() && failures.size() > 1) {
    std::string all = std::to_string(restarts.size()) + " restart(s) of " + std::to_string(max_restarts) +
                      " did not finish the job; every failure:";
    for (size_t i = 0; i < failures.size(); ++i) all += "\n  " + std::to_string(i + 1) + ". " + failures[i];
    st = Status::PeerLost(all);
  }
  return st;
}

// `scontrol requeue $SLURM_JOB_ID` after a preemption (launch --requeue).
void Requeue(const std::string& program) {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (!job || !*job) {
    std::fprintf(stderr, "%s: warning: --requeue: not inside a Slurm job (no SLURM_JOB_ID); nothing requeued\n",
                 program.c_str());
    return;
  }
  // Said first: Slurm ends this batch script as it requeues the job.
  std::printf("launch: requeueing Slurm job %s (scontrol requeue); the next run resumes from the checkpoint\n", job);
  std::fflush(stdout);
  const int rc = RunWithin({"scontrol", "requeue", job}, 30);
  if (rc != 0) std::fprintf(stderr, "%s: warning: scontrol requeue %s failed (exit %d)\n", program.c_str(), job, rc);
}

}  // namespace

int LaunchJob(const LaunchJobOptions& options, const std::string& program) {
  const std::string& file = options.config;
  TrainMode mode = TrainMode::kTrain;
  std::vector<std::string> sets = options.sets;
  LaunchSettings settings = options.settings;
  settings.tty = IsTerminal(STDOUT_FILENO);
  Status st;

  if (options.metrics_port_given) sets.push_back("ports.metrics=" + std::to_string(options.metrics_port));
  auto cfg = LoadJobConfigOrSay(program, file, sets);
  if (!cfg) return 1;
  if (auto made = EnsureJobToken(&*cfg); !made.ok()) {
    return ToolExitCode(program, made.status());
  } else if (*made) {
    std::fprintf(stderr, "launch: no cluster token configured; using a random one for this job\n");
  }
  if (!Parse(options.mode, &mode) || mode == TrainMode::kPropagate)
    return ToolExitCode(program,
                        Status::InvalidArgument("--mode: expected train or infer, got '" + options.mode + "'"));
  PlanOptions plan_options = DefaultPlanOptions();
  if (mode == TrainMode::kInfer) {
    plan_options.trainer_args = {"--mode", "infer"};
    plan_options.samplers = false;
  } else if (options.resume) {
    plan_options.trainer_args = {"--resume"};
  }
  auto plan = BuildLaunchPlan(*cfg, plan_options);
  if (!plan.ok()) return ToolExitCode(program, plan.status());
  for (const auto& p : plan->processes) {
    if (!p.remote && !IsLocalHost(p.host)) {
      std::fprintf(stderr,
                   "%s: error: %s: machines[%d].host %s is not this machine and has no ssh target; "
                   "add `ssh: user@%s` to start its processes remotely\n",
                   program.c_str(), file.c_str(), p.machine, p.host.c_str(), p.host.c_str());
      return 1;
    }
  }
  if (options.dry_run) {
    std::fputs(FormatPlan(*cfg, *plan).c_str(), stdout);
    return 0;
  }
  if (st = PrepareLauncherTls(&*cfg); !st.ok()) return ToolExitCode(program, st);
  RecordRun(*cfg, *plan, Name(mode));
  const int max_restarts = options.max_restarts >= 0 ? options.max_restarts : cfg->restart.max;
  st = RunLaunchPlan(*cfg, *plan, settings);
  if (mode == TrainMode::kTrain) st = RestartUntilDone(*cfg, &*plan, plan_options, settings, max_restarts, st, program);
  // The report, also of a failed run that got as far as one epoch.
  if (mode == TrainMode::kTrain && std::filesystem::exists(cfg->RunDir() + "/metrics.jsonl")) {
    auto report = WriteRunReport(cfg->RunDir());
    if (report.ok()) std::printf("launch: report %s\n", report->c_str());
    else std::fprintf(stderr, "%s: warning: no report: %s\n", program.c_str(), report.status().message().c_str());
    std::fflush(stdout);
  }
  if (st.ok()) return 0;
  if (st.code() == Status::Code::kStopped) {
    std::printf("launch: %s\n", st.message().c_str());
    std::fflush(stdout);
    if (options.requeue) Requeue(program);
    return kExitPreempted;
  }
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), st.message().c_str());
  int sig = LaunchInterruptSignal();
  return sig ? 128 + sig : 1;
}

}  // namespace dg
