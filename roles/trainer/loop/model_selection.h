// Which epoch's parameters are the run's model (TrainSpec::select_by), decided
// by the epoch loop after every evaluation:
//  - val_metric: the highest finite validation metric (accuracy; link:
//    ROC-AUC); an equal one wins when its validation loss is lower, so a
//    metric that saturates early on a small validation set does not lock on
//    the first epoch that reached it.
//  - val_loss: the lowest finite validation loss.
// Torch-free.
#pragma once

#include "config/train_spec.h"
#include "roles/trainer/loop/epoch_stats.h"

namespace dg {

// Whether `e` is a better model than `best` (null: no model kept yet).
bool BetterModel(const Evaluation& e, const Evaluation* best, ModelSelection by);

}  // namespace dg
