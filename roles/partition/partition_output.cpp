#include "roles/partition/partition_output.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/storage/dataset.h"
#include "common/io/npy.h"
#include "common/storage/partition_checksum.h"
#include "roles/partition/edge_source.h"
#include "roles/partition/source_index.h"
#include "roles/partition/typed_input.h"

namespace dg {

namespace fs = std::filesystem;

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

Status MakeDir(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Status::IOError("create directory " + path + ": " + ec.message());
  return Status::OK();
}

StagingDir::~StagingDir() {
  if (!tmp_.empty()) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

Status StagingDir::Create(const PartitionOptions& o) {
  fs::path out = fs::path(o.spec.out);
  if (out.filename().empty()) out = out.parent_path();  // trailing slash
  final_ = out.string();
  name_ = o.spec.name;
  force_ = o.spec.force;
  std::string tmp = (out.parent_path() / ("." + out.filename().string() + ".tmp-" + std::to_string(::getpid()))).string();
  std::error_code ec;
  fs::remove_all(tmp, ec);
  DG_RETURN_IF_ERROR(MakeDir(tmp));
  tmp_ = tmp;
  return Status::OK();
}

Status StagingDir::Commit(PartitionConfig* cfg) {
  // Both partitioners commit here: derive the aggregation index
  // from the in-edge CSRs just written.
  DG_RETURN_IF_ERROR(WriteAggregateIndex(tmp_, *cfg));
  cfg->checksums.clear();
  DG_RETURN_IF_ERROR(RecordChecksums(tmp_, name_ + ".json", cfg));
  {
    std::string json_path = tmp_ + "/" + name_ + ".json";
    std::ofstream f(json_path);
    f << PartitionConfigToJson(*cfg);
    f.close();
    if (!f) return Status::IOError("write " + json_path + " failed");
  }
  std::error_code ec;
  std::string old_dir;
  fs::path out(final_);
  if (fs::exists(final_, ec)) {
    if (!force_) return Status::AlreadyExists("output " + final_ + " exists (use --force to replace it)");
    old_dir = (out.parent_path() / ("." + out.filename().string() + ".old-" + std::to_string(::getpid()))).string();
    fs::rename(final_, old_dir, ec);
    if (ec) return Status::IOError("rename " + final_ + " -> " + old_dir + ": " + ec.message());
  }
  fs::rename(tmp_, final_, ec);
  if (ec) return Status::IOError("rename " + tmp_ + " -> " + final_ + ": " + ec.message());
  tmp_.clear();
  if (!old_dir.empty()) fs::remove_all(old_dir, ec);
  cfg->path = final_ + "/" + name_ + ".json";
  cfg->base_dir = final_;
  return Status::OK();
}

Status RecordAddedFiles(PartitionConfig* cfg) {
  const std::string json = std::filesystem::path(cfg->path).filename().string();
  DG_RETURN_IF_ERROR(RecordChecksums(cfg->base_dir, json, cfg));
  const std::string tmp = cfg->path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << PartitionConfigToJson(*cfg);
    f.close();
    if (!f) return Status::IOError("write " + tmp + " failed");
  }
  std::error_code ec;
  fs::rename(tmp, cfg->path, ec);
  if (ec) return Status::IOError("rename " + tmp + " -> " + cfg->path + ": " + ec.message());
  return Status::OK();
}

namespace {

// Streams rows[i] (i in [0, count)) of src into a new .npy at path.
Status WriteRows(const std::string& path, const Array& src, const int64_t* rows, int64_t count, bool drop_pages,
                 bool normalize) {
  std::vector<int64_t> shape = src.shape;
  shape[0] = count;
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(path, src.dtype, shape));
  const size_t rb = src.row_bytes();
  const char* base = static_cast<const char*>(src.data);
  const int64_t f = normalize ? src.row_elems() : 0;
  std::vector<char> buf;
  const size_t kChunk = 4 << 20;
  buf.reserve(kChunk + rb);
  size_t dropped = 0;  // input bytes [0, dropped) already dropped
  for (int64_t i = 0; i < count; ++i) {
    const char* row = base + static_cast<size_t>(rows[i]) * rb;
    size_t at = buf.size();
    buf.insert(buf.end(), row, row + rb);
    if (normalize)
      NormalizeRow(reinterpret_cast<const float*>(row), f, reinterpret_cast<float*>(buf.data() + at));
    if (buf.size() >= kChunk) {
      DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size()));
      buf.clear();
      if (drop_pages) {
        size_t upto = static_cast<size_t>(rows[i]) * rb;
        if (upto > dropped) DropMappedPages(base + dropped, base + upto);
        dropped = std::max(dropped, upto);
      }
    }
  }
  DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size()));
  if (drop_pages && count > 0) DropMappedPages(base + dropped, base + (static_cast<size_t>(rows[count - 1]) + 1) * rb);
  return w.Finish();
}

