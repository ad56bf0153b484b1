#include "roles/trainer/loop/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace dg {

double ScheduledLr(const LrScheduleSpec& schedule, double lr, int64_t step, int64_t total_steps) {
  if (schedule.kind == LrScheduleKind::kNone) return lr;
  const int64_t warmup = schedule.warmup_steps_or_default();
  if (step < warmup) return lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const int64_t s = step - warmup;
  if (schedule.kind == LrScheduleKind::kStep)
    return lr * std::pow(schedule.gamma_or_default(), static_cast<double>(s / schedule.step_size_or_default()));
  const double min_lr = schedule.min_lr_or_default();
  if (total_steps <= warmup) return lr;
  const double p = std::min(1.0, static_cast<double>(s) / static_cast<double>(total_steps - warmup));
  return min_lr + (lr - min_lr) * 0.5 * (1.0 + std::cos(M_PI * p));
}

}  // namespace dg
