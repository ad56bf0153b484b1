#include "common/storage/partition.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "common/io/json_writer.h"
#include "common/io/npy.h"

namespace dg {

namespace {

// Typed access to the parsed JSON with errors naming file and key.
class JsonReader {
 public:
  explicit JsonReader(std::string path) : path_(std::move(path)) {}

  Status Err(const std::string& key, const std::string& what) const {
    return Status::Corruption(path_ + ": key '" + key + "': " + what);
  }

  template <typename T>
  Status Scalar(const YAML::Node& parent, const std::string& key, const std::string& full, T* out,
                bool required = true) const {
    YAML::Node n = parent[key];
    if (!n) return required ? Err(full, "missing") : Status::OK();
    if (!n.IsScalar()) return Err(full, "expected a scalar");
    try {
      *out = n.as<T>();
    } catch (const YAML::Exception&) {
      return Err(full, "bad value '" + n.Scalar() + "'");
    }
    return Status::OK();
  }

  Status IntList(const YAML::Node& parent, const std::string& key, std::vector<int64_t>* out) const {
    YAML::Node n = parent[key];
    if (!n) return Err(key, "missing");
    if (!n.IsSequence()) return Err(key, "expected a list of integers");
    out->clear();
    for (size_t i = 0; i < n.size(); ++i) {
      try {
        out->push_back(n[i].as<int64_t>());
      } catch (const YAML::Exception&) {
        return Err(key, "element " + std::to_string(i) + " is not an integer");
      }
    }
    return Status::OK();
  }

  Status ArrayInfos(const YAML::Node& parent, const std::string& key,
                    std::map<std::string, ArrayInfo>* out) const {
    YAML::Node n = parent[key];
    if (!n) return Status::OK();  // optional: no arrays
    if (!n.IsMap()) return Err(key, "expected an object");
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string name = it->first.as<std::string>();
      std::string full = key + "." + name;
      if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
        return Err(full, "bad array name");
      // A copy: it->second lives in a proxy that dies with this statement.
      const YAML::Node v = it->second;
      if (!v.IsMap()) return Err(full, "expected an object with dtype and shape");
      std::string dtype_name;
      DG_RETURN_IF_ERROR(Scalar(v, "dtype", full + ".dtype", &dtype_name));
      auto dt = DTypeFromName(dtype_name);
      if (!dt.ok()) return Err(full + ".dtype", dt.status().message());
      ArrayInfo info;
      info.dtype = *dt;
      DG_RETURN_IF_ERROR(IntList(v, "shape", &info.shape).WithContext(full));
      if (info.shape.empty()) return Err(full + ".shape", "must have at least one dimension");
      for (int64_t d : info.shape)
        if (d < 0) return Err(full + ".shape", "negative dimension");
      (*out)[name] = info;
    }
    return Status::OK();
  }

 private:
  std::string path_;
};

std::string DirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string IntListJson(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

std::string ArrayInfosJson(const std::map<std::string, ArrayInfo>& m) {
  if (m.empty()) return "{}";
  std::string s = "{";
  bool first = true;
  for (const auto& [name, info] : m) {
    s += first ? "\n    " : ",\n    ";
    first = false;
    s += JsonQuote(name) + ": {\"dtype\": " + JsonQuote(DTypeName(info.dtype)) +
         ", \"shape\": " + IntListJson(info.shape) + "}";
  }
  return s + "\n  }";
}

// Checks that an mmap'd array has the dtype and shape the config promises.
Status CheckArray(const std::string& file, const Array& a, DType dtype,
                  const std::vector<int64_t>& shape) {
  if (a.dtype != dtype)
    return Status::Corruption(file + ": dtype " + DTypeName(a.dtype) + ", the partition config says " +
                              DTypeName(dtype));
  if (a.shape != shape) {
    Array want;
    want.shape = shape;
    return Status::Corruption(file + ": shape " + a.ShapeString() + ", the partition config says " +
                              want.ShapeString());
  }
  return Status::OK();
}

}  // namespace

std::string PartitionConfig::PartDir(int p) const { return base_dir + "/" + parts[p].dir; }

namespace {
Result<PartitionConfig> ParsePartitionConfig(const std::string& json_path, const YAML::Node& root);
}  // namespace

Result<PartitionConfig> LoadPartitionConfig(const std::string& json_path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(json_path);
  } catch (const YAML::BadFile&) {
    return Status::NotFound(json_path + ": cannot open partition config");
  } catch (const YAML::Exception& e) {
    return Status::Corruption(json_path + ": not valid JSON: " + e.what());
  }
  try {
    return ParsePartitionConfig(json_path, root);
  } catch (const YAML::Exception& e) {
    return Status::Corruption(json_path + ": malformed partition config: " + e.what());
  }
}

