#include "common/storage/dataset.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <numeric>

#include "common/io/gzip_reader.h"
#include "common/io/npy.h"
#include "common/base/radix_sort.h"

namespace dg {

namespace {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

Status LineError(const std::string& path, int64_t line, const std::string& what) {
  return Status::InvalidArgument(path + ":" + std::to_string(line) + ": " + what);
}

// Parses an optionally signed decimal integer at *p; advances *p. Returns false
// if there are no digits or it overflows.
inline bool ParseInt(const char** p, const char* end, int64_t* out) {
  const char* q = *p;
  bool neg = false;
  if (q < end && (*q == '-' || *q == '+')) {
    neg = *q == '-';
    ++q;
  }
  const char* digits = q;
  uint64_t v = 0;
  while (q < end && static_cast<unsigned>(*q - '0') < 10) {
    v = v * 10 + static_cast<unsigned>(*q - '0');
    if (v > (uint64_t{1} << 62)) return false;
    ++q;
  }
  if (q == digits) return false;
  *p = q;
  *out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

std::string Snippet(const char* begin, const char* end) {
  const char* e = begin;
  while (e < end && *e != '\n' && e - begin < 60) ++e;
  std::string s(begin, e);
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

Status CheckId(const std::string& where, int64_t id, int64_t num_nodes) {
  if (id < 0) return Status::InvalidArgument(where + ": negative node id " + std::to_string(id));
  if (num_nodes >= 0 && id >= num_nodes)
    return Status::InvalidArgument(where + ": node id " + std::to_string(id) +
                                   " is out of range (num_nodes = " + std::to_string(num_nodes) + ")");
  return Status::OK();
}

Result<std::vector<int64_t>> IdArray(const std::string& path, int64_t num_nodes) {
  DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
  if (a.shape.size() != 1)
    return Status::InvalidArgument(path + ": expected a 1-D array of node ids, got shape " +
                                   a.ShapeString());
  std::vector<int64_t> out(static_cast<size_t>(a.shape[0]));
  if (a.dtype == DType::kInt64) {
    std::memcpy(out.data(), a.data, a.nbytes());
  } else if (a.dtype == DType::kInt32) {
    const int32_t* p = a.as<int32_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    return Status::InvalidArgument(path + ": node ids must be int64 or int32, got " +
                                   DTypeName(a.dtype));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] < 0 || (num_nodes >= 0 && out[i] >= num_nodes))
      return CheckId(path + ": element " + std::to_string(i), out[i], num_nodes);
  }
  return out;
}

int64_t MaxId(const EdgeList& e) {
  int64_t m = -1;
  for (int64_t v : e.src) m = std::max(m, v);
  for (int64_t v : e.dst) m = std::max(m, v);
  return m;
}

int BitsFor(uint64_t v) {
  int b = 1;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

}  // namespace

namespace {

// Parses the complete lines in [p, end); *line counts lines across calls.
Status ParseEdgeLines(const std::string& path, const char* p, const char* end, int64_t num_nodes, int64_t* line,
                      int64_t* max_id, std::vector<int64_t>* src, std::vector<int64_t>* dst) {
  while (p < end) {
    ++*line;
    const char* line_start = p;
    while (p < end && IsBlank(*p)) ++p;
    if (p == end) break;
    if (*p == '\n' || *p == '#') {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      p = nl ? nl + 1 : end;
      continue;
    }
    int64_t ids[2];
    for (int k = 0; k < 2; ++k) {
      if (k == 1) {  // separator: blanks, at most one comma
        const char* before = p;
        while (p < end && IsBlank(*p)) ++p;
        if (p < end && *p == ',') ++p;
        while (p < end && IsBlank(*p)) ++p;
        if (p == before)
          return LineError(path, *line, "expected 'src dst', got '" + Snippet(line_start, end) + "'");
      }
      if (!ParseInt(&p, end, &ids[k]))
        return LineError(path, *line, "expected 'src dst' (two integer node ids), got '" +
                                          Snippet(line_start, end) + "'");
    }
    while (p < end && (IsBlank(*p) || *p == ',')) ++p;
    if (p < end && *p == '#') {
      while (p < end && *p != '\n') ++p;
    }
    if (p < end && *p != '\n')
      return LineError(path, *line, "expected 2 columns 'src dst', got '" + Snippet(line_start, end) + "'");
    if (p < end) ++p;
    for (int64_t id : ids) {
      if (id < 0 || (num_nodes >= 0 && id >= num_nodes))
        return CheckId(path + ":" + std::to_string(*line), id, num_nodes);
      if (id > *max_id) *max_id = id;
    }
    src->push_back(ids[0]);
    dst->push_back(ids[1]);
  }
  return Status::OK();
}

// Skips up to *rows edge lines of [p, end) (complete lines) without parsing
// them, counting every line in *line; returns where the rest starts.
const char* SkipEdgeRows(const char* p, const char* end, int64_t* line, int64_t* rows) {
  while (p < end && *rows > 0) {
    ++*line;
    const char* q = p;
    while (q < end && IsBlank(*q)) ++q;
    if (q < end && *q != '\n' && *q != '#') --*rows;
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', end - q));
    p = nl ? nl + 1 : end;
  }
  return p;
}

// ForEachEdgeText, with *skip_rows counted down as rows are skipped.
Status ScanEdgeText(const std::string& path, int64_t num_nodes, const EdgeChunkFn& fn, int64_t* max_id,
                    int64_t* skip_rows) {
  GzipFile f;
  DG_RETURN_IF_ERROR(f.Open(path));
  constexpr size_t kBlock = 8 << 20;
  std::vector<char> buf;
  std::vector<int64_t> src, dst;
  int64_t line = 0;
  *max_id = -1;
  bool eof = false;
  while (!eof) {
    const size_t have = buf.size();
    buf.resize(have + kBlock);
    size_t got = 0;
    DG_RETURN_IF_ERROR(f.Read(buf.data() + have, kBlock, &got));
    buf.resize(have + got);
    eof = got < kBlock;
    // Complete lines only, unless this is the end of the file.
    size_t upto = buf.size();
    if (!eof) {
      const char* nl = nullptr;
      for (size_t i = buf.size(); i > 0; --i)
        if (buf[i - 1] == '\n') {
          nl = buf.data() + i;
          break;
        }
      if (!nl) continue;  // a line longer than the block: read more
      upto = static_cast<size_t>(nl - buf.data());
    }
    src.clear();
    dst.clear();
    const char* from = SkipEdgeRows(buf.data(), buf.data() + upto, &line, skip_rows);
    DG_RETURN_IF_ERROR(ParseEdgeLines(path, from, buf.data() + upto, num_nodes, &line, max_id, &src, &dst));
    if (!src.empty()) DG_RETURN_IF_ERROR(fn(src.data(), dst.data(), static_cast<int64_t>(src.size())));
    buf.erase(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(upto));
  }
  return Status::OK();
}

}  // namespace

Status ForEachEdgeText(const std::string& path, int64_t num_nodes, const EdgeChunkFn& fn, int64_t* max_id,
                       int64_t* skip_rows) {
  int64_t none = 0;
  return ScanEdgeText(path, num_nodes, fn, max_id, skip_rows ? skip_rows : &none);
}

Result<int64_t> CountEdgeTextRows(const std::string& path) {
  int64_t left = INT64_MAX, max_id = -1;
  DG_RETURN_IF_ERROR(ScanEdgeText(path, -1, [](const int64_t*, const int64_t*, int64_t) { return Status::OK(); },
                                  &max_id, &left));
  return INT64_MAX - left;
}

Result<EdgeList> ReadEdgeListText(const std::string& path, int64_t num_nodes) {
  EdgeList el;
  DG_RETURN_IF_ERROR(ForEachEdgeText(path, num_nodes, [&](const int64_t* s, const int64_t* d, int64_t n) {
    el.src.insert(el.src.end(), s, s + n);
    el.dst.insert(el.dst.end(), d, d + n);
    return Status::OK();
  }, &el.max_id));
  return el;
}

Result<EdgeList> ReadEdgeListNpy(const std::string& src_path, const std::string& dst_path,
                                 int64_t num_nodes) {
  EdgeList el;
  DG_ASSIGN_OR_RETURN(el.src, IdArray(src_path, num_nodes));
  DG_ASSIGN_OR_RETURN(el.dst, IdArray(dst_path, num_nodes));
  if (el.src.size() != el.dst.size())
    return Status::InvalidArgument(dst_path + ": has " + std::to_string(el.dst.size()) +
                                   " edges but " + src_path + " has " +
                                   std::to_string(el.src.size()));
  el.max_id = MaxId(el);
  return el;
}

void NormalizeEdges(EdgeList* edges, const EdgeListOptions& opts) {
  NormalizeEdges(edges, opts, nullptr);
}

void NormalizeEdges(EdgeList* e, const EdgeListOptions& opts, std::vector<int64_t>* origin) {
  std::vector<int64_t>& src = e->src;
  std::vector<int64_t>& dst = e->dst;
  const size_t n0 = src.size();
  if (origin) {
    origin->resize(n0);
    std::iota(origin->begin(), origin->end(), int64_t{0});
  }
  if (e->max_id < 0) e->max_id = MaxId(*e);
  bool dedupe = opts.drop_duplicates || opts.undirected;
  if (opts.undirected) {
    src.resize(2 * n0);
    dst.resize(2 * n0);
    std::copy(dst.begin(), dst.begin() + n0, src.begin() + n0);
    std::copy(src.begin(), src.begin() + n0, dst.begin() + n0);
    if (origin) {
      origin->resize(2 * n0);
      std::copy(origin->begin(), origin->begin() + n0, origin->begin() + n0);
    }
  }
  if (opts.drop_self_loops) {
    size_t k = 0;
    for (size_t i = 0; i < src.size(); ++i) {
      if (src[i] == dst[i]) continue;
      src[k] = src[i];
      dst[k] = dst[i];
      if (origin) (*origin)[k] = (*origin)[i];
      ++k;
    }
    src.resize(k);
    dst.resize(k);
    if (origin) origin->resize(k);
  }
  if (!dedupe || src.empty()) return;

  int bits = BitsFor(static_cast<uint64_t>(std::max<int64_t>(e->max_id, 1)));
  if (!origin && 2 * bits <= 64) {
    // Fast path: sort packed keys; the input vectors are released meanwhile.
    std::vector<uint64_t> keys(src.size());
    for (size_t i = 0; i < src.size(); ++i)
      keys[i] = (static_cast<uint64_t>(src[i]) << bits) | static_cast<uint64_t>(dst[i]);
    std::vector<int64_t>().swap(src);
    std::vector<int64_t>().swap(dst);
    RadixSortU64(&keys, 2 * bits);
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    src.resize(keys.size());
    dst.resize(keys.size());
    const uint64_t mask = (bits == 64) ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1);
    for (size_t i = 0; i < keys.size(); ++i) {
      src[i] = static_cast<int64_t>(keys[i] >> bits);
      dst[i] = static_cast<int64_t>(keys[i] & mask);
    }
    return;
  }
  // General path (edge arrays to carry, or ids too wide to pack): sort positions
  // by (src, dst, position) so the first of each duplicate run is kept.
  std::vector<int64_t> order(src.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (src[a] != src[b]) return src[a] < src[b];
    if (dst[a] != dst[b]) return dst[a] < dst[b];
    return a < b;
  });
  std::vector<int64_t> ns, nd, no;
  ns.reserve(order.size());
  nd.reserve(order.size());
  if (origin) no.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    int64_t k = order[i];
    if (i > 0 && src[k] == ns.back() && dst[k] == nd.back()) continue;
    ns.push_back(src[k]);
    nd.push_back(dst[k]);
    if (origin) no.push_back((*origin)[k]);
  }
  src.swap(ns);
  dst.swap(nd);
  if (origin) origin->swap(no);
}

