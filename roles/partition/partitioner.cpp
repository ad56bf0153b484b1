#include "roles/partition/partitioner.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/logging.h"
#include "common/npy.h"
#include "roles/partition/node_assignment.h"

namespace dg {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void Log(std::FILE* f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void Log(std::FILE* f, const char* fmt, ...) {
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(f, fmt, ap);
  va_end(ap);
  std::fflush(f);
}

// An Array view of a vector (no copy); valid while the vector lives.
Array View(std::vector<int64_t>& v) {
  Array a;
  a.dtype = DType::kInt64;
  a.shape = {static_cast<int64_t>(v.size())};
  a.data = v.data();
  return a;
}

// Integer value of element i of a 1-D integer/bool array, as int64.
int64_t IntAt(const Array& a, int64_t i) {
  switch (a.dtype) {
    case DType::kInt64: return a.as<int64_t>()[i];
    case DType::kInt32: return a.as<int32_t>()[i];
    case DType::kInt8: return a.as<int8_t>()[i];
    case DType::kUInt8: return a.as<uint8_t>()[i];
    case DType::kBool: return a.as<uint8_t>()[i] != 0;
    case DType::kFloat32: return a.as<float>()[i] != 0.0f;
    case DType::kFloat64: return a.as<double>()[i] != 0.0;
  }
  return 0;
}

// Removes a directory tree on destruction unless released.
class DirGuard {
 public:
  explicit DirGuard(std::string path) : path_(std::move(path)) {}
  ~DirGuard() {
    if (!path_.empty()) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  void Release() { path_.clear(); }

 private:
  std::string path_;
};

Status MakeDir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Status::IOError("create directory " + path + ": " + ec.message());
  return Status::OK();
}

// Streams rows `rows[i]` of `src` (i in [0, count)) into a new .npy at path.
// row_of(i) gives the source row of output row i.
template <typename RowOf>
Status WriteGatheredRows(const std::string& path, const Array& src, int64_t count, RowOf row_of) {
  std::vector<int64_t> shape = src.shape;
  shape[0] = count;
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(path, src.dtype, shape));
  const size_t rb = src.row_bytes();
  const char* base = static_cast<const char*>(src.data);
  std::vector<char> buf;
  const size_t kChunk = 4 << 20;
  buf.reserve(kChunk + rb);
  for (int64_t i = 0; i < count; ++i) {
    const char* row = base + static_cast<size_t>(row_of(i)) * rb;
    buf.insert(buf.end(), row, row + rb);
    if (buf.size() >= kChunk) {
      DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size()));
      buf.clear();
    }
  }
  DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size()));
  return w.Finish();
}

bool ValidName(const std::string& s) {
  if (s.empty() || s[0] == '.') return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

}  // namespace

std::vector<uint8_t> TrainFlags(const std::map<std::string, Array>& node_data) {
  std::vector<uint8_t> flags;
  auto it = node_data.find("split");
  bool is_split = it != node_data.end();
  if (!is_split) it = node_data.find("train_mask");
  if (it == node_data.end() || it->second.shape.size() != 1) return flags;
  const Array& a = it->second;
  flags.resize(static_cast<size_t>(a.shape[0]));
  for (int64_t i = 0; i < a.shape[0]; ++i) {
    int64_t v = IntAt(a, i);
    flags[i] = is_split ? (v == 0) : (v != 0);
  }
  return flags;
}

