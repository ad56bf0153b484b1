#include "common/storage/ogb_dataset.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>

#include "common/io/csv_reader.h"

namespace dg {

namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// float32 [rows, F] from a CSV of F numbers per line; rows must equal `rows` if >= 0.
Result<Array> ReadFeatures(const std::string& path, int64_t rows) {
  std::vector<float> v;
  int64_t cols = 0, n = 0;
  DG_RETURN_IF_ERROR(ForEachOgbFeatureRow(path, [&](int64_t, const double* x, int64_t k) {
    cols = k;
    for (int64_t j = 0; j < k; ++j) v.push_back(static_cast<float>(x[j]));
    return Status::OK();
  }, &n));
  DG_RETURN_IF_ERROR(CheckOgbRows(path, n, rows, "rows"));
  Array a = Array::Zeros(DType::kFloat32, {n, cols});
  std::copy(v.begin(), v.end(), a.as<float>());
  return a;
}

// int64 [rows] from a CSV of one number per line; nan -> -1.
Result<Array> ReadLabels(const std::string& path, int64_t rows) {
  std::vector<int64_t> v;
  int64_t n = 0;
  DG_RETURN_IF_ERROR(ForEachOgbLabel(path, [&](int64_t l) {
    v.push_back(l);
    return Status::OK();
  }, &n));
  DG_RETURN_IF_ERROR(CheckOgbRows(path, n, rows, "labels"));
  Array a = Array::Zeros(DType::kInt64, {n});
  std::copy(v.begin(), v.end(), a.as<int64_t>());
  return a;
}



}  // namespace

std::string OgbCsvPath(const std::string& base) {
  if (!Exists(base + ".csv.gz") && Exists(base + ".csv")) return base + ".csv";
  return base + ".csv.gz";
}

bool OgbFileExists(const std::string& path) { return Exists(path); }