Result<DatasetFiles> ListDataset(const std::string& dir) {
  DatasetFiles df;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return Status::FromErrno("open dataset directory " + dir, errno);
  std::vector<std::string> files;
  while (struct dirent* ent = ::readdir(d)) files.push_back(ent->d_name);
  ::closedir(d);
  std::sort(files.begin(), files.end());

  // Node arrays: every X.npy / X.npy.gz except the edge arrays.
  for (const std::string& f : files) {
    std::string name;
    if (EndsWith(f, ".npy")) name = f.substr(0, f.size() - 4);
    else if (EndsWith(f, ".npy.gz")) name = f.substr(0, f.size() - 7);
    else continue;
    if (name.empty() || name == "src" || name == "dst") continue;
    if (name == "edge_split") continue;  // one int8 per input edge (link prediction, common/storage/link_split.h)
    if (!FileExists(dir + "/" + f)) continue;
    auto it = df.node_files.find(name);
    if (it != df.node_files.end() && EndsWith(it->second, ".npy")) continue;  // prefer plain
    df.node_files[name] = dir + "/" + f;
  }
  for (const char* name : {"edges.tsv", "edges.tsv.gz", "edges.csv", "edges.csv.gz", "edges.txt",
                           "edges.txt.gz"}) {
    std::string path = dir + "/" + name;
    if (FileExists(path)) {
      df.edges_text = path;
      return df;
    }
  }
  for (const char* ext : {".npy", ".npy.gz"}) {
    if (df.src_npy.empty() && FileExists(dir + "/src" + ext)) df.src_npy = dir + "/src" + ext;
    if (df.dst_npy.empty() && FileExists(dir + "/dst" + ext)) df.dst_npy = dir + "/dst" + ext;
  }
  if (df.src_npy.empty() != df.dst_npy.empty())
    return Status::NotFound(dir + ": has " + (df.src_npy.empty() ? df.dst_npy : df.src_npy) +
                            " but not its partner " + (df.src_npy.empty() ? "src.npy" : "dst.npy"));
  if (df.src_npy.empty())
    return Status::NotFound(dir + ": no edge list (expected edges.tsv, edges.tsv.gz or src.npy + dst.npy)");
  return df;
}

