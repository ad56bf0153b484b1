#include "roles/partition/source_index.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "common/io/npy.h"

namespace dg {

namespace {

// An int64 .npy written through a buffer.
class IdStream {
 public:
  Status Open(const std::string& path, int64_t n) { return w_.Open(path, DType::kInt64, {n}); }
  Status Put(int64_t v) {
    buf_.push_back(v);
    if (buf_.size() < (1u << 15)) return Status::OK();
    return Flush();
  }
  Status Finish() {
    DG_RETURN_IF_ERROR(Flush());
    return w_.Finish();
  }

 private:
  Status Flush() {
    Status st = w_.Append(buf_.data(), buf_.size() * sizeof(int64_t));
    buf_.clear();
    return st;
  }
  NpyWriter w_;
  std::vector<int64_t> buf_;
};

// Calls fn(dst_gid, src_gid) for every edge of every part, parts in order,
// destinations in order within a part.
template <typename Fn>
Status ForEachEdge(const std::string& root, const PartitionConfig& cfg, Fn fn) {
  for (int p = 0; p < cfg.num_parts; ++p) {
    const std::string dir = root + "/" + cfg.parts[p].dir;
    DG_ASSIGN_OR_RETURN(Array indptr, NpyMap(dir + "/indptr.npy"));
    DG_ASSIGN_OR_RETURN(Array indices, NpyMap(dir + "/indices.npy"));
    const int64_t n = cfg.node_map[p + 1] - cfg.node_map[p];
    if (indptr.dtype != DType::kInt64 || indptr.rows() != n + 1 || indices.dtype != DType::kInt64)
      return Status::Corruption(dir + ": in-edge CSR does not match the partition config");
    const int64_t* ip = indptr.as<int64_t>();
    const int64_t* ix = indices.as<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t dst = cfg.node_map[p] + i;
      for (int64_t e = ip[i]; e < ip[i + 1]; ++e) DG_RETURN_IF_ERROR(fn(dst, ix[e]));
    }
  }
  return Status::OK();
}

}  // namespace

struct AggregateIndexWriter::Streams {
  IdStream dst, ptr, src;
};

AggregateIndexWriter::AggregateIndexWriter() : s_(std::make_unique<Streams>()) {}
AggregateIndexWriter::~AggregateIndexWriter() = default;

Status AggregateIndexWriter::Open(const std::string& dir, int64_t num_dsts, int64_t num_edges) {
  DG_RETURN_IF_ERROR(s_->dst.Open(dir + "/agg_dst.npy", num_dsts));
  DG_RETURN_IF_ERROR(s_->ptr.Open(dir + "/agg_indptr.npy", num_dsts + 1));
  DG_RETURN_IF_ERROR(s_->src.Open(dir + "/agg_src.npy", num_edges));
  last_ = -1;
  run_ = 0;
  return s_->ptr.Put(0);
}

// A destination's run ends when the next edge has another destination, or at the end.
Status AggregateIndexWriter::Add(int64_t dst, int64_t local_src) {
  if (last_ != dst) {
    if (last_ >= 0) DG_RETURN_IF_ERROR(s_->ptr.Put(run_));
    last_ = dst;
    DG_RETURN_IF_ERROR(s_->dst.Put(dst));
  }
  ++run_;
  return s_->src.Put(local_src);
}

Status AggregateIndexWriter::Finish() {
  if (last_ >= 0) DG_RETURN_IF_ERROR(s_->ptr.Put(run_));
  DG_RETURN_IF_ERROR(s_->dst.Finish());
  DG_RETURN_IF_ERROR(s_->ptr.Finish());
  return s_->src.Finish();
}

Status WriteAggregateIndex(const std::string& root, const PartitionConfig& cfg) {
  const int K = cfg.num_parts;
  PartitionBook book(cfg.node_map);
  auto owner = [&](int64_t gid) -> Result<int> {
    if (gid < 0 || gid >= cfg.num_nodes)
      return Status::Corruption("aggregation index: source id " + std::to_string(gid) + " out of range");
    return book.Owner(gid);
  };
  // Pass 1: per part, edges and distinct destinations.
  std::vector<int64_t> edges(K, 0), dsts(K, 0), last(K, -1);
  DG_RETURN_IF_ERROR(ForEachEdge(root, cfg, [&](int64_t dst, int64_t src) -> Status {
    DG_ASSIGN_OR_RETURN(int q, owner(src));
    ++edges[q];
    if (last[q] != dst) {
      last[q] = dst;
      ++dsts[q];
    }
    return Status::OK();
  }));
  // Pass 2: stream the three arrays of every part, at most kOpenParts parts
  // (3 files each) per pass over the edges, to stay far below open-file limits.
  constexpr int kOpenParts = 128;
  for (int q0 = 0; q0 < K; q0 += kOpenParts) {
    const int q1 = std::min(K, q0 + kOpenParts);
    std::vector<std::unique_ptr<AggregateIndexWriter>> w(K);
    for (int q = q0; q < q1; ++q) {
      w[q] = std::make_unique<AggregateIndexWriter>();
      DG_RETURN_IF_ERROR(w[q]->Open(root + "/" + cfg.parts[q].dir, dsts[q], edges[q]));
    }
    DG_RETURN_IF_ERROR(ForEachEdge(root, cfg, [&](int64_t dst, int64_t src) -> Status {
      const int q = book.Owner(src);
      if (q < q0 || q >= q1) return Status::OK();
      return w[q]->Add(dst, src - cfg.node_map[q]);
    }));
    for (int q = q0; q < q1; ++q) DG_RETURN_IF_ERROR(w[q]->Finish());
  }
  return Status::OK();
}

}  // namespace dg
