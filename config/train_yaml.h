// The job YAML's `train:` section read into a TrainSpec (config/train_spec.h).
//
// ParseTrainSection checks the keys (unknown keys with the closest valid
// one), reads every value as its type and enum words as enums, resolves
// train.model against the YAML's folder, and records each key's line in
// `source`; the ranges and combinations are ValidateTrainSpec's, which the
// caller runs next with that source, so its errors point at FILE:LINE too.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "common/base/status.h"
#include "config/train_spec.h"
#include "config/yaml_checker.h"

namespace dg {

Status ParseTrainSection(const Checker& c, const YAML::Node& train, const std::string& base_dir, TrainSpec* spec,
                         TrainSpecSource* source);

}  // namespace dg