namespace {
Result<PartitionConfig> ParsePartitionConfig(const std::string& json_path, const YAML::Node& root) {
  if (!root.IsMap()) return Status::Corruption(json_path + ": expected a JSON object");
  JsonReader r(json_path);
  PartitionConfig c;
  c.path = json_path;
  c.base_dir = DirName(json_path);
  DG_RETURN_IF_ERROR(r.Scalar(root, "format_version", "format_version", &c.format_version));
  if (c.format_version != 1)
    return r.Err("format_version", "unsupported version " + std::to_string(c.format_version));
  DG_RETURN_IF_ERROR(r.Scalar(root, "graph_name", "graph_name", &c.graph_name));
  DG_RETURN_IF_ERROR(r.Scalar(root, "part_method", "part_method", &c.part_method, false));
  DG_RETURN_IF_ERROR(r.Scalar(root, "num_nodes", "num_nodes", &c.num_nodes));
  DG_RETURN_IF_ERROR(r.Scalar(root, "num_edges", "num_edges", &c.num_edges));
  DG_RETURN_IF_ERROR(r.Scalar(root, "num_parts", "num_parts", &c.num_parts));
  DG_RETURN_IF_ERROR(r.IntList(root, "node_map", &c.node_map));
  DG_RETURN_IF_ERROR(r.IntList(root, "edge_map", &c.edge_map));
  DG_RETURN_IF_ERROR(r.ArrayInfos(root, "node_data", &c.node_data));
  DG_RETURN_IF_ERROR(r.ArrayInfos(root, "edge_data", &c.edge_data));
  DG_RETURN_IF_ERROR(r.Scalar(root, "orig_nids", "orig_nids", &c.orig_nids, false));
  DG_RETURN_IF_ERROR(r.Scalar(root, "orig_eids", "orig_eids", &c.orig_eids, false));
  DG_RETURN_IF_ERROR(r.Scalar(root, "edge_cut", "edge_cut", &c.edge_cut, false));
  DG_RETURN_IF_ERROR(r.Scalar(root, "num_classes", "num_classes", &c.num_classes, false));

  if (c.num_nodes < 0) return r.Err("num_nodes", "negative");
  if (c.num_edges < 0) return r.Err("num_edges", "negative");
  if (c.num_parts < 1) return r.Err("num_parts", "must be >= 1");
  for (const char* key : {"node_map", "edge_map"}) {
    const auto& m = std::string(key) == "node_map" ? c.node_map : c.edge_map;
    int64_t total = std::string(key) == "node_map" ? c.num_nodes : c.num_edges;
    if (static_cast<int64_t>(m.size()) != c.num_parts + 1)
      return r.Err(key, "has " + std::to_string(m.size()) + " entries, expected num_parts+1 = " +
                            std::to_string(c.num_parts + 1));
    if (m.front() != 0 || m.back() != total)
      return r.Err(key, "must start at 0 and end at " + std::to_string(total));
    for (size_t i = 1; i < m.size(); ++i)
      if (m[i] < m[i - 1]) return r.Err(key, "is not non-decreasing");
  }
  for (const auto& [name, info] : c.node_data)
    if (info.shape[0] != c.num_nodes)
      return r.Err("node_data." + name + ".shape", "first dimension must be num_nodes");
  for (const auto& [name, info] : c.edge_data)
    if (info.shape[0] != c.num_edges)
      return r.Err("edge_data." + name + ".shape", "first dimension must be num_edges");

  YAML::Node parts = root["parts"];
  if (!parts || !parts.IsSequence()) return r.Err("parts", "missing or not a list");
  if (static_cast<int>(parts.size()) != c.num_parts)
    return r.Err("parts", "has " + std::to_string(parts.size()) + " entries, num_parts is " +
                              std::to_string(c.num_parts));
  for (int p = 0; p < c.num_parts; ++p) {
    std::string key = "parts[" + std::to_string(p) + "]";
    const YAML::Node& n = parts[p];
    if (!n.IsMap()) return r.Err(key, "expected an object");
    PartInfo info;
    DG_RETURN_IF_ERROR(r.Scalar(n, "dir", key + ".dir", &info.dir));
    DG_RETURN_IF_ERROR(r.Scalar(n, "num_nodes", key + ".num_nodes", &info.num_nodes, false));
    DG_RETURN_IF_ERROR(r.Scalar(n, "num_edges", key + ".num_edges", &info.num_edges, false));
    DG_RETURN_IF_ERROR(r.Scalar(n, "num_train", key + ".num_train", &info.num_train, false));
    DG_RETURN_IF_ERROR(r.Scalar(n, "num_halo", key + ".num_halo", &info.num_halo, false));
    DG_RETURN_IF_ERROR(r.Scalar(n, "num_val", key + ".num_val", &info.num_val, false));
    DG_RETURN_IF_ERROR(r.Scalar(n, "num_test", key + ".num_test", &info.num_test, false));
    if (info.num_nodes != c.node_map[p + 1] - c.node_map[p])
      return r.Err(key + ".num_nodes", "does not match node_map");
    if (info.num_edges != c.edge_map[p + 1] - c.edge_map[p])
      return r.Err(key + ".num_edges", "does not match edge_map");
    c.parts.push_back(info);
  }
  return c;
}
}  // namespace

