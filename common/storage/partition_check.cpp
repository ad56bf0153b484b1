#include "common/storage/partition_check.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "common/io/npy.h"

namespace dg {

namespace {

constexpr int64_t kBlock = 4096;

std::string Range(int64_t lo, int64_t hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")"; }

Status Outside(const std::string& file, int64_t entry, int64_t value, int64_t lo, int64_t hi,
               const std::string& what = "") {
  return Status::Corruption(file + ": entry " + std::to_string(entry) + " is " + std::to_string(value) + ", outside " +
                            Range(lo, hi) + what);
}

// First i in [0, n) with a[i] outside [lo, hi), or -1. Each block is reduced
// branch-free (the compiler vectorises it); only a bad block is searched.
// (Unsigned: a[i] - lo wraps below lo, so one compare tests both bounds.)
int64_t FirstOutside(const int64_t* a, int64_t n, int64_t lo, int64_t hi) {
  const uint64_t base = static_cast<uint64_t>(lo), span = static_cast<uint64_t>(hi) - base;
  const uint64_t* u = reinterpret_cast<const uint64_t*>(a);
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    bool bad = false;
    for (int64_t i = b; i < e; ++i) bad |= u[i] - base >= span;
    if (!bad) continue;
    for (int64_t i = b; i < e; ++i)
      if (u[i] - base >= span) return i;
  }
  return -1;
}

// First i in [0, n) with a[i + 1] < a[i] (strict: a[i + 1] <= a[i]), or -1.
int64_t FirstDescent(const int64_t* a, int64_t n, bool strict) {
  for (int64_t b = 0; b + 1 < n; b += kBlock) {
    const int64_t e = std::min(n - 1, b + kBlock);
    bool bad = false;
    for (int64_t i = b; i < e; ++i) bad |= strict ? a[i + 1] <= a[i] : a[i + 1] < a[i];
    if (!bad) continue;
    for (int64_t i = b; i < e; ++i)
      if (strict ? a[i + 1] <= a[i] : a[i + 1] < a[i]) return i;
  }
  return -1;
}

Status CheckIndptr(const std::string& dir, const LocalPartition& part) {
  const int64_t* ip = part.indptr.as<int64_t>();
  const int64_t i = FirstDescent(ip, part.num_owned() + 1, false);
  if (i < 0) return Status::OK();
  return Status::Corruption(dir + "/indptr.npy: entry " + std::to_string(i + 1) + " is " + std::to_string(ip[i + 1]) +
                            ", below entry " + std::to_string(i) + " (" + std::to_string(ip[i]) +
                            "): offsets must not decrease");
}

// Node type of global id g: the last range start <= g (ranges of every part and type).
struct TypeLookup {
  std::vector<int64_t> starts;
  std::vector<int> types;
  explicit TypeLookup(const PartitionConfig& c) {
    for (int p = 0; p < c.num_parts; ++p)
      for (int t = 0; t < c.num_node_types(); ++t)
        if (c.node_type_offsets[p][t + 1] > c.node_type_offsets[p][t]) {
          starts.push_back(c.node_type_offsets[p][t]);
          types.push_back(t);
        }
  }
  int operator()(int64_t g) const {
    return types[std::upper_bound(starts.begin(), starts.end(), g) - starts.begin() - 1];
  }
};

template <typename T>
Status CheckTypedEdges(const PartitionConfig& c, const LocalPartition& part, const std::string& dir, const T* et) {
  const std::string file = dir + "/edge_types.npy";
  const int64_t* ip = part.indptr.as<int64_t>();
  const int64_t* src = part.indices.as<int64_t>();
  const int64_t num_etypes = static_cast<int64_t>(c.edge_types.size());
  const TypeLookup type_of(c);
  int dst_type = 0;
  for (int64_t i = 0; i < part.num_owned(); ++i) {
    const int64_t gid = part.node_begin + i;
    while (gid >= part.type_offsets[dst_type + 1]) ++dst_type;
    for (int64_t e = ip[i]; e < ip[i + 1]; ++e) {
      const int64_t t = static_cast<int64_t>(et[e]);
      if (t < 0 || t >= num_etypes) return Outside(file, e, t, 0, num_etypes, ", the edge types NAME.json lists");
      if (e > ip[i] && t < static_cast<int64_t>(et[e - 1]))
        return Status::Corruption(file + ": entry " + std::to_string(e) + " is " + std::to_string(t) + ", below entry " +
                                  std::to_string(e - 1) + " (" + std::to_string(et[e - 1]) + ") of the same row: " +
                                  "each row's in-edges are sorted by edge type");
      const PartitionConfig::EdgeType& type = c.edge_types[t];
      if (type.dst_type != dst_type)
        return Status::Corruption(file + ": entry " + std::to_string(e) + " is edge type " + std::to_string(t) + " (" +
                                  type.relation + ", into " + type.dst + ") but its destination " + std::to_string(gid) +
                                  " is a " + c.node_types[dst_type]);
      const int st = type_of(src[e]);
      if (type.src_type != st)
        return Status::Corruption(file + ": entry " + std::to_string(e) + " is edge type " + std::to_string(t) + " (" +
                                  type.relation + ", from " + type.src + ") but its source " + std::to_string(src[e]) +
                                  " (indices.npy) is a " + c.node_types[st]);
    }
  }
  return Status::OK();
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// train/val/test_nids.npy: NAME.json's count, strictly increasing, owned (of the target type).
Status CheckSeeds(const PartitionConfig& c, const LocalPartition& part, const std::string& dir, PartCheckStats* stats) {
  const PartInfo& info = c.parts[part.part_id];
  if (info.num_val < 0) return Status::OK();  // written before seed files existed
  int64_t lo = part.node_begin, hi = part.node_end;
  std::string whose = ", the nodes part " + std::to_string(part.part_id) + " owns";
  if (c.typed() && !c.target.empty()) {
    const int t = c.NodeTypeId(c.target);
    lo = part.type_offsets[t];
    hi = part.type_offsets[t + 1];
    whose += " of the target type " + c.target;
  }
  const std::pair<const char*, int64_t> files[] = {
      {"train_nids.npy", info.num_train}, {"val_nids.npy", info.num_val}, {"test_nids.npy", info.num_test}};
  for (const auto& [name, count] : files) {
    const std::string file = dir + "/" + name;
    if (c.typed() && c.target.empty() && !Exists(file)) continue;  // no task type: no seeds
    DG_ASSIGN_OR_RETURN(Array ids, NpyMap(file));
    if (ids.dtype != DType::kInt64 || ids.shape != std::vector<int64_t>{count})
      return Status::Corruption(file + ": " + DTypeName(ids.dtype) + " " + ids.ShapeString() + ", " + c.path +
                                " says int64 [" + std::to_string(count) + "]");
    const int64_t* a = ids.as<int64_t>();
    const int64_t bad = FirstOutside(a, count, lo, hi);
    if (bad >= 0) return Outside(file, bad, a[bad], lo, hi, whose);
    const int64_t i = FirstDescent(a, count, true);
    if (i >= 0)
      return Status::Corruption(file + ": entry " + std::to_string(i + 1) + " is " + std::to_string(a[i + 1]) +
                                ", not above entry " + std::to_string(i) + " (" + std::to_string(a[i]) +
                                "): seed ids are strictly increasing");
    stats->bytes_scanned += static_cast<int64_t>(ids.nbytes());
    stats->part_bytes += static_cast<int64_t>(ids.nbytes());
  }
  return Status::OK();
}

// val/test_edges.npy (link prediction, optional): int64 [M, 2] of (src, dst), dst owned.
Status CheckHeldOutEdges(const PartitionConfig& c, const LocalPartition& part, const std::string& dir,
                         PartCheckStats* stats) {
  for (const char* name : {"val_edges.npy", "test_edges.npy"}) {
    const std::string file = dir + "/" + name;
    if (!Exists(file)) continue;
    DG_ASSIGN_OR_RETURN(Array e, NpyMap(file));
    if (e.dtype != DType::kInt64 || e.shape.size() != 2 || e.shape[1] != 2)
      return Status::Corruption(file + ": " + DTypeName(e.dtype) + " " + e.ShapeString() + ", expected int64 [M, 2]");
    const int64_t* a = e.as<int64_t>();
    for (int64_t i = 0; i < e.rows(); ++i) {
      if (a[2 * i] < 0 || a[2 * i] >= c.num_nodes)
        return Outside(file, 2 * i, a[2 * i], 0, c.num_nodes, " (source of row " + std::to_string(i) + ")");
      if (a[2 * i + 1] < part.node_begin || a[2 * i + 1] >= part.node_end)
        return Outside(file, 2 * i + 1, a[2 * i + 1], part.node_begin, part.node_end,
                       " (destination of row " + std::to_string(i) + "), the nodes part " +
                           std::to_string(part.part_id) + " owns");
    }
    stats->bytes_scanned += static_cast<int64_t>(e.nbytes());
    stats->part_bytes += static_cast<int64_t>(e.nbytes());
  }
  return Status::OK();
}

std::string Bytes(int64_t b) {
  char s[32];
  if (b >= (int64_t(1) << 30))
    std::snprintf(s, sizeof s, "%.2f GB", b / 1073741824.0);
  else
    std::snprintf(s, sizeof s, "%.1f MB", b / 1048576.0);
  return s;
}

}  // namespace

Status CheckPartStructure(const PartitionConfig& c, const LocalPartition& part, PartCheckStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dir = c.PartDir(part.part_id);
  *stats = PartCheckStats();
  DG_RETURN_IF_ERROR(CheckIndptr(dir, part));
  const int64_t* src = part.indices.as<int64_t>();
  const int64_t bad = FirstOutside(src, part.num_edges(), 0, c.num_nodes);
  if (bad >= 0) return Outside(dir + "/indices.npy", bad, src[bad], 0, c.num_nodes);
  stats->bytes_scanned = static_cast<int64_t>(part.indptr.nbytes() + part.indices.nbytes());
  if (c.typed()) {
    if (part.edge_types.dtype == DType::kUInt8)
      DG_RETURN_IF_ERROR(CheckTypedEdges(c, part, dir, part.edge_types.as<uint8_t>()));
    else
      DG_RETURN_IF_ERROR(CheckTypedEdges(c, part, dir, part.edge_types.as<int32_t>()));
    stats->bytes_scanned += static_cast<int64_t>(part.edge_types.nbytes());
  }
  stats->part_bytes = stats->bytes_scanned;
  for (const auto& [name, a] : part.node_data) stats->part_bytes += static_cast<int64_t>(a.nbytes());
  for (const auto& [name, a] : part.edge_data) stats->part_bytes += static_cast<int64_t>(a.nbytes());
  DG_RETURN_IF_ERROR(CheckSeeds(c, part, dir, stats));
  DG_RETURN_IF_ERROR(CheckHeldOutEdges(c, part, dir, stats));
  stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return Status::OK();
}

Result<PartCheckReport> CheckPart(const PartitionConfig& config, int part, bool with_checksums) {
  if (part < 0 || part >= config.num_parts)
    return Status::InvalidArgument("partition " + std::to_string(part) + " does not exist: " + config.path + " has " +
                                   std::to_string(config.num_parts) + " partitions");
  PartCheckReport report;
  {
    DG_ASSIGN_OR_RETURN(LocalPartition lp, OpenLocalPartition(config, part));
    DG_RETURN_IF_ERROR(CheckPartStructure(config, lp, &report.structure));
  }
  // After the structure: a structural error names the entry, a checksum only the file.
  if (with_checksums && !config.checksums.empty()) {
    DG_ASSIGN_OR_RETURN(report.checksums, VerifyChecksums(config, part));
    report.checksums_checked = true;
  }
  return report;
}

std::string PartCheckLine(const PartitionConfig& config, int part, const PartCheckReport& r) {
  char s[160];
  std::snprintf(s, sizeof s, "part %d: structure checked in %.3f s (%s read of %s)", part, r.structure.seconds,
                Bytes(r.structure.bytes_scanned).c_str(), Bytes(r.structure.part_bytes).c_str());
  std::string line = s;
  if (r.checksums_checked) {
    std::snprintf(s, sizeof s, "; %d checksums match (%s in %.2f s)", r.checksums.files, Bytes(r.checksums.bytes).c_str(),
                  r.checksums.seconds);
    line += s;
  } else if (config.checksums.empty()) {
    line += "; " + config.path + " records no checksums";
  }
  return line;
}

Result<std::string> CheckServedPart(const std::string& json_path, int part, bool with_checksums) {
  DG_ASSIGN_OR_RETURN(PartitionConfig config, LoadAnyPartitionConfig(json_path));
  DG_ASSIGN_OR_RETURN(PartCheckReport report, CheckPart(config, part, with_checksums));
  return PartCheckLine(config, part, report);
}

Result<std::string> VerifyPartition(const std::string& json_path, int part) {
  DG_ASSIGN_OR_RETURN(PartitionConfig config, LoadAnyPartitionConfig(json_path));
  const auto t0 = std::chrono::steady_clock::now();
  ChecksumReport sums;
  int64_t scanned = 0;
  const int first = part < 0 ? 0 : part, last = part < 0 ? config.num_parts - 1 : part;
  for (int p = first; p <= last; ++p) {
    DG_ASSIGN_OR_RETURN(PartCheckReport r, CheckPart(config, p, part >= 0));
    if (part >= 0) sums = r.checksums;
    scanned += r.structure.bytes_scanned;
  }
  if (part < 0) {  // every recorded file, the top-level arrays included
    DG_ASSIGN_OR_RETURN(sums, VerifyChecksums(config, -1));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string what = part < 0 ? std::to_string(config.num_parts) + " parts" : "part " + std::to_string(part);
  char s[200];
  std::snprintf(s, sizeof s, ": structure OK (%s read); ", Bytes(scanned).c_str());
  std::string line = json_path + ": " + what + s;
  if (config.checksums.empty()) {
    line += "checksums absent (written before distgnn recorded them): structure checked only";
  } else {
    std::snprintf(s, sizeof s, "%d files match their SHA-256 checksums (%s)", sums.files, Bytes(sums.bytes).c_str());
    line += s;
  }
  std::snprintf(s, sizeof s, " in %.2f s", seconds);
  return line + s;
}

}  // namespace dg
