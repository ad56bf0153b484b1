// The loop's option structs from a TrainSpec, in one place, for the trainers
// that still take TrainerOptions (trainer.h, link_trainer.h, control_variate.h).
// Only the settings are filled: callers add out_dir, the data-parallel group,
// the embedding and the hooks (server_checkpoint, progress, network_bytes).
#pragma once

#include "config/train_spec.h"
#include "roles/trainer/trainer.h"

namespace dg {

TrainerOptions TrainerOptionsFrom(const TrainSpec& spec);

}  // namespace dg
