#include "roles/partition/ogb_input.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>

#include "common/io/csv_reader.h"
#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "common/storage/ogb_dataset.h"

namespace dg {

namespace {

constexpr size_t kFlushValues = 1 << 18;  // 1-2 MB of values per write

// What a share reads: its rows, and through the end of the file for the
// share that ends at the node count (which checks the count).
CsvRowRange ReadRange(CsvRowRange share, int64_t rows) {
  return {share.first, share.end >= rows ? INT64_MAX : share.end};
}

// A file's rows as a share sees them: the last share checks the count, the
// others that the file reaches their end (else the file's count is short).
Status CheckShareRows(const std::string& csv, int64_t seen, int64_t rows, CsvRowRange share, const std::string& what) {
  if (share.end >= rows || seen < share.end) return CheckOgbRows(csv, seen, rows, what);
  return Status::OK();
}

// node-feat CSV rows [share.first, share.end) -> float32 [share rows, F] .npy,
// rows appended as they are parsed (F from the first; an empty share reads line 1).
Status WriteFeatures(const std::string& csv, int64_t rows, CsvRowRange share, const std::string& npy) {
  NpyWriter w;
  bool open = false;
  std::vector<float> buf;
  int64_t seen = 0;
  DG_RETURN_IF_ERROR(ForEachOgbFeatureRow(csv, [&](int64_t r, const double* x, int64_t k) {
    if (!open) {
      DG_RETURN_IF_ERROR(w.Open(npy, DType::kFloat32, {share.end - share.first, k}));
      open = true;
    }
    if (r >= share.end) return Status::OK();  // counted, reported below as the in-memory reader does
    for (int64_t j = 0; j < k; ++j) buf.push_back(static_cast<float>(x[j]));
    if (buf.size() < kFlushValues) return Status::OK();
    DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(float)));
    buf.clear();
    return Status::OK();
  }, &seen, ReadRange(share, rows)));
  DG_RETURN_IF_ERROR(CheckShareRows(csv, seen, rows, share, "rows"));
  if (!open) {
    DG_ASSIGN_OR_RETURN(int64_t f, OgbFeatureWidth(csv));
    DG_RETURN_IF_ERROR(w.Open(npy, DType::kFloat32, {share.end - share.first, f}));
  }
  DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(float)));
  return w.Finish();
}

// node-label CSV rows [share.first, share.end) -> int64 [share rows] .npy (nan -> -1).
Status WriteLabels(const std::string& csv, int64_t rows, CsvRowRange share, const std::string& npy) {
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(npy, DType::kInt64, {share.end - share.first}));
  std::vector<int64_t> buf;
  int64_t at = share.first, seen = 0;
  DG_RETURN_IF_ERROR(ForEachOgbLabel(csv, [&](int64_t label) {
    if (at++ >= share.end) return Status::OK();  // counted, reported below
    buf.push_back(label);
    if (buf.size() < kFlushValues) return Status::OK();
    DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(int64_t)));
    buf.clear();
    return Status::OK();
  }, &seen, ReadRange(share, rows)));
  DG_RETURN_IF_ERROR(CheckShareRows(csv, seen, rows, share, "labels"));
  DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(int64_t)));
  return w.Finish();
}

// The node count as the in-memory reader finds it: num-node-list, else
// node-feat's rows, else the largest edge id + 1 (-1: nothing needs it yet).
Result<int64_t> HomogeneousNodeCount(const std::string& raw, bool needed) {
  const std::string list = OgbCsvPath(raw + "/num-node-list"), feat = OgbCsvPath(raw + "/node-feat");
  if (OgbFileExists(list)) return ReadOgbCount(list);
  if (OgbFileExists(feat)) {
    return CountCsvRows(feat);  // lines counted, none parsed: the writer checks them
  }
  if (!needed) return int64_t{-1};
  int64_t max_id = -1;
  DG_RETURN_IF_ERROR(ForEachEdgeText(OgbCsvPath(raw + "/edge"), -1,
                                     [](const int64_t*, const int64_t*, int64_t) { return Status::OK(); }, &max_id));
  return max_id + 1;
}

std::string StagedEdgeFile(const std::string& staged, const std::string& dir, const EdgeTypeData& et) {
  const std::string from = OgbEdgeFile(dir, et);
  const bool gz = from.size() < 4 || from.compare(from.size() - 4, 4, ".csv") != 0;
  return staged + "/edges/" + et.CanonicalName() + (gz ? ".csv.gz" : ".csv");
}

Status WriteText(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status::FromErrno("create " + path, errno);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) return Status::IOError("write " + path + ": disk full?");
  return Status::OK();
}

}  // namespace

Result<std::map<std::string, std::string>> WriteOgbNodeShare(const OgbNodeSet& set, CsvRowRange share,
                                                             const std::string& out_prefix) {
  std::map<std::string, std::string> files;
  if (OgbFileExists(set.feat)) {
    files["features"] = out_prefix + "features.npy";
    DG_RETURN_IF_ERROR(WriteFeatures(set.feat, set.rows, share, files["features"]));
  }
  if (OgbFileExists(set.label)) {
    files["labels"] = out_prefix + "labels.npy";
    DG_RETURN_IF_ERROR(WriteLabels(set.label, set.rows, share, files["labels"]));
  }
  return files;
}

