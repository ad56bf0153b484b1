// --set overrides: "KEY=VALUE" (KEY a dotted path with [i] indices, VALUE
// YAML, e.g. train.epochs=3 or train.fanouts=[5,10]) applied to a parsed YAML
// tree before it is checked, so an overridden key is checked like any other.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "common/base/status.h"

namespace dg {

// One "--set a.b[1].c=value" applied to root. Records the key path in *seen
// (key path -> the override's text), so errors can name the override.
Status ApplyOverride(YAML::Node root, const std::string& text, std::map<std::string, std::string>* seen);

}  // namespace dg
