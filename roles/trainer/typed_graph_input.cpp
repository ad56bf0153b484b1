#include "roles/trainer/typed_graph_input.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>

#include "common/io/npy.h"
#include "common/storage/dataset.h"

namespace dg {
namespace fs = std::filesystem;

namespace {

// X.npy, else X.npy.gz, else "" (absent).
std::string NpyPath(const std::string& base) {
  if (fs::exists(base + ".npy")) return base + ".npy";
  if (fs::exists(base + ".npy.gz")) return base + ".npy.gz";
  return "";
}

}  // namespace

Result<TypedGraphInput> LoadTypedGraphInput(const std::string& dir, bool undirected, int64_t* num_classes) {
  const std::string meta_path = dir + "/meta.json";
  YAML::Node meta;
  try {
    meta = YAML::LoadFile(meta_path);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(meta_path + ": " + e.what());
  }
  TypedGraphInput in;
  std::map<std::string, int> type_id;
  try {
    if (!meta["node_types"].IsMap()) return Status::InvalidArgument(meta_path + ": node_types must be an object");
    for (const auto& kv : meta["node_types"]) {
      TypedGraphInput::NodeType t;
      t.name = kv.first.as<std::string>();
      t.count = kv.second.as<int64_t>();
      if (t.count < 0) return Status::InvalidArgument(meta_path + ": node type " + t.name + " has a negative count");
      type_id[t.name] = static_cast<int>(in.node_types.size());
      in.node_types.push_back(t);
    }
    const std::string target = meta["target"].as<std::string>();
    if (!type_id.count(target))
      return Status::InvalidArgument(meta_path + ": target '" + target + "' is not a node type");
    in.target = type_id[target];
    if (num_classes && meta["num_classes"]) *num_classes = meta["num_classes"].as<int64_t>();
    for (const auto& e : meta["edge_types"]) {
      if (!e.IsSequence() || e.size() != 3)
        return Status::InvalidArgument(meta_path + ": each edge type must be [src, relation, dst]");
      const std::string s = e[0].as<std::string>(), r = e[1].as<std::string>(), d = e[2].as<std::string>();
      if (!type_id.count(s) || !type_id.count(d))
        return Status::InvalidArgument(meta_path + ": edge type [" + s + ", " + r + ", " + d +
                                       "] names an unknown node type");
      TypedGraphInput::EdgeType et;
      et.src_type = type_id[s];
      et.dst_type = type_id[d];
      et.relation = r;
      const std::string base = dir + "/edges/" + s + "__" + r + "__" + d;
      EdgeList list;
      if (fs::exists(base + ".tsv") || fs::exists(base + ".tsv.gz")) {
        const std::string path = fs::exists(base + ".tsv") ? base + ".tsv" : base + ".tsv.gz";
        DG_ASSIGN_OR_RETURN(list, ReadEdgeListText(path, -1));
      } else if (fs::exists(base + ".src.npy")) {
        DG_ASSIGN_OR_RETURN(list, ReadEdgeListNpy(base + ".src.npy", base + ".dst.npy", -1));
      } else {
        return Status::NotFound(base + ".tsv: edge file of [" + s + ", " + r + ", " + d + "] not found");
      }
      et.src = std::move(list.src);
      et.dst = std::move(list.dst);
      in.edge_types.push_back(std::move(et));
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(meta_path + ": " + e.what());
  }
  if (undirected) {
    const size_t n = in.edge_types.size();
    for (size_t i = 0; i < n; ++i) {
      TypedGraphInput::EdgeType rev;
      rev.src_type = in.edge_types[i].dst_type;
      rev.dst_type = in.edge_types[i].src_type;
      rev.relation = "rev_" + in.edge_types[i].relation;
      rev.src = in.edge_types[i].dst;
      rev.dst = in.edge_types[i].src;
      in.edge_types.push_back(std::move(rev));
    }
  }
  for (auto& t : in.node_types) {
    const std::string f = NpyPath(dir + "/nodes/" + t.name + "/features");
    if (!f.empty()) {
      DG_ASSIGN_OR_RETURN(t.features, NpyRead(f));
    }
  }
  const std::string tdir = dir + "/nodes/" + in.node_types[in.target].name;
  const std::string labels = NpyPath(tdir + "/labels"), split = NpyPath(tdir + "/split");
  if (labels.empty()) return Status::NotFound(tdir + "/labels.npy: the target type's labels are missing");
  if (split.empty()) return Status::NotFound(tdir + "/split.npy: the target type's split is missing");
  DG_ASSIGN_OR_RETURN(in.labels, NpyRead(labels));
  DG_ASSIGN_OR_RETURN(in.split, NpyRead(split));
  return in;
}

}  // namespace dg
