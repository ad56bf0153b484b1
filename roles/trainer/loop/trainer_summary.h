// trainer-R.json: one trainer's account of its run, written by every trainer
// of every task (the epoch loop's last act): steps (and per epoch), epoch
// seconds, the fraction of training time spent waiting for batches, the
// per-step time split, and the parameters' count, sum and FNV-1a fingerprint
// (equal fingerprints = identical parameters). Torch-free.
#pragma once

#include <string>
#include <vector>

#include "common/base/status.h"
#include "roles/trainer/loop/epoch_stats.h"

namespace dg {

Status WriteTrainerSummary(const std::string& path, int rank, const std::vector<EpochStats>& history,
                           const std::vector<float>& params);

}  // namespace dg
