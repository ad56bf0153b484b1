// Sorting more fixed-size records than fit in memory: sorted runs spilled to a
// temp directory, then a k-way merge.
//
// Add() buffers records; when the buffer holds `buffer_records` it is sorted
// (SortRun: std::sort with Less unless the record type brings its own, so Less
// must be a total order for a deterministic result) and written as one run file under tmp_dir. Merge() calls fn(rec) for
// every record in Less order (ties between runs: the earlier run first); it
// can be called more than once (runs stay on disk until destruction). If
// nothing was spilled the buffer is sorted and walked in memory: no files.
// Memory: the buffer, plus during a merge one read buffer per run of
// merge_bytes / runs (at least 64 KiB each). Rec must be trivially copyable.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <queue>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

#include "common/base/radix_sort.h"
#include "common/base/status.h"

namespace dg {

// The default sort of a run; a record type may overload SortRun in its own
// namespace (same result: Less order) with something faster.
template <typename Rec, typename Less>
void SortRun(std::vector<Rec>* v, const Less& less) {
  std::sort(v->begin(), v->end(), less);
}

template <typename Rec, typename Less>
class ExternalSorter {
  static_assert(std::is_trivially_copyable_v<Rec>, "records are written as bytes");

 public:
  // buffer_records >= 1; tmp_dir must exist. `name` prefixes run files.
  ExternalSorter(std::string tmp_dir, std::string name, size_t buffer_records, size_t merge_bytes, Less less = Less())
      : dir_(std::move(tmp_dir)), name_(std::move(name)), cap_(std::max<size_t>(1, buffer_records)),
        merge_bytes_(merge_bytes), less_(less) {}
  ~ExternalSorter() {
    for (const std::string& p : runs_) ::unlink(p.c_str());
  }
  ExternalSorter(const ExternalSorter&) = delete;
  ExternalSorter& operator=(const ExternalSorter&) = delete;

  Status Add(const Rec& r) {
    if (buf_.capacity() < cap_) buf_.reserve(cap_);
    buf_.push_back(r);
    if (buf_.size() >= cap_) return Spill();
    return Status::OK();
  }

  // Ends input: spills the last partial buffer if anything was spilled before.
  Status Finish() {
    if (!runs_.empty() && !buf_.empty()) DG_RETURN_IF_ERROR(Spill());
    if (runs_.empty()) SortBuffer();
    return Status::OK();
  }

  size_t runs() const { return runs_.size(); }
  uint64_t spilled_bytes() const { return spilled_; }

  // fn(const Rec&) -> Status, in sorted order. Call after Finish().
  template <typename Fn>
  Status Merge(Fn fn) const {
    if (runs_.empty()) {
      for (const Rec& r : buf_) DG_RETURN_IF_ERROR(fn(r));
      return Status::OK();
    }
    const size_t per_run = std::max<size_t>(65536 / sizeof(Rec) + 1, merge_bytes_ / runs_.size() / sizeof(Rec));
    if (merge_buf_.size() < per_run * runs_.size()) merge_buf_.resize(per_run * runs_.size());
    std::vector<Reader> readers(runs_.size());
    for (size_t i = 0; i < runs_.size(); ++i) {
      readers[i].f = std::fopen(runs_[i].c_str(), "rb");
      if (!readers[i].f) return Status::FromErrno("open spill run " + runs_[i], errno);
      readers[i].buf = merge_buf_.data() + i * per_run;
      readers[i].cap = per_run;
      readers[i].path = &runs_[i];
    }
    auto greater = [&](size_t a, size_t b) {  // min-heap on (record, run)
      const Rec& ra = readers[a].Head();
      const Rec& rb = readers[b].Head();
      if (less_(ra, rb)) return false;
      if (less_(rb, ra)) return true;
      return a > b;
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
    for (size_t i = 0; i < readers.size(); ++i) {
      DG_ASSIGN_OR_RETURN(bool has, readers[i].Fill());
      if (has) heap.push(i);
    }
    while (!heap.empty()) {
      size_t i = heap.top();
      heap.pop();
      Reader& rd = readers[i];
      DG_RETURN_IF_ERROR(fn(rd.Head()));
      ++rd.pos;
      bool has = rd.pos < rd.n;
      if (!has) {
        DG_ASSIGN_OR_RETURN(has, rd.Fill());
      }
      if (has) heap.push(i);
    }
    return Status::OK();
  }

 private:
  struct Reader {
    std::FILE* f = nullptr;
    Rec* buf = nullptr;  // cap records of merge_buf_
    size_t cap = 0, pos = 0, n = 0;
    const std::string* path = nullptr;
    ~Reader() {
      if (f) std::fclose(f);
    }
    const Rec& Head() const { return buf[pos]; }
    Result<bool> Fill() {
      n = std::fread(buf, sizeof(Rec), cap, f);
      pos = 0;
      if (n == 0 && std::ferror(f)) return Status::FromErrno("read spill run " + *path, errno);
      return n > 0;
    }
  };

  void SortBuffer() {
    if constexpr (std::is_same_v<Rec, uint64_t> && std::is_same_v<Less, std::less<uint64_t>>)
      RadixSortU64(&buf_, 64);  // packed keys: far faster than std::sort
    else
      SortRun(&buf_, less_);    // found by ADL: a record type may bring a faster sort
  }

  Status Spill() {
    SortBuffer();
    std::string path = dir_ + "/" + name_ + "-" + std::to_string(runs_.size()) + ".run";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return Status::FromErrno("create spill run " + path + " (--tmp-dir)", errno);
    runs_.push_back(path);
    size_t w = std::fwrite(buf_.data(), sizeof(Rec), buf_.size(), f);
    int err = errno;
    bool ok = std::fclose(f) == 0 && w == buf_.size();
    if (!ok) return Status::FromErrno("write spill run " + path + " (--tmp-dir full?)", err ? err : EIO);
    spilled_ += buf_.size() * sizeof(Rec);
    buf_.clear();
    return Status::OK();
  }

  std::string dir_, name_;
  size_t cap_, merge_bytes_;
  Less less_;
  std::vector<Rec> buf_;
  // The readers' buffers, kept from one merge to the next: the stream
  // partitioner merges the same runs once a pass, and buffers allocated for
  // each merge would be zeroed and faulted in each time.
  mutable std::vector<Rec> merge_buf_;
  std::vector<std::string> runs_;
  uint64_t spilled_ = 0;
};

}  // namespace dg
