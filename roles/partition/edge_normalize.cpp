#include "roles/partition/edge_normalize.h"

#include <functional>

#include "common/io/npy.h"
#include "roles/partition/external_sort.h"

namespace dg {

bool NeedsNormalization(const EdgeListOptions& o) { return o.undirected || o.drop_self_loops || o.drop_duplicates; }

namespace {

// Streams (src, dst) pairs into two .npy columns of a known length.
class PairWriter {
 public:
  Status Open(const std::string& dir, int64_t n) {
    DG_RETURN_IF_ERROR(ws_.Open(dir + "/normalized-src.npy", DType::kInt64, {n}));
    DG_RETURN_IF_ERROR(wd_.Open(dir + "/normalized-dst.npy", DType::kInt64, {n}));
    s_.reserve(kBuf);
    d_.reserve(kBuf);
    return Status::OK();
  }
  Status Add(int64_t s, int64_t d) {
    s_.push_back(s);
    d_.push_back(d);
    return s_.size() == kBuf ? Flush() : Status::OK();
  }
  Status Finish() {
    DG_RETURN_IF_ERROR(Flush());
    DG_RETURN_IF_ERROR(ws_.Finish());
    return wd_.Finish();
  }

 private:
  static constexpr size_t kBuf = 1 << 16;
  Status Flush() {
    DG_RETURN_IF_ERROR(ws_.Append(s_.data(), s_.size() * sizeof(int64_t)));
    DG_RETURN_IF_ERROR(wd_.Append(d_.data(), d_.size() * sizeof(int64_t)));
    s_.clear();
    d_.clear();
    return Status::OK();
  }
  NpyWriter ws_, wd_;
  std::vector<int64_t> s_, d_;
};

}  // namespace

Result<EdgeSource> NormalizeEdgesOutOfCore(const EdgeSource& in, const EdgeListOptions& opts, const SpillOptions& spill,
                                           size_t* runs) {
  constexpr int64_t kChunk = 1 << 20;
  const std::string& dir = spill.tmp_dir;
  *runs = 0;
  const bool dedupe = opts.undirected || opts.drop_duplicates;
  PairWriter w;
  if (!dedupe) {  // self loops only: filter in order
    int64_t n = 0;
    DG_RETURN_IF_ERROR(in.ForEachChunk(kChunk, [&](const int64_t* s, const int64_t* d, int64_t c, int64_t) {
      for (int64_t e = 0; e < c; ++e) n += s[e] != d[e];
      return Status::OK();
    }));
    DG_RETURN_IF_ERROR(w.Open(dir, n));
    DG_RETURN_IF_ERROR(in.ForEachChunk(kChunk, [&](const int64_t* s, const int64_t* d, int64_t c, int64_t) {
      for (int64_t e = 0; e < c; ++e)
        if (s[e] != d[e]) DG_RETURN_IF_ERROR(w.Add(s[e], d[e]));
      return Status::OK();
    }));
  } else {
    ExternalSorter<uint64_t, std::less<uint64_t>> sorter(dir, "normalize", spill.sort_bytes / (2 * sizeof(uint64_t)),  // + radix scratch
                                                         
                                                          spill.merge_bytes);
    DG_RETURN_IF_ERROR(in.ForEachChunk(kChunk, [&](const int64_t* s, const int64_t* d, int64_t c, int64_t) {
      for (int64_t e = 0; e < c; ++e) {
        if (s[e] < 0 || d[e] < 0 || s[e] >= (int64_t{1} << 32) || d[e] >= (int64_t{1} << 32))
          return Status::Unsupported("out-of-core normalization needs node ids < 2^32, got " +
                                     std::to_string(std::max(s[e], d[e])));
        if (opts.drop_self_loops && s[e] == d[e]) continue;
        const uint64_t u = static_cast<uint64_t>(s[e]), v = static_cast<uint64_t>(d[e]);
        DG_RETURN_IF_ERROR(sorter.Add((u << 32) | v));
        if (opts.undirected) DG_RETURN_IF_ERROR(sorter.Add((v << 32) | u));
      }
      return Status::OK();
    }));
    DG_RETURN_IF_ERROR(sorter.Finish());
    *runs = sorter.runs();
    int64_t n = 0;
    bool first = true;
    uint64_t prev = 0;
    DG_RETURN_IF_ERROR(sorter.Merge([&](uint64_t k) {
      if (first || k != prev) ++n;
      first = false;
      prev = k;
      return Status::OK();
    }));
    DG_RETURN_IF_ERROR(w.Open(dir, n));
    first = true;
    DG_RETURN_IF_ERROR(sorter.Merge([&](uint64_t k) {
      if (!first && k == prev) return Status::OK();
      first = false;
      prev = k;
      return w.Add(static_cast<int64_t>(k >> 32), static_cast<int64_t>(k & 0xffffffffull));
    }));
  }
  DG_RETURN_IF_ERROR(w.Finish());
  return EdgeSource::Map(dir + "/normalized-src.npy", dir + "/normalized-dst.npy");
}

}  // namespace dg