Result<std::string> WriteOgbSplit(const OgbNodeSet& set) {
  if (set.split_dir.empty() || !OgbFileExists(set.split_dir)) return std::string();
  DG_ASSIGN_OR_RETURN(Array a, ReadOgbSplit(set.split_dir, set.rows));
  const std::string npy = set.out_prefix + "split.npy";
  DG_RETURN_IF_ERROR(NpyWrite(npy, a));
  return npy;
}

Result<std::map<std::string, std::string>> WriteOgbNodeSet(const OgbNodeSet& set) {
  DG_ASSIGN_OR_RETURN(auto files, WriteOgbNodeShare(set, CsvRowRange{0, set.rows}, set.out_prefix));
  DG_ASSIGN_OR_RETURN(std::string split, WriteOgbSplit(set));
  if (!split.empty()) files["split"] = split;
  return files;
}

Result<OgbCounts> ReadOgbCounts(const std::string& dir) {
  OgbCounts c;
  const std::string nodes = OgbCsvPath(dir + "/raw/num-node-list"), edges = OgbCsvPath(dir + "/raw/num-edge-list");
  if (OgbFileExists(nodes)) {
    DG_ASSIGN_OR_RETURN(c.nodes, ReadOgbCount(nodes));
  }
  if (OgbFileExists(edges)) {
    DG_ASSIGN_OR_RETURN(c.edges, ReadOgbCount(edges));
  }
  return c;
}

Result<OutOfCoreSource> StageOgbDataset(const std::string& dir, const std::string& scratch_dir,
                                        const OgbNodeWriter& write) {
  const std::string raw = dir + "/raw";
  if (!OgbFileExists(raw)) return Status::NotFound(raw + ": not found (an OGB dataset directory has raw/ and split/)");
  DG_ASSIGN_OR_RETURN(std::string split, OgbSplitDir(dir));
  const std::string feat = OgbCsvPath(raw + "/node-feat"), label = OgbCsvPath(raw + "/node-label");
  DG_ASSIGN_OR_RETURN(int64_t n, HomogeneousNodeCount(raw, OgbFileExists(label) || !split.empty()));
  OutOfCoreSource src;
  src.edges_file = OgbCsvPath(raw + "/edge");
  src.num_nodes = n;
  DG_ASSIGN_OR_RETURN(src.node_files, write(OgbNodeSet{feat, label, split, n, scratch_dir + "/ogb-"}));
  return src;
}

Result<std::string> StageOgbTypedDataset(const std::string& dir, const std::string& scratch_dir,
                                         const OgbNodeWriter& write) {
  DG_ASSIGN_OR_RETURN(TypedDataset meta, ReadOgbTypedMeta(dir));
  DG_ASSIGN_OR_RETURN(std::string split, OgbSplitDir(dir));
  DG_ASSIGN_OR_RETURN(std::string target, OgbTypedTarget(dir, meta, split));
  const std::string staged = scratch_dir + "/ogb-typed";
  std::error_code ec;
  std::vector<std::pair<std::string, int64_t>> types;
  for (const NodeTypeData& nt : meta.node_types) {
    const std::string tdir = staged + "/nodes/" + nt.name;
    if (!std::filesystem::create_directories(tdir, ec) && ec) return Status::FromErrno("create " + tdir, ec.value());
    DG_RETURN_IF_ERROR(write(OgbNodeSet{OgbTypeFile(dir, nt.name, "node-feat"), OgbTypeFile(dir, nt.name, "node-label"),
                                        split.empty() ? "" : split + "/" + nt.name, nt.count, tdir + "/"})
                           .status());
    types.emplace_back(nt.name, nt.count);
  }
  std::vector<std::vector<std::string>> rels;
  if (!std::filesystem::create_directories(staged + "/edges", ec) && ec)
    return Status::FromErrno("create " + staged + "/edges", ec.value());
  for (const EdgeTypeData& et : meta.edge_types) {
    const std::string from = std::filesystem::absolute(OgbEdgeFile(dir, et), ec).string();
    const std::string link = StagedEdgeFile(staged, dir, et);
    if (::symlink(from.c_str(), link.c_str()) != 0) return Status::FromErrno("link " + link + " -> " + from, errno);
    rels.push_back({et.src_type, et.relation, et.dst_type});
  }
  DG_RETURN_IF_ERROR(WriteText(staged + "/meta.json", TypedMetaJson(types, rels, target, 0)));
  return staged;
}

Status NameOgbEdgeFiles(const Status& st, const std::string& dir, const std::string& staged) {
  if (st.ok()) return st;
  auto meta = ReadOgbTypedMeta(dir);
  if (!meta.ok()) return st;
  std::string msg = st.message();
  for (const EdgeTypeData& et : meta->edge_types) {
    const std::string link = StagedEdgeFile(staged, dir, et);
    for (size_t at = msg.find(link); at != std::string::npos; at = msg.find(link, at + 1))
      msg.replace(at, link.size(), OgbEdgeFile(dir, et));
  }
  if (msg == st.message()) return st;
  switch (st.code()) {
    case Status::Code::kInvalidArgument: return Status::InvalidArgument(msg);
    case Status::Code::kNotFound: return Status::NotFound(msg);
    case Status::Code::kIOError: return Status::IOError(msg);
    default: return st;
  }
}

}  // namespace dg