std::vector<std::string> OgbSubDirs(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    struct stat st;
    if (n != "." && n != ".." && ::stat((dir + "/" + n).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Result<int64_t> OgbFeatureWidth(const std::string& path) {
  int64_t width = 0, seen = 0;
  DG_RETURN_IF_ERROR(ForEachCsvRowIn(path, 0, CsvRowRange{0, 1}, [&](int64_t, const double*, int64_t k) {
    width = k;
    return Status::OK();
  }, &seen));
  return width;
}

Status ForEachOgbFeatureRow(const std::string& path, const OgbFeatureFn& fn, int64_t* rows, CsvRowRange range) {
  int64_t cols = -1;
  if (range.first > 0) {
    DG_ASSIGN_OR_RETURN(cols, OgbFeatureWidth(path));
  }
  return ForEachCsvRowIn(path, 0, range, [&](int64_t r, const double* x, int64_t k) {
    if (cols < 0) cols = k;
    if (k != cols)
      return Status::InvalidArgument(path + ":" + std::to_string(r + 1) + ": " + std::to_string(k) + " values, line 1 has " +
                                     std::to_string(cols));
    return fn(r, x, k);
  }, rows);
}

Status ForEachOgbLabel(const std::string& path, const std::function<Status(int64_t)>& fn, int64_t* rows,
                       CsvRowRange range) {
  return ForEachCsvRowIn(path, 0, range, [&](int64_t r, const double* x, int64_t k) {
    if (k != 1) return Status::InvalidArgument(path + ":" + std::to_string(r + 1) + ": expected one label per line");
    return fn(std::isnan(x[0]) ? -1 : static_cast<int64_t>(x[0]));
  }, rows);
}

Status FillOgbSplit(const std::string& dir, int64_t n, int8_t* split, int share, int shares) {
  const char* names[] = {"train", "valid", "test"};
  for (int s = 0; s < 3; ++s) {
    const std::string path = OgbCsvPath(dir + "/" + names[s]);
    CsvRowRange range;
    if (shares > 1) {
      DG_ASSIGN_OR_RETURN(int64_t lines, CountCsvRows(path));
      range = ShareOfRows(share, shares, lines);
    }
    int64_t seen = 0;
    DG_RETURN_IF_ERROR(ForEachCsvRowIn(path, 0, range, [&](int64_t r, const double* x, int64_t k) {
      if (k == 0) return Status::OK();
      const int64_t id = static_cast<int64_t>(x[0]);
      if (k != 1 || id < 0 || id >= n || static_cast<double>(id) != x[0])
        return Status::InvalidArgument(path + ":" + std::to_string(r + 1) + ": expected a node id in [0, " +
                                       std::to_string(n) + ")");
      split[id] = static_cast<int8_t>(s);
      return Status::OK();
    }, &seen));
  }
  return Status::OK();
}

Result<Array> ReadOgbSplit(const std::string& dir, int64_t n, int share, int shares) {
  Array a = Array::Zeros(DType::kInt8, {n});
  std::fill(a.as<int8_t>(), a.as<int8_t>() + n, int8_t{-1});
  DG_RETURN_IF_ERROR(FillOgbSplit(dir, n, a.as<int8_t>(), share, shares));
  return a;
}

Status CheckOgbRows(const std::string& path, int64_t rows, int64_t expected, const std::string& what) {
  if (expected < 0 || rows == expected) return Status::OK();
  return Status::InvalidArgument(path + ": " + std::to_string(rows) + " " + what + ", expected " +
                                 std::to_string(expected) + " (one per node)");
}

Result<std::string> OgbSplitDir(const std::string& dir) {
  std::vector<std::string> splits = OgbSubDirs(dir + "/split");
  if (splits.size() == 1) return dir + "/split/" + splits[0];
  if (splits.empty()) return std::string();  // no split: no seeds
  std::string list;
  for (const std::string& s : splits) list += (list.empty() ? "" : ", ") + s;
  return Status::InvalidArgument(dir + "/split: holds several splits (" + list + "); keep one");
}

Result<int64_t> ReadOgbCount(const std::string& path) {
  int64_t n = -1;
  DG_RETURN_IF_ERROR(ForEachCsvRow(path, 0, [&](int64_t r, const double* x, int64_t k) {
    if (r == 0 && k >= 1) n = static_cast<int64_t>(x[0]);
    return Status::OK();
  }));
  if (n < 0) return Status::InvalidArgument(path + ": expected the node count on line 1");
  return n;
}

bool IsOgbHeterogeneous(const std::string& dir) {
  return Exists(dir + "/raw/num-node-dict.csv.gz") || Exists(dir + "/raw/num-node-dict.csv");
}

Result<Dataset> LoadOgbDataset(const std::string& dir, const EdgeListOptions& opts) {
  const std::string raw = dir + "/raw";
  if (!Exists(raw)) return Status::NotFound(raw + ": not found (an OGB dataset directory has raw/ and split/)");
  Dataset ds;
  ds.dir = dir;
  int64_t n = -1;
  if (Exists(OgbCsvPath(raw + "/num-node-list"))) {
    DG_ASSIGN_OR_RETURN(n, ReadOgbCount(OgbCsvPath(raw + "/num-node-list")));
  }
  if (Exists(OgbCsvPath(raw + "/node-feat"))) {
    DG_ASSIGN_OR_RETURN(Array f, ReadFeatures(OgbCsvPath(raw + "/node-feat"), n));
    n = f.shape[0];
    ds.node_data["features"] = std::move(f);
  }
  const std::string edge_path = OgbCsvPath(raw + "/edge");
  DG_ASSIGN_OR_RETURN(ds.edges, ReadEdgeListText(edge_path, n));
  if (n < 0) n = ds.edges.max_id + 1;
  ds.num_nodes = n;
  if (Exists(OgbCsvPath(raw + "/node-label"))) {
    DG_ASSIGN_OR_RETURN(ds.node_data["labels"], ReadLabels(OgbCsvPath(raw + "/node-label"), n));
  }
  DG_ASSIGN_OR_RETURN(std::string split, OgbSplitDir(dir));
  if (!split.empty()) {
    DG_ASSIGN_OR_RETURN(ds.node_data["split"], ReadOgbSplit(split, n));
  }
  EdgeListOptions norm = opts;
  norm.num_nodes = n;
  NormalizeEdges(&ds.edges, norm);
  return ds;
}

std::string OgbEdgeFile(const std::string& dir, const EdgeTypeData& et) {
  return OgbCsvPath(dir + "/raw/relations/" + et.src_type + "___" + et.relation + "___" + et.dst_type + "/edge");
}

std::string OgbTypeFile(const std::string& dir, const std::string& type, const std::string& what) {
  return OgbCsvPath(dir + "/raw/" + what + "/" + type + "/" + what);
}

Result<TypedDataset> ReadOgbTypedMeta(const std::string& dir) {
  const std::string raw = dir + "/raw";
  const std::string dict = OgbCsvPath(raw + "/num-node-dict");
  DG_ASSIGN_OR_RETURN(std::vector<std::string> lines, ReadTextLines(dict));
  if (lines.size() < 2) return Status::InvalidArgument(dict + ": expected a header of node types and a line of counts");
  std::vector<std::string> names, counts;
  for (int which = 0; which < 2; ++which) {
    std::vector<std::string>& out = which == 0 ? names : counts;
    std::string cur;
    for (char c : lines[which]) {
      if (c == ',') {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    out.push_back(cur);
  }
  if (names.size() != counts.size())
    return Status::InvalidArgument(dict + ": " + std::to_string(names.size()) + " types in the header, " +
                                   std::to_string(counts.size()) + " counts on line 2");
  TypedDataset ds;
  ds.dir = dir;
  for (size_t t = 0; t < names.size(); ++t) {
    NodeTypeData nt;
    nt.name = names[t];
    try {
      nt.count = std::stoll(counts[t]);
    } catch (...) {
      return Status::InvalidArgument(dict + ":2: count '" + counts[t] + "' of type '" + names[t] + "' is not a number");
    }
    ds.node_types.push_back(std::move(nt));
  }
  for (const std::string& rel : OgbSubDirs(raw + "/relations")) {
    const size_t a = rel.find("___"), b = rel.rfind("___");
    if (a == std::string::npos || a == b)
      return Status::InvalidArgument(raw + "/relations/" + rel + ": expected a directory named <src>___<relation>___<dst>");
    EdgeTypeData et;
    et.src_type = rel.substr(0, a);
    et.relation = rel.substr(a + 3, b - a - 3);
    et.dst_type = rel.substr(b + 3);
    et.src_type_id = ds.NodeTypeId(et.src_type);
    et.dst_type_id = ds.NodeTypeId(et.dst_type);
    if (et.src_type_id < 0 || et.dst_type_id < 0)
      return Status::InvalidArgument(raw + "/relations/" + rel + ": names a node type not in " + dict);
    ds.edge_types.push_back(std::move(et));
  }
  return ds;
}

Result<std::string> OgbTypedTarget(const std::string& dir, const TypedDataset& meta, const std::string& split) {
  std::string target;
  for (const NodeTypeData& nt : meta.node_types) {
    if (!Exists(OgbTypeFile(dir, nt.name, "node-label"))) continue;
    if (!target.empty())
      return Status::InvalidArgument(dir + "/raw/node-label: labels for two types ('" + target + "', '" + nt.name +
                                     "'); distgnn trains on one target type");
    target = nt.name;
  }
  for (const NodeTypeData& nt : meta.node_types)
    if (target.empty() && !split.empty() && Exists(split + "/" + nt.name)) target = nt.name;
  return target;
}

Result<TypedDataset> LoadOgbTypedDataset(const std::string& dir, const TypedLoadOptions& opts) {
  DG_ASSIGN_OR_RETURN(TypedDataset ds, ReadOgbTypedMeta(dir));
  for (EdgeTypeData& et : ds.edge_types) {
    const std::string path = OgbEdgeFile(dir, et);
    const int64_t ns = ds.node_types[et.src_type_id].count, nd = ds.node_types[et.dst_type_id].count;
    DG_ASSIGN_OR_RETURN(EdgeList el, ReadEdgeListText(path, std::max(ns, nd)));
    for (size_t k = 0; k < el.src.size(); ++k)
      if (el.src[k] >= ns || el.dst[k] >= nd)
        return Status::InvalidArgument(path + ": edge " + std::to_string(k + 1) + " (" + std::to_string(el.src[k]) + ", " +
                                       std::to_string(el.dst[k]) + ") is outside " + et.src_type + " x " + et.dst_type);
    et.src = std::move(el.src);
    et.dst = std::move(el.dst);
  }
  DG_ASSIGN_OR_RETURN(std::string split, OgbSplitDir(dir));
  DG_ASSIGN_OR_RETURN(ds.target, OgbTypedTarget(dir, ds, split));
  for (NodeTypeData& nt : ds.node_types) {
    const std::string feat = OgbTypeFile(dir, nt.name, "node-feat");
    if (Exists(feat)) {
      DG_ASSIGN_OR_RETURN(nt.data["features"], ReadFeatures(feat, nt.count));
    }
    const std::string lab = OgbTypeFile(dir, nt.name, "node-label");
    if (Exists(lab)) {
      DG_ASSIGN_OR_RETURN(nt.data["labels"], ReadLabels(lab, nt.count));
    }
    if (!split.empty() && Exists(split + "/" + nt.name)) {
      DG_ASSIGN_OR_RETURN(nt.data["split"], ReadOgbSplit(split + "/" + nt.name, nt.count));
    }
  }
  NormalizeTypedEdges(&ds, opts);
  DG_RETURN_IF_ERROR(ValidateTypedDataset(&ds, dir));
  return ds;
}

}  // namespace dg
