// Automatic restart (`restart: {max, wait_seconds}`, `launch --max-restarts`;
// docs/recovery.md), the pieces launch.cpp loops with:
//  - WaitForMachines: before a relaunch, every ssh machine of the plan must
//    answer ssh again within wait_seconds; each one that does also has what is
//    left of the failed attempt killed (`pkill -KILL -f` of the plan's job pattern: a frozen host that thaws still runs them until their lease
//    expires). The error names every machine that did not answer.
//  - KeepAttemptLogs: RUN_DIR/logs of a failed attempt becomes
//    RUN_DIR/logs-attempt-K, so the next attempt starts a fresh logs/.
//  - LastTrainerStep / ResumedStep: trainer 0's global step from its last
//    progress line in a log ((epoch - 1) * steps per epoch + step), and the
//    step its "resuming at step N" line names; -1 when absent. Their
//    difference is how many steps a restart redid, at least (progress lines
//    come every log_every steps or 2 s).
//  - RestartRecord / RestartsJson: one restart, and the JSON list run.json gets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "config/job_config.h"
#include "roles/launcher/launch_plan.h"

namespace dg {

Status WaitForMachines(const JobConfig& cfg, const LaunchPlan& failed_plan, double wait_seconds);

std::string KeepAttemptLogs(const LaunchPlan& plan, int attempt);

int64_t LastTrainerStep(const std::string& log_file);
int64_t ResumedStep(const std::string& log_file);

struct RestartRecord {
  std::string when;      // UTC, ISO 8601
  std::string failure;   // what was lost (the launcher's FAILED message)
  double wait_seconds = 0;  // until every machine answered again
  int64_t reached_step = -1, resumed_step = -1;  // trainer 0's; -1 unknown
  int64_t steps_redone() const {
    return reached_step >= 0 && resumed_step >= 0 ? std::max<int64_t>(0, reached_step - resumed_step) : -1;
  }
};

std::string RestartsJson(const std::vector<RestartRecord>& restarts);
// Adds "restarts": [...] to RUN_DIR/run.json (its last '}' replaced).
Status AddRestartsToRunInfo(const std::string& run_dir, const std::vector<RestartRecord>& restarts);

std::string UtcNow();

}  // namespace dg
