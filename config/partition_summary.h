// What the config loader, the launcher and `distgnn copy` need from a partition
// json (docs/formats.md): num_parts, the graph name, each part's folder
// and the orig_* arrays. Read with yaml-cpp (JSON is YAML), independent of the
// full PartitionConfig loader so config checks stay cheap and torch-free.
#pragma once

#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

struct PartitionSummary {
  std::string path;      // the json file (as given)
  std::string base_dir;  // its folder
  std::string graph_name;
  int num_parts = 0;
  std::vector<std::string> part_dirs;  // relative to base_dir; "part<p>" when absent
  std::string orig_nids, orig_eids;    // relative to base_dir; may be empty
  bool typed = false;                  // format_version 2
  std::vector<std::string> edge_types; // typed: "src:relation:dst" in edge type id order
};

// Errors name the file and the key (e.g. "parts/cora.json: key 'num_parts': ...").
Result<PartitionSummary> ReadPartitionSummary(const std::string& json_path);

}  // namespace dg