Status ValidatePartitionRequest(const GraphInput& in, const PartitionOptions& o) {
  if (o.method != "metis" && o.method != "random")
    return Status::InvalidArgument("unknown method '" + o.method + "' (expected metis or random)");
  if (o.num_parts < 1)
    return Status::InvalidArgument("--num-parts must be >= 1, got " + std::to_string(o.num_parts));
  if (o.num_parts > in.num_nodes)
    return Status::InvalidArgument("--num-parts " + std::to_string(o.num_parts) + " exceeds the " +
                                   std::to_string(in.num_nodes) + " nodes of the graph");
  if (!ValidName(o.graph_name))
    return Status::InvalidArgument("--name '" + o.graph_name +
                                   "' must be non-empty letters, digits, '_', '-', '.'");
  if (o.out_dir.empty()) return Status::InvalidArgument("--out is required");
  std::error_code ec;
  if (fs::exists(o.out_dir, ec) && !o.force)
    return Status::AlreadyExists("output " + o.out_dir + " exists (use --force to replace it)");
  if (in.edges.src.size() != in.edges.dst.size())
    return Status::Internal("edge list src/dst sizes differ");
  for (const auto& [name, a] : in.node_data) {
    if (!ValidName(name)) return Status::InvalidArgument("bad node array name '" + name + "'");
    if (a.shape.empty() || a.shape[0] != in.num_nodes)
      return Status::InvalidArgument("node array '" + name + "' has shape " + a.ShapeString() +
                                     ", expected " + std::to_string(in.num_nodes) + " rows");
  }
  int64_t edge_rows = in.edge_origin.empty() ? static_cast<int64_t>(in.edges.src.size()) : -1;
  for (const auto& [name, a] : in.edge_data) {
    if (!ValidName(name)) return Status::InvalidArgument("bad edge array name '" + name + "'");
    if (a.shape.empty()) return Status::InvalidArgument("edge array '" + name + "' is 0-d");
    if (edge_rows >= 0 && a.shape[0] != edge_rows)
      return Status::InvalidArgument("edge array '" + name + "' has " + std::to_string(a.shape[0]) +
                                     " rows, expected " + std::to_string(edge_rows) + " (one per edge)");
    for (int64_t r : in.edge_origin)
      if (r < 0 || r >= a.shape[0])
        return Status::InvalidArgument("edge array '" + name + "' has " + std::to_string(a.shape[0]) +
                                       " rows, fewer than the input edges");
  }
  return Status::OK();
}

