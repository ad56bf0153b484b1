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

  Status StringList(const YAML::Node& parent, const std::string& key, std::vector<std::string>* out) const {
    YAML::Node n = parent[key];
    if (!n) return Err(key, "missing");
    if (!n.IsSequence()) return Err(key, "expected a list of strings");
    out->clear();
    for (size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar()) return Err(key, "element " + std::to_string(i) + " is not a string");
      out->push_back(n[i].as<std::string>());
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
      // "<type>/<name>" in typed partitions (checked against node_types later).
      const size_t slash = name.find('/');
      if (name.empty() || name[0] == '.' || (slash != std::string::npos &&
                                             (slash == 0 || slash + 1 == name.size() || name[slash + 1] == '.' ||
                                              name.find('/', slash + 1) != std::string::npos)))
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
  DG_ASSIGN_OR_RETURN(PartitionConfig c, LoadAnyPartitionConfig(json_path));
  if (c.typed())
    return Status::Unsupported(json_path + ": key 'format_version': 2 is a typed (heterogeneous) partition with node types [" +
                               [&] {
                                 std::string s;
                                 for (size_t t = 0; t < c.node_types.size(); ++t) s += (t ? ", " : "") + c.node_types[t];
                                 return s;
                               }() + "]; this command reads homogeneous partitions (format_version 1) only");
  return c;
}

int PartitionConfig::NodeTypeId(const std::string& name) const {
  for (size_t t = 0; t < node_types.size(); ++t)
    if (node_types[t] == name) return static_cast<int>(t);
  return -1;
}

int PartitionConfig::NodeTypeOf(int64_t gid) const {
  const int p = PartitionBook(node_map).Owner(gid);
  const std::vector<int64_t>& off = node_type_offsets[p];
  auto it = std::upper_bound(off.begin() + 1, off.end(), gid);
  return static_cast<int>(it - off.begin()) - 1;
}

DType PartitionConfig::EdgeTypeDType() const { return edge_types.size() > 255 ? DType::kInt32 : DType::kUInt8; }

std::string PartitionConfig::TypeNidsPath(int t) const { return base_dir + "/type_nids/" + node_types[t] + ".npy"; }

