#include "roles/partition/out_of_core_input.h"

#include <algorithm>
#include <chrono>

#include <unistd.h>

#include "common/io/gzip_reader.h"
#include "common/io/npy.h"

namespace dg {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<std::string> PlainNpyPath(const std::string& path, const std::string& dir, const std::string& as) {
  if (EndsWith(path, ".npy") && !IsGzipFile(path)) return path;
  GzipFile in;
  DG_RETURN_IF_ERROR(in.Open(path));
  const std::string out_path = dir + "/" + as;
  std::FILE* out = std::fopen(out_path.c_str(), "wb");
  if (!out) return Status::IOError("create " + out_path + " (gunzipping " + path + ")");
  std::vector<char> buf(1 << 20);
  for (size_t got = buf.size(); got == buf.size();) {
    Status st = in.Read(buf.data(), buf.size(), &got);
    if (st.ok() && got > 0 && std::fwrite(buf.data(), 1, got, out) != got)
      st = Status::IOError("write " + out_path + " (gunzipping " + path + "): disk full?");
    if (!st.ok()) {
      std::fclose(out);
      return st;
    }
  }
  if (std::fclose(out) != 0) return Status::IOError("write " + out_path + " (gunzipping " + path + ")");
  return out_path;
}

Result<int64_t> CountInputEdges(const OutOfCoreSource& src) {
  std::string s = src.edges_file.empty() ? "" : src.edges_file;
  if (!src.dataset_dir.empty()) {
    DG_ASSIGN_OR_RETURN(DatasetFiles df, ListDataset(src.dataset_dir));
    if (!df.edges_text.empty()) return int64_t{-1};
    s = df.src_npy;
  } else {
    return int64_t{-1};
  }
  if (!EndsWith(s, ".npy")) return int64_t{-1};
  DG_ASSIGN_OR_RETURN(Array a, NpyMap(s));
  return a.rows();
}

Result<OutOfCoreInput> OpenOutOfCoreInput(const OutOfCoreSource& src, const EdgeListOptions& norm,
                                          const SpillOptions& spill, std::FILE* log) {
  OutOfCoreInput in;
  std::map<std::string, std::string> node_files = src.node_files;
  std::string text, src_npy, dst_npy;
  if (!src.dataset_dir.empty()) {
    DG_ASSIGN_OR_RETURN(DatasetFiles df, ListDataset(src.dataset_dir));
    node_files = df.node_files;
    text = df.edges_text;
    src_npy = df.src_npy;
    dst_npy = df.dst_npy;
  } else {
    text = src.edges_file;
  }
  int64_t num_nodes = src.num_nodes;
  std::string from = num_nodes >= 0 ? "--num-nodes" : "";
  for (const auto& [name, given] : node_files) {
    DG_ASSIGN_OR_RETURN(std::string path, PlainNpyPath(given, spill.tmp_dir, "input-node-" + name + ".npy"));
    DG_ASSIGN_OR_RETURN(Array a, NpyMap(path));
    if (a.shape.empty())
      return Status::InvalidArgument(path + ": a node array needs one row per node; got a 0-d array");
    if (num_nodes < 0) {
      num_nodes = a.shape[0];
      from = path;
    } else if (a.shape[0] != num_nodes) {
      return Status::InvalidArgument(path + ": has " + std::to_string(a.shape[0]) + " rows, expected " +
                                     std::to_string(num_nodes) + " (from " + from + ")");
    }
    in.mapped.insert(name);
    in.node_data[name] = std::move(a);
  }

  EdgeSource raw;
  std::vector<std::string> written;  // raw columns this function wrote into the scratch directory
  if (!text.empty()) {  // two streamed parses: count, then write the columns
    int64_t n = 0, max_id = -1;
    DG_RETURN_IF_ERROR(ForEachEdgeText(text, num_nodes, [&](const int64_t*, const int64_t*, int64_t c) {
      n += c;
      return Status::OK();
    }, &max_id));
    if (num_nodes < 0) num_nodes = max_id + 1;
    NpyWriter ws, wd;
    DG_RETURN_IF_ERROR(ws.Open(spill.tmp_dir + "/input-src.npy", DType::kInt64, {n}));
    DG_RETURN_IF_ERROR(wd.Open(spill.tmp_dir + "/input-dst.npy", DType::kInt64, {n}));
    DG_RETURN_IF_ERROR(ForEachEdgeText(text, num_nodes, [&](const int64_t* s, const int64_t* d, int64_t c) {
      DG_RETURN_IF_ERROR(ws.Append(s, static_cast<size_t>(c) * sizeof(int64_t)));
      return wd.Append(d, static_cast<size_t>(c) * sizeof(int64_t));
    }, &max_id));
    DG_RETURN_IF_ERROR(ws.Finish());
    DG_RETURN_IF_ERROR(wd.Finish());
    written = {spill.tmp_dir + "/input-src.npy", spill.tmp_dir + "/input-dst.npy"};
    DG_ASSIGN_OR_RETURN(raw, EdgeSource::Map(written[0], written[1]));
  } else {
    DG_ASSIGN_OR_RETURN(std::string s, PlainNpyPath(src_npy, spill.tmp_dir, "input-src.npy"));
    DG_ASSIGN_OR_RETURN(std::string d, PlainNpyPath(dst_npy, spill.tmp_dir, "input-dst.npy"));
    for (const std::string& p : {s, d})
      if (p != src_npy && p != dst_npy) written.push_back(p);  // gunzipped
    DG_ASSIGN_OR_RETURN(raw, EdgeSource::Map(s, d));
  }
  // Ids: non-negative, below num_nodes if known; else num_nodes = max id + 1.
  int64_t max_id = -1;
  const std::string what = text.empty() ? src_npy + " / " + dst_npy : text;
  DG_RETURN_IF_ERROR(raw.ForEachChunk(1 << 20, [&](const int64_t* s, const int64_t* d, int64_t n, int64_t first) {
    for (int64_t e = 0; e < n; ++e) {
      const int64_t m = std::max(s[e], d[e]);
      if (std::min(s[e], d[e]) < 0 || (num_nodes >= 0 && m >= num_nodes))
        return Status::InvalidArgument(what + ": edge " + std::to_string(first + e) + " (" + std::to_string(s[e]) +
                                       ", " + std::to_string(d[e]) + ") has a node id outside [0, " +
                                       (num_nodes >= 0 ? std::to_string(num_nodes) : std::string("inf")) + ")");
      max_id = std::max(max_id, m);
    }
    return Status::OK();
  }));
  if (num_nodes < 0) num_nodes = max_id + 1;
  in.num_nodes = num_nodes;
  if (NeedsNormalization(norm)) {
    auto t = std::chrono::steady_clock::now();
    size_t runs = 0;
    DG_ASSIGN_OR_RETURN(in.edges, NormalizeEdgesOutOfCore(raw, norm, spill, &runs));
    // The normalized edges replace the raw columns: those in the scratch
    // directory are not read again, and their disk is freed now.
    const int64_t raw_edges = raw.size();
    raw = EdgeSource();
    for (const std::string& p : written) ::unlink(p.c_str());
    if (log) {
      std::fprintf(log, "  normalize edges:   %.2f s (%lld -> %lld edges, %zu sorted runs)\n",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(),
                   (long long)raw_edges, (long long)in.edges.size(), runs);
      std::fflush(log);
    }
  } else {
    in.edges = std::move(raw);
  }
  return in;
}

}  // namespace dg