Result<PartitionConfig> PartitionGraph(GraphInput* in, const PartitionOptions& o) {
  DG_RETURN_IF_ERROR(ValidatePartitionRequest(*in, o));
  const int K = o.num_parts;
  const int64_t N = in->num_nodes;
  const int64_t E = static_cast<int64_t>(in->edges.src.size());
  std::FILE* log = o.log;
  Log(log, "partition: %lld nodes, %lld edges, %d parts, method %s%s%s\n", (long long)N,
      (long long)E, K, o.method.c_str(), o.balance_train ? ", balance train" : "",
      o.balance_edges ? ", balance edges" : "");

  // 1. Assignment.
  auto t = Clock::now();
  std::vector<uint8_t> is_train = TrainFlags(in->node_data);
  std::vector<int32_t> part;
  if (o.method == "metis" && K > 1) {
    MetisOptions mo;
    mo.num_parts = K;
    mo.seed = o.seed;
    mo.is_train = (o.balance_train && !is_train.empty()) ? &is_train : nullptr;
    mo.balance_edges = o.balance_edges;
    if (o.balance_train && is_train.empty())
      Log(log, "partition: warning: --balance train but no 'split' or 'train_mask' node array\n");
    DG_ASSIGN_OR_RETURN(MetisResult mr, MetisAssignment(N, in->edges, mo));
    part = std::move(mr.part);
    Log(log, "  build METIS graph: %.2f s (%lld adjacency entries)\n", mr.build_seconds,
        (long long)mr.adjacency_entries);
    Log(log, "  METIS:             %.2f s (METIS edge cut %lld undirected edges)\n", mr.metis_seconds,
        (long long)mr.objval);
  } else {
    part = RandomAssignment(N, K, o.seed);
    Log(log, "  assign (%s):   %.2f s\n", K == 1 ? "single part" : "random", Seconds(t));
  }

  // 2. Renumber: part p owns [node_map[p], node_map[p+1]); original order within a part.
  t = Clock::now();
  std::vector<int64_t> node_map(K + 1, 0);
  for (int32_t p : part) ++node_map[p + 1];
  for (int p = 0; p < K; ++p) node_map[p + 1] += node_map[p];
  std::vector<int64_t> new_id(static_cast<size_t>(N));
  std::vector<int64_t> orig_nids(static_cast<size_t>(N));
  {
    std::vector<int64_t> cursor(node_map.begin(), node_map.end() - 1);
    for (int64_t v = 0; v < N; ++v) {
      int64_t g = cursor[part[v]]++;
      new_id[v] = g;
      orig_nids[g] = v;
    }
  }
  std::vector<int32_t>().swap(part);

  // 3. Global in-edge CSR over new ids (counting sort by destination, stable).
  std::vector<int64_t> indptr(static_cast<size_t>(N) + 1, 0);
  for (int64_t e = 0; e < E; ++e) ++indptr[new_id[in->edges.dst[e]] + 1];
  for (int64_t v = 0; v < N; ++v) indptr[v + 1] += indptr[v];
  std::vector<int64_t> indices(static_cast<size_t>(E));
  std::vector<int64_t> orig_eids(static_cast<size_t>(E));
  {
    std::vector<int64_t> cursor(indptr.begin(), indptr.end() - 1);
    for (int64_t e = 0; e < E; ++e) {
      int64_t pos = cursor[new_id[in->edges.dst[e]]]++;
      indices[pos] = new_id[in->edges.src[e]];
      orig_eids[pos] = e;
    }
  }
  std::vector<int64_t>().swap(in->edges.src);
  std::vector<int64_t>().swap(in->edges.dst);
  std::vector<int64_t>().swap(new_id);
  std::vector<int64_t> edge_map(K + 1);
  for (int p = 0; p <= K; ++p) edge_map[p] = indptr[node_map[p]];
  Log(log, "  build CSR:         %.2f s\n", Seconds(t));

  // 4. Per-part statistics: train nodes, halo nodes (distinct remote sources), edge cut.
  PartitionConfig cfg;
  cfg.format_version = 1;
  cfg.graph_name = o.graph_name;
  cfg.part_method = K == 1 ? "none" : o.method;
  cfg.num_nodes = N;
  cfg.num_edges = E;
  cfg.num_parts = K;
  cfg.node_map = node_map;
  cfg.edge_map = edge_map;
  cfg.orig_nids = "orig_nids.npy";
  cfg.orig_eids = "orig_eids.npy";
  {
    std::vector<int32_t> mark(static_cast<size_t>(N), -1);
    for (int p = 0; p < K; ++p) {
      PartInfo pi;
      pi.dir = "part" + std::to_string(p);
      pi.num_nodes = node_map[p + 1] - node_map[p];
      pi.num_edges = edge_map[p + 1] - edge_map[p];
      for (int64_t g = node_map[p]; g < node_map[p + 1] && !is_train.empty(); ++g)
        pi.num_train += is_train[orig_nids[g]];
      for (int64_t k = edge_map[p]; k < edge_map[p + 1]; ++k) {
        int64_t s = indices[k];
        if (s >= node_map[p] && s < node_map[p + 1]) continue;
        ++cfg.edge_cut;
        if (mark[s] != p) {
          mark[s] = p;
          ++pi.num_halo;
        }
      }
      cfg.parts.push_back(pi);
    }
  }
  for (const auto& [name, a] : in->node_data) cfg.node_data[name] = ArrayInfo{a.dtype, a.shape};
  for (const auto& [name, a] : in->edge_data) {
    ArrayInfo info{a.dtype, a.shape};
    info.shape[0] = E;
    cfg.edge_data[name] = info;
  }
  Log(log, "  edge cut: %lld of %lld edges (%.1f%%) have a source in another part\n",
      (long long)cfg.edge_cut, (long long)E, E ? 100.0 * cfg.edge_cut / E : 0.0);
  for (int p = 0; p < K; ++p) {
    const PartInfo& pi = cfg.parts[p];
    Log(log, "  part %d: %lld owned nodes, %lld in-edges, %lld train nodes, %lld halo nodes (%.2f x owned)\n",
        p, (long long)pi.num_nodes, (long long)pi.num_edges, (long long)pi.num_train,
        (long long)pi.num_halo, pi.num_nodes ? double(pi.num_halo) / pi.num_nodes : 0.0);
  }

  // 5. Write into a temporary sibling directory, then rename into place.
  t = Clock::now();
  fs::path out = fs::path(o.out_dir);
  if (out.filename().empty()) out = out.parent_path();  // trailing slash
  std::string final_dir = out.string();
  std::string tmp_dir = (out.parent_path() / ("." + out.filename().string() + ".tmp-" +
                                              std::to_string(::getpid()))).string();
  {
    std::error_code ec;
    fs::remove_all(tmp_dir, ec);
  }
  DG_RETURN_IF_ERROR(MakeDir(tmp_dir));
  DirGuard guard(tmp_dir);
  DG_RETURN_IF_ERROR(NpyWrite(tmp_dir + "/orig_nids.npy", View(orig_nids)));
  DG_RETURN_IF_ERROR(NpyWrite(tmp_dir + "/orig_eids.npy", View(orig_eids)));
  for (int p = 0; p < K; ++p) {
    std::string dir = tmp_dir + "/" + cfg.parts[p].dir;
    DG_RETURN_IF_ERROR(MakeDir(dir));
    const int64_t nb = node_map[p], ne = node_map[p + 1];
    const int64_t eb = edge_map[p], ee = edge_map[p + 1];
    {  // local indptr = global indptr slice - its first value
      NpyWriter w;
      DG_RETURN_IF_ERROR(w.Open(dir + "/indptr.npy", DType::kInt64, {ne - nb + 1}));
      std::vector<int64_t> chunk;
      chunk.reserve(1 << 16);
      for (int64_t g = nb; g <= ne; ++g) {
        chunk.push_back(indptr[g] - eb);
        if (chunk.size() == chunk.capacity() || g == ne) {
          DG_RETURN_IF_ERROR(w.Append(chunk.data(), chunk.size() * sizeof(int64_t)));
          chunk.clear();
        }
      }
      DG_RETURN_IF_ERROR(w.Finish());
    }
    {
      NpyWriter w;
      DG_RETURN_IF_ERROR(w.Open(dir + "/indices.npy", DType::kInt64, {ee - eb}));
      DG_RETURN_IF_ERROR(w.Append(indices.data() + eb, static_cast<size_t>(ee - eb) * sizeof(int64_t)));
      DG_RETURN_IF_ERROR(w.Finish());
    }
    if (!in->node_data.empty()) DG_RETURN_IF_ERROR(MakeDir(dir + "/node_data"));
    for (const auto& [name, a] : in->node_data) {
      DG_RETURN_IF_ERROR(WriteGatheredRows(dir + "/node_data/" + name + ".npy", a, ne - nb,
                                           [&](int64_t i) { return orig_nids[nb + i]; }));
    }
    if (!in->edge_data.empty()) DG_RETURN_IF_ERROR(MakeDir(dir + "/edge_data"));
    for (const auto& [name, a] : in->edge_data) {
      const std::vector<int64_t>& origin = in->edge_origin;
      DG_RETURN_IF_ERROR(WriteGatheredRows(dir + "/edge_data/" + name + ".npy", a, ee - eb, [&](int64_t i) {
        int64_t e = orig_eids[eb + i];
        return origin.empty() ? e : origin[e];
      }));
    }
  }
  {
    std::string json_path = tmp_dir + "/" + o.graph_name + ".json";
    std::ofstream f(json_path);
    f << PartitionConfigToJson(cfg);
    f.close();
    if (!f) return Status::IOError("write " + json_path + " failed");
  }
  // Swap into place. An existing output (allowed by --force) is moved aside first
  // and removed only after the new one is in place.
  std::error_code ec;
  std::string old_dir;
  if (fs::exists(final_dir, ec)) {
    if (!o.force) return Status::AlreadyExists("output " + final_dir + " exists (use --force to replace it)");
    old_dir = (out.parent_path() / ("." + out.filename().string() + ".old-" + std::to_string(::getpid()))).string();
    fs::rename(final_dir, old_dir, ec);
    if (ec) return Status::IOError("rename " + final_dir + " -> " + old_dir + ": " + ec.message());
  }
  fs::rename(tmp_dir, final_dir, ec);
  if (ec) return Status::IOError("rename " + tmp_dir + " -> " + final_dir + ": " + ec.message());
  guard.Release();
  if (!old_dir.empty()) fs::remove_all(old_dir, ec);
  Log(log, "  write:             %.2f s -> %s/%s.json\n", Seconds(t), final_dir.c_str(),
      o.graph_name.c_str());
  cfg.path = final_dir + "/" + o.graph_name + ".json";
  cfg.base_dir = final_dir;
  Log(log, "  peak RSS: %.1f MB\n", PeakRssBytes() / 1048576.0);
  return cfg;
}

}  // namespace dg
