// The trainer role (`distgnn --role trainer`): one data-parallel trainer of a
// distributed job, or, with mode infer/propagate, one worker of a layer-wise
// inference or propagation job. trainer_role.cpp says the order of start-up.
#pragma once

#include <string>

#include "common/base/status.h"
#include "config/train_spec.h"
#include "roles/job/role_args.h"
#include "common/client/propagate.h"

namespace dg {

struct TrainerProcessOptions {
  RoleArgs role;
  TrainMode mode = TrainMode::kTrain;
  PropagateOptions propagate;  // mode propagate: input, hops, norm, output
  int threads = 0;             // torch intra-op threads; 0 = train.intra_op_threads or this trainer's share
  int sampler_threads = 0;     // without sampler processes; 0 = half this trainer's share of the cores
  bool resume = false;         // continue from the run directory's checkpoint.pt
};

Status RunTrainerProcess(TrainerProcessOptions options);

}  // namespace dg