Result<Dataset> LoadDataset(const std::string& dir, const EdgeListOptions& opts) {
  Dataset ds;
  ds.dir = dir;
  DG_ASSIGN_OR_RETURN(DatasetFiles df, ListDataset(dir));
  int64_t num_nodes = opts.num_nodes;
  std::string num_nodes_from = num_nodes >= 0 ? "--num-nodes" : "";
  for (const auto& [name, path] : df.node_files) {
    DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
    if (a.shape.empty())
      return Status::InvalidArgument(path + ": a node array needs one row per node; got a 0-d array");
    if (num_nodes < 0) {
      num_nodes = a.shape[0];
      num_nodes_from = path;
    } else if (a.shape[0] != num_nodes) {
      return Status::InvalidArgument(path + ": has " + std::to_string(a.shape[0]) +
                                     " rows, expected " + std::to_string(num_nodes) + " (from " +
                                     num_nodes_from + ")");
    }
    ds.node_data[name] = std::move(a);
  }
  Result<EdgeList> edges = df.edges_text.empty() ? ReadEdgeListNpy(df.src_npy, df.dst_npy, num_nodes)
                                                 : ReadEdgeListText(df.edges_text, num_nodes);
  if (!edges.ok()) return edges.status();
  ds.edges = std::move(edges).value();
  if (num_nodes < 0) num_nodes = ds.edges.max_id + 1;
  ds.num_nodes = num_nodes;
  NormalizeEdges(&ds.edges, opts);
  return ds;
}