Result<PartitionConfig> LoadAnyPartitionConfig(const std::string& json_path) {
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
// The typed fields of a format_version 2 config, checked against each other
// and against node_map / edge_map.
Status ParseTypedFields(const JsonReader& r, const YAML::Node& root, PartitionConfig* c) {
  DG_RETURN_IF_ERROR(r.StringList(root, "node_types", &c->node_types));
  const int T = c->num_node_types();
  if (T < 1) return r.Err("node_types", "empty");
  for (int t = 0; t < T; ++t) {
    const std::string& n = c->node_types[t];
    if (n.empty() || n[0] == '.' || n.find('/') != std::string::npos)
      return r.Err("node_types", "bad type name '" + n + "'");
    if (c->NodeTypeId(n) != t) return r.Err("node_types", "type '" + n + "' given twice");
  }
  YAML::Node ets = root["edge_types"];
  if (!ets || !ets.IsSequence()) return r.Err("edge_types", "missing or not a list of [src, relation, dst]");
  for (size_t i = 0; i < ets.size(); ++i) {
    const std::string key = "edge_types[" + std::to_string(i) + "]";
    const YAML::Node e = ets[i];
    if (!e.IsSequence() || e.size() != 3) return r.Err(key, "expected [src type, relation, dst type]");
    PartitionConfig::EdgeType et;
    et.src = e[0].as<std::string>();
    et.relation = e[1].as<std::string>();
    et.dst = e[2].as<std::string>();
    et.src_type = c->NodeTypeId(et.src);
    et.dst_type = c->NodeTypeId(et.dst);
    if (et.src_type < 0 || et.dst_type < 0) return r.Err(key, "names a type not in node_types");
    c->edge_types.push_back(et);
  }
  if (c->edge_types.size() > 32767) return r.Err("edge_types", "more than 32767 edge types");
  DG_RETURN_IF_ERROR(r.IntList(root, "num_nodes_per_type", &c->num_nodes_per_type));
  if (static_cast<int>(c->num_nodes_per_type.size()) != T)
    return r.Err("num_nodes_per_type", "expected one count per node type (" + std::to_string(T) + ")");
  int64_t total = 0;
  for (int64_t n : c->num_nodes_per_type) {
    if (n < 0) return r.Err("num_nodes_per_type", "negative count");
    total += n;
  }
  if (total != c->num_nodes) return r.Err("num_nodes_per_type", "does not sum to num_nodes");
  if (root["num_edges_per_type"]) {
    DG_RETURN_IF_ERROR(r.IntList(root, "num_edges_per_type", &c->num_edges_per_type));
    if (c->num_edges_per_type.size() != c->edge_types.size())
      return r.Err("num_edges_per_type", "expected one count per edge type");
    total = 0;
    for (int64_t n : c->num_edges_per_type) total += n;
    if (total != c->num_edges) return r.Err("num_edges_per_type", "does not sum to num_edges");
  }
  YAML::Node offs = root["node_type_offsets"];
  if (!offs || !offs.IsSequence() || static_cast<int>(offs.size()) != c->num_parts)
    return r.Err("node_type_offsets", "expected one list per part");
  std::vector<int64_t> per_type(T, 0);
  for (int p = 0; p < c->num_parts; ++p) {
    const std::string key = "node_type_offsets[" + std::to_string(p) + "]";
    std::vector<int64_t> o;
    const YAML::Node row = offs[p];
    if (!row.IsSequence()) return r.Err(key, "expected a list of integers");
    for (size_t i = 0; i < row.size(); ++i) {
      try {
        o.push_back(row[i].as<int64_t>());
      } catch (const YAML::Exception&) {
        return r.Err(key, "element " + std::to_string(i) + " is not an integer");
      }
    }
    if (static_cast<int>(o.size()) != T + 1) return r.Err(key, "expected " + std::to_string(T + 1) + " offsets");
    if (o.front() != c->node_map[p] || o.back() != c->node_map[p + 1])
      return r.Err(key, "must start at node_map[p] and end at node_map[p+1]");
    for (int t = 0; t < T; ++t) {
      if (o[t + 1] < o[t]) return r.Err(key, "is not non-decreasing");
      per_type[t] += o[t + 1] - o[t];
    }
    c->node_type_offsets.push_back(std::move(o));
  }
  if (per_type != c->num_nodes_per_type)
    return r.Err("node_type_offsets", "its ranges do not add up to num_nodes_per_type");
  DG_RETURN_IF_ERROR(r.Scalar(root, "target", "target", &c->target, false));
  if (!c->target.empty() && c->NodeTypeId(c->target) < 0) return r.Err("target", "'" + c->target + "' is not in node_types");
  for (const auto& [name, info] : c->node_data) {
    const size_t slash = name.find('/');
    const int t = slash == std::string::npos ? -1 : c->NodeTypeId(name.substr(0, slash));
    if (t < 0) return r.Err("node_data." + name, "typed node arrays are named '<node type>/<array>'");
    if (info.shape[0] != c->num_nodes_per_type[t])
      return r.Err("node_data." + name + ".shape", "first dimension must be num_nodes_per_type of '" + c->node_types[t] + "'");
  }
  return Status::OK();
}

// "checksums": {"algorithm": "sha256", "files": {"part0/indptr.npy": "<64 hex digits>", ...}}.
Status ParseChecksums(const JsonReader& r, const YAML::Node& root, PartitionConfig* c) {
  const YAML::Node n = root["checksums"];
  if (!n) return Status::OK();  // written before checksums existed
  if (!n.IsMap()) return r.Err("checksums", "expected an object with algorithm and files");
  std::string algorithm;
  DG_RETURN_IF_ERROR(r.Scalar(n, "algorithm", "checksums.algorithm", &algorithm));
  if (algorithm != "sha256") return r.Err("checksums.algorithm", "unknown algorithm '" + algorithm + "' (expected sha256)");
  const YAML::Node files = n["files"];
  if (!files || !files.IsMap()) return r.Err("checksums.files", "missing or not an object");
  for (auto it = files.begin(); it != files.end(); ++it) {
    const std::string file = it->first.as<std::string>();
    const std::string key = "checksums.files." + file;
    if (file.empty() || file[0] == '/' || file.find("..") != std::string::npos)
      return r.Err(key, "not a path inside the partition folder");
    if (!it->second.IsScalar()) return r.Err(key, "expected a hex digest");
    const std::string digest = it->second.Scalar();
    if (digest.size() != 64 || digest.find_first_not_of("0123456789abcdef") != std::string::npos)
      return r.Err(key, "'" + digest + "' is not a SHA-256 digest (64 lowercase hex digits)");
    c->checksums[file] = digest;
  }
  return Status::OK();
}

Result<PartitionConfig> ParsePartitionConfig(const std::string& json_path, const YAML::Node& root) {
  if (!root.IsMap()) return Status::Corruption(json_path + ": expected a JSON object");
  JsonReader r(json_path);
  PartitionConfig c;
  c.path = json_path;
  c.base_dir = DirName(json_path);
  DG_RETURN_IF_ERROR(r.Scalar(root, "format_version", "format_version", &c.format_version));
  if (c.format_version != 1 && c.format_version != 2)
    return r.Err("format_version", "unsupported version " + std::to_string(c.format_version) +
                                       " (this build reads 1, homogeneous, and 2, typed)");
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
  if (c.typed()) {
    DG_RETURN_IF_ERROR(ParseTypedFields(r, root, &c));
  } else {
    for (const char* key : {"node_types", "edge_types", "node_type_offsets"})
      if (root[key]) return r.Err(key, "present in a format_version 1 (homogeneous) partition");
    for (const auto& [name, info] : c.node_data) {
      if (name.find('/') != std::string::npos) return r.Err("node_data." + name, "bad array name");
      if (info.shape[0] != c.num_nodes)
        return r.Err("node_data." + name + ".shape", "first dimension must be num_nodes");
    }
  }
  for (const auto& [name, info] : c.edge_data)
    if (info.shape[0] != c.num_edges)
      return r.Err("edge_data." + name + ".shape", "first dimension must be num_edges");

  DG_RETURN_IF_ERROR(ParseChecksums(r, root, &c));

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
  if (c.typed()) {
    s += "  \"node_types\": [";
    for (size_t t = 0; t < c.node_types.size(); ++t) s += (t ? ", " : "") + JsonQuote(c.node_types[t]);
    s += "],\n  \"edge_types\": [";
    for (size_t i = 0; i < c.edge_types.size(); ++i) {
      const auto& e = c.edge_types[i];
      s += std::string(i ? ", " : "") + "[" + JsonQuote(e.src) + ", " + JsonQuote(e.relation) + ", " + JsonQuote(e.dst) + "]";
    }
    s += "],\n  \"num_nodes_per_type\": " + IntListJson(c.num_nodes_per_type) + ",\n";
    if (!c.num_edges_per_type.empty()) s += "  \"num_edges_per_type\": " + IntListJson(c.num_edges_per_type) + ",\n";
    s += "  \"node_type_offsets\": [";
    for (size_t p = 0; p < c.node_type_offsets.size(); ++p) s += (p ? ", " : "") + IntListJson(c.node_type_offsets[p]);
    s += "],\n";
    if (!c.target.empty()) s += "  \"target\": " + JsonQuote(c.target) + ",\n";
  }
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
  if (!c.checksums.empty()) {
    s += "  \"checksums\": {\"algorithm\": \"sha256\", \"files\": {";
    bool first = true;
    for (const auto& [file, digest] : c.checksums) {
      s += first ? "\n    " : ",\n    ";
      first = false;
      s += JsonQuote(file) + ": " + JsonQuote(digest);
    }
    s += "\n  }},\n";
  }
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

  if (config.typed()) {
    lp.type_offsets = config.node_type_offsets[part];
    f = dir + "/edge_types.npy";
    DG_ASSIGN_OR_RETURN(lp.edge_types, NpyMap(f));
    DG_RETURN_IF_ERROR(CheckArray(f, lp.edge_types, config.EdgeTypeDType(), {m}));
  }
  for (const auto& [name, info] : config.node_data) {
    f = dir + "/node_data/" + name + ".npy";
    DG_ASSIGN_OR_RETURN(Array a, NpyMap(f));
    std::vector<int64_t> shape = info.shape;
    shape[0] = n;
    if (config.typed()) {
      const int t = config.NodeTypeId(name.substr(0, name.find('/')));
      shape[0] = lp.type_offsets[t + 1] - lp.type_offsets[t];
    }
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