std::string PartitionConfigToJson(const PartitionConfig& c) {
  std::string s = "{\n";
  s += "  \"format_version\": " + std::to_string(c.format_version) + ",\n";
  s += "  \"graph_name\": " + JsonQuote(c.graph_name) + ",\n";
  s += "  \"part_method\": " + JsonQuote(c.part_method) + ",\n";
  s += "  \"num_nodes\": " + std::to_string(c.num_nodes) + ",\n";
  s += "  \"num_edges\": " + std::to_string(c.num_edges) + ",\n";
  s += "  \"num_parts\": " + std::to_string(c.num_parts) + ",\n";
  s += "  \"node_map\": " + IntListJson(c.node_map) + ",\n";
  s += "  \"edge_map\": " + IntListJson(c.edge_map) + ",\n";
  s += "  \"node_data\": " + ArrayInfosJson(c.node_data) + ",\n";
  s += "  \"edge_data\": " + ArrayInfosJson(c.edge_data) + ",\n";
  s += "  \"orig_nids\": " + JsonQuote(c.orig_nids) + ",\n";
  s += "  \"orig_eids\": " + JsonQuote(c.orig_eids) + ",\n";
  s += "  \"parts\": [";
  for (size_t p = 0; p < c.parts.size(); ++p) {
    const PartInfo& i = c.parts[p];
    s += p ? ",\n    " : "\n    ";
    s += "{\"dir\": " + JsonQuote(i.dir) + ", \"num_nodes\": " + std::to_string(i.num_nodes) +
         ", \"num_edges\": " + std::to_string(i.num_edges) + ", \"num_train\": " +
         std::to_string(i.num_train) + ", \"num_halo\": " + std::to_string(i.num_halo);
    if (i.num_val >= 0)
      s += ", \"num_val\": " + std::to_string(i.num_val) + ", \"num_test\": " + std::to_string(i.num_test);
    s += "}";
  }
  s += c.parts.empty() ? "],\n" : "\n  ],\n";
  if (c.num_classes > 0) s += "  \"num_classes\": " + std::to_string(c.num_classes) + ",\n";
  s += "  \"edge_cut\": " + std::to_string(c.edge_cut) + "\n";
  s += "}\n";
  return s;
}

int PartitionBook::Owner(int64_t gid) const {
  // First offset strictly greater than gid, minus one. Empty parts (equal
  // offsets) are skipped naturally.
  auto it = std::upper_bound(node_map_.begin() + 1, node_map_.end(), gid);
  return static_cast<int>(it - node_map_.begin()) - 1;
}

Result<LocalPartition> OpenLocalPartition(const PartitionConfig& config, int part) {
  if (part < 0 || part >= config.num_parts)
    return Status::InvalidArgument(config.path + ": partition " + std::to_string(part) +
                                   " out of range [0, " + std::to_string(config.num_parts) + ")");
  LocalPartition lp;
  lp.part_id = part;
  lp.node_begin = config.node_map[part];
  lp.node_end = config.node_map[part + 1];
  lp.edge_begin = config.edge_map[part];
  int64_t n = lp.node_end - lp.node_begin;
  int64_t m = config.edge_map[part + 1] - config.edge_map[part];
  std::string dir = config.PartDir(part);

  std::string f = dir + "/indptr.npy";
  DG_ASSIGN_OR_RETURN(lp.indptr, NpyMap(f));
  DG_RETURN_IF_ERROR(CheckArray(f, lp.indptr, DType::kInt64, {n + 1}));
  const int64_t* ip = lp.indptr.as<int64_t>();
  if (ip[0] != 0 || ip[n] != m)
    return Status::Corruption(f + ": indptr must start at 0 and end at " + std::to_string(m));
  f = dir + "/indices.npy";
  DG_ASSIGN_OR_RETURN(lp.indices, NpyMap(f));
  DG_RETURN_IF_ERROR(CheckArray(f, lp.indices, DType::kInt64, {m}));

  for (const auto& [name, info] : config.node_data) {
    f = dir + "/node_data/" + name + ".npy";
    DG_ASSIGN_OR_RETURN(Array a, NpyMap(f));
    std::vector<int64_t> shape = info.shape;
    shape[0] = n;
    DG_RETURN_IF_ERROR(CheckArray(f, a, info.dtype, shape));
    lp.node_data[name] = std::move(a);
  }
  for (const auto& [name, info] : config.edge_data) {
    f = dir + "/edge_data/" + name + ".npy";
    DG_ASSIGN_OR_RETURN(Array a, NpyMap(f));
    std::vector<int64_t> shape = info.shape;
    shape[0] = m;
    DG_RETURN_IF_ERROR(CheckArray(f, a, info.dtype, shape));
    lp.edge_data[name] = std::move(a);
  }
  return lp;
}

}  // namespace dg
