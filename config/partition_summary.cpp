#include "config/partition_summary.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace dg {

namespace fs = std::filesystem;

Result<PartitionSummary> ReadPartitionSummary(const std::string& json_path) {
  std::error_code ec;
  if (!fs::is_regular_file(json_path, ec))
    return Status::NotFound(json_path + ": partition config not found");
  PartitionSummary s;
  s.path = json_path;
  s.base_dir = fs::path(json_path).parent_path().string();
  if (s.base_dir.empty()) s.base_dir = ".";
  try {
    YAML::Node root = YAML::LoadFile(json_path);
    if (!root.IsMap()) return Status::Corruption(json_path + ": expected a JSON object");
    const YAML::Node n = root["num_parts"];
    if (!n || !n.IsScalar())
      return Status::Corruption(json_path + ": key 'num_parts': missing (is this a distgnn partition json?)");
    s.num_parts = n.as<int>();
    if (s.num_parts < 1)
      return Status::Corruption(json_path + ": key 'num_parts': expected >= 1, got " + n.Scalar());
    if (root["graph_name"] && root["graph_name"].IsScalar()) s.graph_name = root["graph_name"].Scalar();
    const YAML::Node parts = root["parts"];
    for (int p = 0; p < s.num_parts; ++p) {
      std::string dir = "part" + std::to_string(p);
      if (parts && parts.IsSequence() && p < static_cast<int>(parts.size()) && parts[p].IsMap() &&
          parts[p]["dir"] && parts[p]["dir"].IsScalar())
        dir = parts[p]["dir"].Scalar();
      s.part_dirs.push_back(dir);
    }
    if (root["orig_nids"] && root["orig_nids"].IsScalar()) s.orig_nids = root["orig_nids"].Scalar();
    if (root["orig_eids"] && root["orig_eids"].IsScalar()) s.orig_eids = root["orig_eids"].Scalar();
    s.typed = root["format_version"] && root["format_version"].IsScalar() && root["format_version"].Scalar() == "2";
    if (const YAML::Node ets = root["edge_types"]; s.typed && ets && ets.IsSequence())
      for (const YAML::Node& e : ets)
        if (e.IsSequence() && e.size() == 3)
          s.edge_types.push_back(e[0].Scalar() + ":" + e[1].Scalar() + ":" + e[2].Scalar());
  } catch (const YAML::Exception& e) {
    return Status::Corruption(json_path + ":" + std::to_string(e.mark.line + 1) +
                              ": not a valid partition json: " + e.msg);
  }
  return s;
}

}  // namespace dg
