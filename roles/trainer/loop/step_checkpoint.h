// Step checkpoints on trainer 0's side (docs/formats.md "Step checkpoint"),
// torch-free:
//   RUN_DIR/checkpoints/step-N/   trainer.pt (+ embedding.* in train-local)
//                                 manifest.json, written last: the checkpoint
//                                 is complete only once it exists
// and the servers' side, <partition dir>/checkpoints/step-N/ (CHECKPOINT).
//  - ServerCheckpoint: CHECKPOINT save (or load) of step N to every
//    partition's index-0 server; returns once every one has answered (a save:
//    once its directory is durable). ServerBest: the same for the best
//    epoch's copy, <partition dir>/checkpoints/best/.
//  - StepDirTmp / PublishStepDir: trainer 0 writes into step-N.tmp/, then
//    PublishStepDir fsyncs its files, renames it to step-N, writes
//    manifest.json (temporary file, fsync, rename) and removes complete
//    checkpoints beyond the newest `keep` and incomplete ones below N.
//  - LatestStepCheckpoint: the newest complete step-N directory (step 0 and
//    "" when there is none).
#pragma once

#include <cstdint>
#include <string>

#include "common/base/status.h"

namespace dg {

class DistGraphClient;

Status ServerCheckpoint(DistGraphClient* client, bool load, int64_t step, int keep);
// CHECKPOINT keep best (restore = false) or restore best of global step
// `step` to every partition's index-0 server.
Status ServerBest(DistGraphClient* client, bool restore, int64_t step);

std::string StepDirTmp(const std::string& run_dir, int64_t step);
// manifest_json: the manifest's fields without braces ("\"step\": 12, ...").
Status PublishStepDir(const std::string& run_dir, int64_t step, int keep, const std::string& manifest_json);

struct StepCheckpointRef {
  int64_t step = 0;  // 0 = none
  std::string dir;
};
StepCheckpointRef LatestStepCheckpoint(const std::string& run_dir);

}  // namespace dg
