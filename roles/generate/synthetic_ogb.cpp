#include "roles/generate/synthetic_ogb.h"

#include <zlib.h>

#include <charconv>
#include <cmath>
#include <filesystem>

#include "common/io/npy.h"
#include "roles/partition/edge_source.h"
#include "roles/partition/staged_dir.h"

namespace dg {

namespace {

namespace fs = std::filesystem;

// A gzip'd text file written through a 4 MB buffer; errors name the file.
class GzText {
 public:
  ~GzText() {
    if (gz_) gzclose(gz_);
  }
  Status Open(const std::string& path) {
    path_ = path;
    gz_ = gzopen(path.c_str(), "wb1");  // level 1: generating large inputs is I/O and CPU bound
    if (!gz_) return Status::IOError("create " + path);
    buf_.reserve(kFlush + 4096);
    return Status::OK();
  }
  void Int(int64_t v) { Number(v); }
  void Float(float v) { Number(v); }  // shortest text that reads back as v
  void Text(const char* s, size_t n) { buf_.append(s, n); }
  void Char(char c) { buf_.push_back(c); }
  Status Line() {
    buf_.push_back('\n');
    return buf_.size() >= kFlush ? Flush() : Status::OK();
  }
  Status Close() {
    DG_RETURN_IF_ERROR(Flush());
    const int rc = gzclose(gz_);
    gz_ = nullptr;
    return rc == Z_OK ? Status::OK() : Status::IOError("write " + path_ + ": disk full?");
  }

 private:
  static constexpr size_t kFlush = 4 << 20;
  template <typename T>
  void Number(T v) {
    const size_t at = buf_.size();
    buf_.resize(at + 32);  // room for any int64 or float
    buf_.resize(static_cast<size_t>(std::to_chars(buf_.data() + at, buf_.data() + at + 32, v).ptr - buf_.data()));
  }
  Status Flush() {
    if (!buf_.empty() && gzwrite(gz_, buf_.data(), static_cast<unsigned>(buf_.size())) != static_cast<int>(buf_.size()))
      return Status::IOError("write " + path_ + ": disk full?");
    buf_.clear();
    return Status::OK();
  }
  std::string path_;
  gzFile gz_ = nullptr;
  std::string buf_;
};

Status WriteCount(const std::string& path, int64_t n) {
  GzText f;
  DG_RETURN_IF_ERROR(f.Open(path));
  f.Int(n);
  DG_RETURN_IF_ERROR(f.Line());
  return f.Close();
}

Status WriteEdges(const std::string& npy, const std::string& raw, int64_t* edges) {
  DG_ASSIGN_OR_RETURN(EdgeSource es, EdgeSource::Map(npy + "/src.npy", npy + "/dst.npy"));
  GzText f;
  DG_RETURN_IF_ERROR(f.Open(raw + "/edge.csv.gz"));
  DG_RETURN_IF_ERROR(es.ForEachChunk(1 << 20, [&](const int64_t* s, const int64_t* d, int64_t n, int64_t) {
    for (int64_t e = 0; e < n; ++e) {
      f.Int(s[e]);
      f.Char(',');
      f.Int(d[e]);
      DG_RETURN_IF_ERROR(f.Line());
    }
    return Status::OK();
  }));
  *edges = es.size();
  DG_RETURN_IF_ERROR(f.Close());
  return WriteCount(raw + "/num-edge-list.csv.gz", es.size());
}

Status WriteFeatures(const std::string& npy, const std::string& raw) {
  DG_ASSIGN_OR_RETURN(Array a, NpyMap(npy + "/features.npy"));
  const int64_t n = a.shape[0], f = a.shape[1];
  GzText out;
  DG_RETURN_IF_ERROR(out.Open(raw + "/node-feat.csv.gz"));
  const float* x = a.as<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < f; ++j) {
      if (j) out.Char(',');
      out.Float(x[i * f + j]);
    }
    DG_RETURN_IF_ERROR(out.Line());
    if ((i + 1) % 65536 == 0) DropMappedPages(x + (i + 1 - 65536) * f, x + (i + 1) * f);
  }
  return out.Close();
}

Status WriteLabelsAndSplit(const std::string& npy, const std::string& raw, const std::string& split) {
  DG_ASSIGN_OR_RETURN(Array labels, NpyMap(npy + "/labels.npy"));
  DG_ASSIGN_OR_RETURN(Array part, NpyMap(npy + "/split.npy"));
  GzText lab, sets[3];
  DG_RETURN_IF_ERROR(lab.Open(raw + "/node-label.csv.gz"));
  const char* names[] = {"train", "valid", "test"};
  for (int s = 0; s < 3; ++s) DG_RETURN_IF_ERROR(sets[s].Open(split + "/" + names[s] + ".csv.gz"));
  for (int64_t i = 0; i < labels.shape[0]; ++i) {
    const int64_t l = labels.as<int64_t>()[i];
    if (l < 0) lab.Text("nan", 3);
    else lab.Int(l);
    DG_RETURN_IF_ERROR(lab.Line());
    const int8_t s = part.as<int8_t>()[i];
    if (s < 0 || s > 2) continue;
    sets[s].Int(i);
    DG_RETURN_IF_ERROR(sets[s].Line());
  }
  for (GzText& t : sets) DG_RETURN_IF_ERROR(t.Close());
  DG_RETURN_IF_ERROR(lab.Close());
  return WriteCount(raw + "/num-node-list.csv.gz", labels.shape[0]);
}

}  // namespace

Status WriteSyntheticOgb(const SyntheticOptions& o, const std::string& out_dir, bool force) {
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !force)
    return Status::AlreadyExists("output " + out_dir + " exists (use --force to replace it)");
  StagedDir staged(out_dir);
  DG_RETURN_IF_ERROR(staged.Create({"raw", "split/random"}));
  const std::string npy = (staged.path() / "npy").string(), raw = (staged.path() / "raw").string();
  DG_RETURN_IF_ERROR(WriteSyntheticDataset(o, npy, false));
  int64_t edges = 0;
  DG_RETURN_IF_ERROR(WriteEdges(npy, raw, &edges));
  DG_RETURN_IF_ERROR(WriteFeatures(npy, raw));
  DG_RETURN_IF_ERROR(WriteLabelsAndSplit(npy, raw, (staged.path() / "split/random").string()));
  fs::remove_all(npy, ec);
  return staged.Commit();
}

}  // namespace dg