// Global ids (first_gid + i) of the rows whose flag(i) holds, streamed to path.
template <typename Pred>
Result<int64_t> WriteIds(const std::string& path, int64_t count, int64_t first_gid, Pred pred) {
  int64_t n = 0;
  for (int64_t i = 0; i < count; ++i) n += pred(i) ? 1 : 0;
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(path, DType::kInt64, {n}));
  std::vector<int64_t> buf;
  buf.reserve(1 << 16);
  for (int64_t i = 0; i < count; ++i) {
    if (!pred(i)) continue;
    buf.push_back(first_gid + i);
    if (buf.size() == buf.capacity()) {
      DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(int64_t)));
      buf.clear();
    }
  }
  DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(int64_t)));
  DG_RETURN_IF_ERROR(w.Finish());
  return n;
}

}  // namespace

Status WritePartNodeData(const std::string& dir, const std::map<std::string, Array>& node_data, const int64_t* rows,
                         int64_t count, int64_t first_gid, const NodeDataOptions& o, PartInfo* info,
                         LabelStats* labels) {
  if (!node_data.empty()) DG_RETURN_IF_ERROR(MakeDir(dir + "/node_data"));
  for (const auto& [name, a] : node_data)
    DG_RETURN_IF_ERROR(WriteRows(dir + "/node_data/" + name + ".npy", a, rows, count, o.drop_pages_of.count(name) > 0,
                                 o.normalize_features && name == "features"));
  auto split_it = node_data.find("split");
  auto mask_it = node_data.find("train_mask");
  const Array* split = split_it != node_data.end() && split_it->second.shape.size() == 1 ? &split_it->second : nullptr;
  const Array* mask = mask_it != node_data.end() && mask_it->second.shape.size() == 1 ? &mask_it->second : nullptr;
  if (!split && !mask) return Status::OK();
  auto value = [&](int64_t i) -> int64_t {
    if (split) return IntAt(*split, rows[i]);
    return IntAt(*mask, rows[i]) != 0 ? 0 : -1;
  };
  DG_ASSIGN_OR_RETURN(info->num_train, WriteIds(dir + "/train_nids.npy", count, first_gid,
                                                [&](int64_t i) { return value(i) == 0; }));
  DG_ASSIGN_OR_RETURN(info->num_val, WriteIds(dir + "/val_nids.npy", count, first_gid,
                                              [&](int64_t i) { return value(i) == 1; }));
  DG_ASSIGN_OR_RETURN(info->num_test, WriteIds(dir + "/test_nids.npy", count, first_gid,
                                               [&](int64_t i) { return value(i) == 2; }));
  auto lab = node_data.find("labels");
  if (split && lab != node_data.end() && lab->second.dtype == DType::kInt64 && lab->second.shape.size() == 1) {
    const int64_t* l = lab->second.as<int64_t>();
    for (int64_t i = 0; i < count; ++i) {
      const int64_t s = value(i);
      if (s < 0 || s > 2) continue;
      const int64_t v = l[rows[i]];
      if (v < 0) labels->negative = true;
      labels->max_label = std::max(labels->max_label, v);
    }
  } else {
    labels->negative = true;  // unknown
  }
  return Status::OK();
}

PartitionConfig BaseConfig(const std::string& graph_name, int num_parts, const char* method, int64_t N, int64_t E,
                           const std::vector<int64_t>& node_map, const std::vector<int64_t>& edge_map,
                           const std::map<std::string, Array>& node_data,
                           const std::map<std::string, Array>& edge_data) {
  const int K = num_parts;
  PartitionConfig cfg;
  cfg.format_version = 1;
  cfg.graph_name = graph_name;
  cfg.part_method = K == 1 ? "none" : method;
  cfg.num_nodes = N;
  cfg.num_edges = E;
  cfg.num_parts = K;
  cfg.node_map = node_map;
  cfg.edge_map = edge_map;
  cfg.orig_nids = "orig_nids.npy";
  cfg.orig_eids = "orig_eids.npy";
  for (int p = 0; p < K; ++p) {
    PartInfo pi;
    pi.dir = "part" + std::to_string(p);
    pi.num_nodes = node_map[p + 1] - node_map[p];
    pi.num_edges = edge_map[p + 1] - edge_map[p];
    cfg.parts.push_back(pi);
  }
  for (const auto& [name, a] : node_data) cfg.node_data[name] = ArrayInfo{a.dtype, a.shape};
  for (const auto& [name, a] : edge_data) {
    ArrayInfo info{a.dtype, a.shape};
    info.shape[0] = E;
    cfg.edge_data[name] = info;
  }
  return cfg;
}

