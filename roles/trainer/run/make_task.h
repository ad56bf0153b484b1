// The one place that chooses the task of a run: MakeTask composes a spec's
// task (train.task, train.algorithm) with the input a GraphSource gives for
// it, and Train runs it in the one epoch loop. The trainer role and
// train-local both call Train. Torch-free.
//
//   train.task  train.algorithm   task                    input
//   node        sample            NodeTask (node_task.h)  GraphSource::Nodes
//   node        control_variate   CvTask (cv_task.h)      GraphSource::ControlVariate
//   link        sample            LinkTask (link_task.h)  GraphSource::Links
//   link        control_variate   refused (config/train_spec.cpp names train.algorithm)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "config/train_spec.h"
#include "roles/trainer/loop/epoch_stats.h"
#include "roles/trainer/loop/train_hooks.h"
#include "roles/trainer/source/graph_source.h"

namespace dg {

class EpochTask;

// The task `spec` asks for, on `source`'s input for it. `spec`, `hooks` and
// `source` outlive the task.
Result<std::unique_ptr<EpochTask>> MakeTask(const TrainSpec& spec, const TrainHooks& hooks, GraphSource* source);

// EpochLoop(spec, hooks, MakeTask(spec, hooks, source)).Run(); `history`
// (may be null) receives the epochs' numbers.
Status Train(const TrainSpec& spec, const TrainHooks& hooks, GraphSource* source,
             std::vector<EpochStats>* history = nullptr);

}  // namespace dg
