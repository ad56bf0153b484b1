// The learning rate of one optimizer step under train.lr_schedule
// (config/train_spec.h, LrScheduleSpec), torch-free. `step` counts the run's
// optimizer steps from 0 (the step about to be taken); `total_steps` is the
// run's (epochs x steps per epoch; 0 = not known: cosine holds lr after the
// warm-up). With warmup_steps W > 0, step t < W takes lr * (t + 1) / W; from
// W on, with s = t - W:
//   none    lr
//   cosine  min_lr + (lr - min_lr) * (1 + cos(pi * p)) / 2,
//           p = s / (total_steps - W), at most 1
//   step    lr * gamma^floor(s / step_size)
#pragma once

#include <cstdint>

#include "config/train_spec.h"

namespace dg {

double ScheduledLr(const LrScheduleSpec& schedule, double lr, int64_t step, int64_t total_steps);

}  // namespace dg
