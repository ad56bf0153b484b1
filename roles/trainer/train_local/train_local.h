// `distgnn train-local`: the trainer on one process with the whole graph in
// memory and in-process sampling (the baseline of distributed runs). One
// TrainSpec (config/train_spec.h, filled from the flags and validated) says
// what to train: node classification with neighbour sampling or control
// variates, or link prediction, on a homogeneous or a typed dataset
// (source/local_source.h). Writes the run directory (run.json with `command`,
// metrics, model, report).
#pragma once

#include <string>

#include "common/base/status.h"
#include "config/train_spec.h"

namespace dg {

struct LocalRun {
  std::string out_dir;  // the run directory
  std::string command;  // the command line, recorded in run.json
};

Status TrainLocal(const TrainSpec& spec, const LocalRun& run);

}  // namespace dg