void NormalizeRow(const float* in, int64_t f, float* out) {
  double sum = 0;
  for (int64_t j = 0; j < f; ++j) sum += in[j];
  const float scale = sum != 0 ? static_cast<float>(1.0 / sum) : 1.0f;
  for (int64_t j = 0; j < f; ++j) out[j] = in[j] * scale;
}

Status RowNormalize(Array* a, const std::string& what) {
  if (a->dtype != DType::kFloat32 || a->shape.size() != 2)
    return Status::InvalidArgument(what + ": row normalization needs a float32 [N, F] array, got " +
                                   DTypeName(a->dtype) + " " + a->ShapeString());
  const int64_t n = a->shape[0], f = a->shape[1];
  Array out = Array::Zeros(DType::kFloat32, a->shape);
  const float* in = a->as<float>();
  float* o = out.as<float>();
  for (int64_t i = 0; i < n; ++i) NormalizeRow(in + i * f, f, o + i * f);
  *a = std::move(out);
  return Status::OK();
}

Result<std::vector<int64_t>> NodesWithSplit(const Array& split, int value) {
  std::vector<int64_t> out;
  const int64_t n = split.rows();
  if (split.dtype == DType::kInt8 || split.dtype == DType::kUInt8 || split.dtype == DType::kBool) {
    const int8_t* s = split.as<int8_t>();
    for (int64_t i = 0; i < n; ++i)
      if (s[i] == value) out.push_back(i);
  } else if (split.dtype == DType::kInt64) {
    const int64_t* s = split.as<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      if (s[i] == value) out.push_back(i);
  } else if (split.dtype == DType::kInt32) {
    const int32_t* s = split.as<int32_t>();
    for (int64_t i = 0; i < n; ++i)
      if (s[i] == value) out.push_back(i);
  } else {
    return Status::InvalidArgument(std::string("split: expected an integer array, got ") +
                                   DTypeName(split.dtype));
  }
  return out;
}

}  // namespace dg