void TypedConfig(const TypeLayout& types, PartitionConfig* cfg) {
  cfg->format_version = 2;
  cfg->node_types = types.node_types;
  cfg->edge_types = types.edge_types;
  cfg->num_nodes_per_type.clear();
  for (int t = 0; t < types.num_types(); ++t)
    cfg->num_nodes_per_type.push_back(types.type_offsets[t + 1] - types.type_offsets[t]);
  cfg->num_edges_per_type.clear();
  for (size_t r = 0; r + 1 < types.edge_offsets.size(); ++r)
    cfg->num_edges_per_type.push_back(types.edge_offsets[r + 1] - types.edge_offsets[r]);
  cfg->target = types.target_type >= 0 ? types.node_types[types.target_type] : "";
  cfg->node_data.clear();
  for (int t = 0; t < types.num_types(); ++t)
    for (const auto& [name, a] : types.node_data[t])
      cfg->node_data[types.node_types[t] + "/" + name] = ArrayInfo{a.dtype, a.shape};
}

Status WriteTypedNodeIds(const std::string& out_dir, const TypeLayout& types, const std::vector<int64_t>& orig_nids,
                         PartitionConfig* cfg) {
  const int T = types.num_types();
  const int64_t N = static_cast<int64_t>(orig_nids.size());
  // Within a part, new ids follow input ids, which are type-major: one scan finds the type boundaries.
  cfg->node_type_offsets.assign(cfg->num_parts, std::vector<int64_t>(T + 1, 0));
  for (int p = 0; p < cfg->num_parts; ++p) {
    std::vector<int64_t>& o = cfg->node_type_offsets[p];
    const int64_t nb = cfg->node_map[p], ne = cfg->node_map[p + 1];
    int64_t g = nb;
    for (int t = 0; t < T; ++t) {
      o[t] = g;
      while (g < ne && orig_nids[g] < types.type_offsets[t + 1]) ++g;
    }
    o[T] = ne;
  }
  {
    NpyWriter w;
    DG_RETURN_IF_ERROR(w.Open(out_dir + "/orig_nids.npy", DType::kInt64, {N}));
    std::vector<int64_t> buf;
    buf.reserve(1 << 16);
    for (int p = 0; p < cfg->num_parts; ++p)
      for (int t = 0; t < T; ++t)
        for (int64_t g = cfg->node_type_offsets[p][t]; g < cfg->node_type_offsets[p][t + 1]; ++g) {
          buf.push_back(orig_nids[g] - types.type_offsets[t]);
          if (buf.size() == buf.capacity()) {
            DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(int64_t)));
            buf.clear();
          }
        }
    DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(int64_t)));
    DG_RETURN_IF_ERROR(w.Finish());
  }
  DG_RETURN_IF_ERROR(MakeDir(out_dir + "/type_nids"));
  for (int t = 0; t < T; ++t) {  // one type at a time: O(N_type) memory
    const int64_t off = types.type_offsets[t];
    std::vector<int64_t> gid(static_cast<size_t>(types.type_offsets[t + 1] - off), -1);
    for (int p = 0; p < cfg->num_parts; ++p)
      for (int64_t g = cfg->node_type_offsets[p][t]; g < cfg->node_type_offsets[p][t + 1]; ++g)
        gid[orig_nids[g] - off] = g;
    Array a;
    a.dtype = DType::kInt64;
    a.shape = {static_cast<int64_t>(gid.size())};
    a.data = gid.data();
    DG_RETURN_IF_ERROR(NpyWrite(out_dir + "/type_nids/" + types.node_types[t] + ".npy", a));
  }
  return Status::OK();
}

