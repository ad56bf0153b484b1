#include "common/storage/typed_dataset.h"

#include <dirent.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "common/io/json_writer.h"
#include "common/io/npy.h"
#include "common/storage/dataset.h"

namespace dg {

namespace {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// A type or relation name usable in a file name and in the partition's
// node_data keys ("type/array").
bool ValidTypeName(const std::string& s) {
  if (s.empty() || s[0] == '.' || s.find("__") != std::string::npos) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

// Converts an integer array to int64 / int8 (copies unless it already is).
Result<Array> AsInt(const Array& a, DType want, const std::string& what) {
  if (a.dtype == want) return a;
  if (a.dtype != DType::kInt64 && a.dtype != DType::kInt32 && a.dtype != DType::kInt8 && a.dtype != DType::kUInt8)
    return Status::InvalidArgument(what + ": expected an integer array, got " + DTypeName(a.dtype));
  Array out = Array::Zeros(want, a.shape);
  for (int64_t i = 0; i < a.numel(); ++i) {
    int64_t v = 0;
    switch (a.dtype) {
      case DType::kInt64: v = a.as<int64_t>()[i]; break;
      case DType::kInt32: v = a.as<int32_t>()[i]; break;
      case DType::kInt8: v = a.as<int8_t>()[i]; break;
      default: v = a.as<uint8_t>()[i]; break;
    }
    if (want == DType::kInt64) out.as<int64_t>()[i] = v;
    else out.as<int8_t>()[i] = static_cast<int8_t>(v);
  }
  return out;
}

Status OutOfRange(const std::string& where, const EdgeTypeData& et, int64_t s, int64_t d, int64_t num_src,
                  int64_t num_dst) {
  return Status::InvalidArgument(where + " (" + std::to_string(s) + ", " + std::to_string(d) + ") is outside " +
                                 et.src_type + " [0, " + std::to_string(num_src) + ") x " + et.dst_type + " [0, " +
                                 std::to_string(num_dst) + ")");
}

}  // namespace

Result<std::string> TypedEdgeFile(const std::string& dir, const EdgeTypeData& et) {
  const std::string base = dir + "/edges/" + et.CanonicalName();
  for (const char* ext : {".tsv", ".tsv.gz", ".csv", ".csv.gz", ".txt", ".npy", ".npy.gz"})
    if (FileExists(base + ext)) return base + ext;
  return Status::NotFound(dir + "/edges: no file for edge type [" + et.src_type + ", " + et.relation + ", " +
                          et.dst_type + "] (expected " + et.CanonicalName() + ".tsv or " + et.CanonicalName() +
                          ".npy)");
}

Status ForEachTypedEdge(const std::string& dir, const EdgeTypeData& et, int64_t num_src, int64_t num_dst,
                        const TypedEdgeChunkFn& fn, int64_t* skip_rows) {
  int64_t none = 0;
  if (!skip_rows) skip_rows = &none;
  DG_ASSIGN_OR_RETURN(std::string path, TypedEdgeFile(dir, et));
  if (!EndsWith(path, ".npy") && !EndsWith(path, ".npy.gz")) {
    int64_t line_edges = *skip_rows, max_id = 0;
    // Ids are checked against the larger count by the parser, then per side.
    return ForEachEdgeText(path, std::max(num_src, num_dst), [&](const int64_t* s, const int64_t* d, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        if (s[i] >= num_src || d[i] >= num_dst)
          return OutOfRange(path + ": edge " + std::to_string(line_edges + i + 1), et, s[i], d[i], num_src, num_dst);
      line_edges += n;
      return fn(s, d, n);
    }, &max_id, skip_rows);
  }
  DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
  if (a.shape.size() != 2 || a.shape[1] != 2)
    return Status::InvalidArgument(path + ": expected an [E, 2] array of (src, dst) pairs, got shape " +
                                   a.ShapeString());
  if (a.dtype != DType::kInt64 && a.dtype != DType::kInt32)
    return Status::InvalidArgument(path + ": node ids must be int64 or int32, got " + DTypeName(a.dtype));
  const int64_t e = a.shape[0];
  constexpr int64_t kChunk = 1 << 20;
  std::vector<int64_t> src, dst;
  const int64_t first = std::min(*skip_rows, e);
  *skip_rows -= first;
  for (int64_t b = first; b < e; b += kChunk) {
    const int64_t n = std::min(kChunk, e - b);
    src.resize(n);
    dst.resize(n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = b + i;
      src[i] = a.dtype == DType::kInt64 ? a.as<int64_t>()[2 * k] : a.as<int32_t>()[2 * k];
      dst[i] = a.dtype == DType::kInt64 ? a.as<int64_t>()[2 * k + 1] : a.as<int32_t>()[2 * k + 1];
      if (src[i] < 0 || src[i] >= num_src || dst[i] < 0 || dst[i] >= num_dst)
        return OutOfRange(path + ": row " + std::to_string(k), et, src[i], dst[i], num_src, num_dst);
    }
    DG_RETURN_IF_ERROR(fn(src.data(), dst.data(), n));
  }
  return Status::OK();
}

namespace {

// Reads one edge type's file, whichever form exists.
Status ReadEdgeType(const std::string& dir, int64_t num_src, int64_t num_dst, EdgeTypeData* et) {
  return ForEachTypedEdge(dir, *et, num_src, num_dst, [&](const int64_t* s, const int64_t* d, int64_t n) {
    et->src.insert(et->src.end(), s, s + n);
    et->dst.insert(et->dst.end(), d, d + n);
    return Status::OK();
  });
}

}  // namespace

int TypeMajorGraph::NodeType(int64_t id) const {
  auto it = std::upper_bound(type_offsets.begin() + 1, type_offsets.end(), id);
  return static_cast<int>(it - type_offsets.begin()) - 1;
}

int TypedDataset::NodeTypeId(const std::string& name) const {
  for (size_t t = 0; t < node_types.size(); ++t)
    if (node_types[t].name == name) return static_cast<int>(t);
  return -1;
}

int64_t TypedDataset::NumNodes() const {
  int64_t n = 0;
  for (const auto& t : node_types) n += t.count;
  return n;
}

int64_t TypedDataset::NumEdges() const {
  int64_t e = 0;
  for (const auto& t : edge_types) e += t.size();
  return e;
}

std::vector<int64_t> TypedDataset::TypeOffsets() const {
  std::vector<int64_t> off(node_types.size() + 1, 0);
  for (size_t t = 0; t < node_types.size(); ++t) off[t + 1] = off[t] + node_types[t].count;
  return off;
}

TypeMajorGraph TypedDataset::ToTypeMajorGraph() const {
  TypeMajorGraph g;
  g.type_offsets = TypeOffsets();
  const int64_t n = g.num_nodes();
  const int64_t nnz = NumEdges();
  g.indptr.assign(static_cast<size_t>(n) + 1, 0);
  for (const auto& et : edge_types) {
    const int64_t off = g.type_offsets[et.dst_type_id];
    for (int64_t d : et.dst) ++g.indptr[off + d + 1];
  }
  for (int64_t v = 0; v < n; ++v) g.indptr[v + 1] += g.indptr[v];
  g.indices.resize(static_cast<size_t>(nnz));
  g.edge_types.resize(static_cast<size_t>(nnz));
  // Edge types in id order with a stable counting sort by destination: each
  // row comes out sorted by edge type.
  std::vector<int64_t> cursor(g.indptr.begin(), g.indptr.end() - 1);
  for (size_t r = 0; r < edge_types.size(); ++r) {
    const EdgeTypeData& et = edge_types[r];
    const int64_t so = g.type_offsets[et.src_type_id], dof = g.type_offsets[et.dst_type_id];
    for (int64_t k = 0; k < et.size(); ++k) {
      const int64_t pos = cursor[dof + et.dst[k]]++;
      g.indices[pos] = so + et.src[k];
      g.edge_types[pos] = static_cast<int32_t>(r);
    }
  }
  return g;
}

bool IsTypedDatasetDir(const std::string& dir) {
  const std::string meta = dir + "/meta.json";
  if (!FileExists(meta)) return false;
  try {
    YAML::Node root = YAML::LoadFile(meta);
    return root.IsMap() && root["node_types"];
  } catch (const YAML::Exception&) {
    return true;  // a broken meta.json: LoadTypedDataset reports it
  }
}

std::string TypedMetaJson(const std::vector<std::pair<std::string, int64_t>>& node_types,
                          const std::vector<std::vector<std::string>>& edge_types, const std::string& target,
                          int num_classes) {
  std::string s = "{\n  \"node_types\": {";
  for (size_t t = 0; t < node_types.size(); ++t)
    s += std::string(t ? ", " : "") + JsonQuote(node_types[t].first) + ": " + std::to_string(node_types[t].second);
  s += "},\n  \"edge_types\": [";
  for (size_t r = 0; r < edge_types.size(); ++r) {
    s += r ? ",\n    [" : "\n    [";
    for (size_t i = 0; i < edge_types[r].size(); ++i) s += (i ? ", " : "") + JsonQuote(edge_types[r][i]);
    s += "]";
  }
  s += "\n  ],\n";
  if (!target.empty()) s += "  \"target\": " + JsonQuote(target) + ",\n";
  s += "  \"num_classes\": " + std::to_string(num_classes) + "\n}\n";
  return s;
}

Status ValidateTypedDataset(TypedDataset* ds, const std::string& where) {
  if (ds->node_types.empty()) return Status::InvalidArgument(where + ": no node types");
  if (ds->node_types.size() > 32767)
    return Status::InvalidArgument(where + ": " + std::to_string(ds->node_types.size()) + " node types (at most 32767)");
  if (ds->edge_types.size() > 32767)
    return Status::InvalidArgument(where + ": " + std::to_string(ds->edge_types.size()) + " edge types (at most 32767)");
  std::set<std::string> names;
  for (NodeTypeData& t : ds->node_types) {
    if (!ValidTypeName(t.name))
      return Status::InvalidArgument(where + ": node type '" + t.name +
                                     "': names are letters, digits, '_', '-', '.' (no '__', not starting with '.')");
    if (!names.insert(t.name).second) return Status::InvalidArgument(where + ": node type '" + t.name + "' given twice");
    if (t.count < 0) return Status::InvalidArgument(where + ": node type '" + t.name + "' has a negative count");
    for (auto& [key, a] : t.data) {
      const std::string what = where + ": nodes/" + t.name + "/" + key;
      if (a.shape.empty() || a.shape[0] != t.count)
        return Status::InvalidArgument(what + " has shape " + a.ShapeString() + ", expected " +
                                       std::to_string(t.count) + " rows (the count of '" + t.name + "')");
      if (key == "labels") {
        if (a.shape.size() != 1) return Status::InvalidArgument(what + ": expected a 1-D array");
        DG_ASSIGN_OR_RETURN(a, AsInt(a, DType::kInt64, what));
      } else if (key == "split") {
        if (a.shape.size() != 1) return Status::InvalidArgument(what + ": expected a 1-D array");
        DG_ASSIGN_OR_RETURN(a, AsInt(a, DType::kInt8, what));
      } else if (key == "features" && (a.dtype != DType::kFloat32 || a.shape.size() != 2)) {
        return Status::InvalidArgument(what + ": expected float32 [" + std::to_string(t.count) + ", F], got " +
                                       DTypeName(a.dtype) + " " + a.ShapeString());
      }
    }
  }
  std::set<std::string> etypes;
  for (EdgeTypeData& et : ds->edge_types) {
    const std::string name = "[" + et.src_type + ", " + et.relation + ", " + et.dst_type + "]";
    et.src_type_id = ds->NodeTypeId(et.src_type);
    et.dst_type_id = ds->NodeTypeId(et.dst_type);
    if (et.src_type_id < 0 || et.dst_type_id < 0)
      return Status::InvalidArgument(where + ": edge type " + name + " names an unknown node type");
    if (!ValidTypeName(et.relation))
      return Status::InvalidArgument(where + ": edge type " + name + ": bad relation name '" + et.relation + "'");
    if (!etypes.insert(et.CanonicalName()).second)
      return Status::InvalidArgument(where + ": edge type " + name + " given twice");
    if (et.src.size() != et.dst.size()) return Status::Internal(where + ": edge type " + name + ": src/dst sizes differ");
    const int64_t ns = ds->node_types[et.src_type_id].count, nd = ds->node_types[et.dst_type_id].count;
    for (size_t k = 0; k < et.src.size(); ++k)
      if (et.src[k] < 0 || et.src[k] >= ns || et.dst[k] < 0 || et.dst[k] >= nd)
        return Status::InvalidArgument(where + ": edge type " + name + ": edge " + std::to_string(k) + " (" +
                                       std::to_string(et.src[k]) + ", " + std::to_string(et.dst[k]) +
                                       ") is out of range");
  }
  ds->target_type = -1;
  if (!ds->target.empty()) {
    ds->target_type = ds->NodeTypeId(ds->target);
    if (ds->target_type < 0)
      return Status::InvalidArgument(where + ": target '" + ds->target + "' is not a node type");
  }
  // num_classes: given, else 1 + the largest label of the target type.
  if (ds->target_type >= 0 && ds->num_classes <= 0) {
    if (const Array* l = ds->node_types[ds->target_type].Find("labels")) {
      int64_t m = -1;
      for (int64_t i = 0; i < l->shape[0]; ++i) m = std::max(m, l->as<int64_t>()[i]);
      ds->num_classes = static_cast<int>(m + 1);
    }
  }
  return Status::OK();
}

void NormalizeTypedEdges(TypedDataset* ds, const TypedLoadOptions& opts) {
  if (opts.drop_self_loops || opts.drop_duplicates) {
    for (EdgeTypeData& et : ds->edge_types) {
      EdgeListOptions eo;
      eo.drop_self_loops = opts.drop_self_loops && et.src_type_id == et.dst_type_id;
      eo.drop_duplicates = opts.drop_duplicates;
      if (!eo.drop_self_loops && !eo.drop_duplicates) continue;
      EdgeList el;
      el.src = std::move(et.src);
      el.dst = std::move(et.dst);
      NormalizeEdges(&el, eo);
      et.src = std::move(el.src);
      et.dst = std::move(el.dst);
    }
  }
  if (opts.undirected) {
    const size_t r = ds->edge_types.size();
    for (size_t i = 0; i < r; ++i) {
      const EdgeTypeData& f = ds->edge_types[i];
      EdgeTypeData rev;
      rev.src_type = f.dst_type;
      rev.dst_type = f.src_type;
      rev.src_type_id = f.dst_type_id;
      rev.dst_type_id = f.src_type_id;
      rev.relation = "rev_" + f.relation;
      rev.src = f.dst;
      rev.dst = f.src;
      ds->edge_types.push_back(std::move(rev));
    }
  }
}

Result<TypedDataset> LoadTypedDataset(const std::string& dir, bool undirected) {
  TypedLoadOptions o;
  o.undirected = undirected;
  return LoadTypedDataset(dir, o);
}

std::map<std::string, std::string> TypedNodeFiles(const std::string& dir, const std::string& type) {
  const std::string tdir = dir + "/nodes/" + type;
  std::map<std::string, std::string> files;  // array name -> path; plain .npy wins over .npy.gz
  for (const std::string& f : ListDir(tdir)) {
    if (EndsWith(f, ".npy")) files[f.substr(0, f.size() - 4)] = tdir + "/" + f;
    else if (EndsWith(f, ".npy.gz") && !files.count(f.substr(0, f.size() - 7)))
      files[f.substr(0, f.size() - 7)] = tdir + "/" + f;
  }
  return files;
}

Result<TypedDataset> LoadTypedDataset(const std::string& dir, const TypedLoadOptions& opts) {
  DG_ASSIGN_OR_RETURN(TypedDataset ds, ReadTypedMeta(dir));
  const std::string meta = dir + "/meta.json";
  for (NodeTypeData& t : ds.node_types) {
    for (const auto& [name, path] : TypedNodeFiles(dir, t.name)) {
      DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
      if (a.shape.empty() || a.shape[0] != t.count)
        return Status::InvalidArgument(path + ": shape " + a.ShapeString() + ", expected " + std::to_string(t.count) +
                                       " rows (meta.json node_types." + t.name + ")");
      t.data[name] = std::move(a);
    }
  }
  for (EdgeTypeData& et : ds.edge_types)
    DG_RETURN_IF_ERROR(ReadEdgeType(dir, ds.node_types[et.src_type_id].count, ds.node_types[et.dst_type_id].count, &et));
  NormalizeTypedEdges(&ds, opts);
  DG_RETURN_IF_ERROR(ValidateTypedDataset(&ds, dir));
  return ds;
}

Result<TypedDataset> ReadTypedMeta(const std::string& dir) {
  const std::string meta = dir + "/meta.json";
  if (!FileExists(meta)) return Status::NotFound(meta + ": not found (a typed dataset directory has a meta.json)");
  TypedDataset ds;
  ds.dir = dir;
  try {
    YAML::Node root = YAML::LoadFile(meta);
    if (!root.IsMap()) return Status::InvalidArgument(meta + ": expected a JSON object");
    YAML::Node nt = root["node_types"];
    if (!nt || !nt.IsMap() || nt.size() == 0)
      return Status::InvalidArgument(meta + ": key 'node_types': expected an object {type: node count, ...}");
    for (auto it = nt.begin(); it != nt.end(); ++it) {
      NodeTypeData t;
      t.name = it->first.as<std::string>();
      try {
        t.count = it->second.as<int64_t>();
      } catch (const YAML::Exception&) {
        return Status::InvalidArgument(meta + ": key 'node_types." + t.name + "': expected a node count");
      }
      ds.node_types.push_back(std::move(t));
    }
    YAML::Node et = root["edge_types"];
    if (et && !et.IsSequence())
      return Status::InvalidArgument(meta + ": key 'edge_types': expected a list of [src, relation, dst]");
    for (size_t i = 0; et && i < et.size(); ++i) {
      const YAML::Node e = et[i];
      if (!e.IsSequence() || e.size() != 3)
        return Status::InvalidArgument(meta + ": key 'edge_types[" + std::to_string(i) +
                                       "]': expected [src type, relation, dst type]");
      EdgeTypeData d;
      d.src_type = e[0].as<std::string>();
      d.relation = e[1].as<std::string>();
      d.dst_type = e[2].as<std::string>();
      ds.edge_types.push_back(std::move(d));
    }
    if (root["target"]) ds.target = root["target"].as<std::string>();
    if (root["num_classes"]) {
      try {
        ds.num_classes = root["num_classes"].as<int>();
      } catch (const YAML::Exception&) {
        return Status::InvalidArgument(meta + ": key 'num_classes': expected an integer");
      }
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(meta + ": not valid JSON: " + e.what());
  }
  // Type ids (the edge readers need the counts); LoadTypedDataset checks the arrays and edges.
  for (EdgeTypeData& et : ds.edge_types) {
    et.src_type_id = ds.NodeTypeId(et.src_type);
    et.dst_type_id = ds.NodeTypeId(et.dst_type);
    if (et.src_type_id < 0 || et.dst_type_id < 0)
      return Status::InvalidArgument(meta + ": edge type [" + et.src_type + ", " + et.relation + ", " + et.dst_type +
                                     "] names an unknown node type");
    if (!ValidTypeName(et.relation))
      return Status::InvalidArgument(meta + ": edge type [" + et.src_type + ", " + et.relation + ", " + et.dst_type +
                                     "]: bad relation name");
  }
  for (NodeTypeData& t : ds.node_types) {
    if (!ValidTypeName(t.name))
      return Status::InvalidArgument(meta + ": node type '" + t.name +
                                     "': names are letters, digits, '_', '-', '.' (no '__', not starting with '.')");
    if (t.count < 0) return Status::InvalidArgument(meta + ": key 'node_types." + t.name + "': negative count");
  }
  if (!ds.target.empty() && ds.NodeTypeId(ds.target) < 0)
    return Status::InvalidArgument(meta + ": key 'target': '" + ds.target + "' is not a node type");
  ds.target_type = ds.NodeTypeId(ds.target);
  return ds;
}

}  // namespace dg
