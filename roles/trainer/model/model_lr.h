// The learning rate of a run that gives none (train.lr, --lr): config/
// default_lr.h's rule, fed with the model file's `arch` attribute and the
// mean L1 size of the rows the model reads. Every front end (the trainer role,
// train-local) calls it once, before anything trains.
#pragma once

#include <functional>
#include <optional>

#include "common/base/status.h"
#include "config/train_spec.h"

namespace dg {

// Measures the input rows' mean L1 size (nullopt: no feature rows); called
// only when the rule needs it.
using RowL1Measure = std::function<Result<std::optional<double>>()>;

// Sets spec->lr when it is unset and logs the rate and why; a model that
// records no `arch` (written by hand) takes kDefaultLr.
Status TakeDefaultLr(TrainSpec* spec, const RowL1Measure& row_l1);

}  // namespace dg