Status WriteTypedPartNodeData(const std::string& dir, const TypeLayout& types, const int64_t* rows_in,
                              const std::vector<int64_t>& to, const NodeDataOptions& o, PartInfo* info,
                              LabelStats* labels) {
  const int T = types.num_types();
  const int64_t nb = to[0];
  bool any = false;
  for (int t = 0; t < T; ++t) any = any || !types.node_data[t].empty();
  if (any) DG_RETURN_IF_ERROR(MakeDir(dir + "/node_data"));
  for (int t = 0; t < T; ++t) {
    if (types.node_data[t].empty() && t != types.target_type) continue;
    const int64_t tb = to[t], count = to[t + 1] - to[t];
    std::vector<int64_t> rows(static_cast<size_t>(count));  // type-local input ids
    for (int64_t i = 0; i < count; ++i) rows[i] = rows_in[tb - nb + i] - types.type_offsets[t];
    const std::string& tn = types.node_types[t];
    if (!types.node_data[t].empty()) DG_RETURN_IF_ERROR(MakeDir(dir + "/node_data/" + tn));
    for (const auto& [name, a] : types.node_data[t])
      DG_RETURN_IF_ERROR(WriteRows(dir + "/node_data/" + tn + "/" + name + ".npy", a, rows.data(), count,
                                   o.drop_pages_of.count(tn + "/" + name) > 0,
                                   o.normalize_features && name == "features"));
    if (t != types.target_type) continue;
    auto split_it = types.node_data[t].find("split");
    if (split_it == types.node_data[t].end()) continue;
    const int8_t* split = split_it->second.as<int8_t>();
    for (int v = 0; v < 3; ++v) {
      const char* file = v == 0 ? "/train_nids.npy" : v == 1 ? "/val_nids.npy" : "/test_nids.npy";
      DG_ASSIGN_OR_RETURN(int64_t n, WriteIds(dir + file, count, tb, [&](int64_t i) { return split[rows[i]] == v; }));
      (v == 0 ? info->num_train : v == 1 ? info->num_val : info->num_test) = n;
    }
    auto lab = types.node_data[t].find("labels");
    if (lab == types.node_data[t].end()) {
      labels->negative = true;
      continue;
    }
    const int64_t* l = lab->second.as<int64_t>();
    for (int64_t i = 0; i < count; ++i) {
      const int8_t s = split[rows[i]];
      if (s < 0 || s > 2) continue;
      if (l[rows[i]] < 0) labels->negative = true;
      labels->max_label = std::max(labels->max_label, l[rows[i]]);
    }
  }
  if (info->num_val < 0 && types.target_type >= 0) {
    // A target without a split: empty seed files keep the layout uniform.
    info->num_train = info->num_val = info->num_test = 0;
    for (const char* f : {"/train_nids.npy", "/val_nids.npy", "/test_nids.npy"})
      DG_RETURN_IF_ERROR(NpyWrite(dir + f, Array::Zeros(DType::kInt64, {0})));
  }
  return Status::OK();
}

Status EdgeTypeWriter::Open(const std::string& path, int num_edge_types, int64_t n) {
  wide_ = num_edge_types > 255;
  narrow_.reserve(1 << 16);
  wide_buf_.reserve(1 << 16);
  return w_.Open(path, wide_ ? DType::kInt32 : DType::kUInt8, {n});
}

Status EdgeTypeWriter::Add(int etype) {
  if (wide_) {
    wide_buf_.push_back(etype);
    if (wide_buf_.size() == wide_buf_.capacity()) return Flush();
  } else {
    narrow_.push_back(static_cast<uint8_t>(etype));
    if (narrow_.size() == narrow_.capacity()) return Flush();
  }
  return Status::OK();
}

Status EdgeTypeWriter::Flush() {
  DG_RETURN_IF_ERROR(w_.Append(narrow_.data(), narrow_.size()));
  DG_RETURN_IF_ERROR(w_.Append(wide_buf_.data(), wide_buf_.size() * sizeof(int32_t)));
  narrow_.clear();
  wide_buf_.clear();
  return Status::OK();
}

Status EdgeTypeWriter::Finish() {
  DG_RETURN_IF_ERROR(Flush());
  return w_.Finish();
}

void LogPartStats(std::FILE* log, const PartitionConfig& cfg) {
  if (!log) return;
  const int64_t E = cfg.num_edges;
  std::fprintf(log, "  edge cut: %lld of %lld edges (%.1f%%) have a source in another part\n",
               (long long)cfg.edge_cut, (long long)E, E ? 100.0 * cfg.edge_cut / E : 0.0);
  for (int p = 0; p < cfg.num_parts; ++p) {
    const PartInfo& pi = cfg.parts[p];
    std::fprintf(log,
                 "  part %d: %lld owned nodes, %lld in-edges, %lld train nodes, %lld halo nodes (%.2f x owned)\n", p,
                 (long long)pi.num_nodes, (long long)pi.num_edges, (long long)pi.num_train, (long long)pi.num_halo,
                 pi.num_nodes ? double(pi.num_halo) / pi.num_nodes : 0.0);
  }
  std::fflush(log);
}

}  // namespace dg
