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
    std::vector<std::unique_ptr<IdStream>> dst_w(K), ptr_w(K), src_w(K);
    std::vector<int64_t> run(K, 0);
    for (int q = q0; q < q1; ++q) {
      const std::string dir = root + "/" + cfg.parts[q].dir;
      dst_w[q] = std::make_unique<IdStream>();
      ptr_w[q] = std::make_unique<IdStream>();
      src_w[q] = std::make_unique<IdStream>();
      DG_RETURN_IF_ERROR(dst_w[q]->Open(dir + "/agg_dst.npy", dsts[q]));
      DG_RETURN_IF_ERROR(ptr_w[q]->Open(dir + "/agg_indptr.npy", dsts[q] + 1));
      DG_RETURN_IF_ERROR(src_w[q]->Open(dir + "/agg_src.npy", edges[q]));
      DG_RETURN_IF_ERROR(ptr_w[q]->Put(0));
      last[q] = -1;
    }
    // A destination's run in part q ends when the next edge of q has another
    // destination, or at the end.
    DG_RETURN_IF_ERROR(ForEachEdge(root, cfg, [&](int64_t dst, int64_t src) -> Status {
      const int q = book.Owner(src);
      if (q < q0 || q >= q1) return Status::OK();
      if (last[q] != dst) {
        if (last[q] >= 0) DG_RETURN_IF_ERROR(ptr_w[q]->Put(run[q]));
        last[q] = dst;
        DG_RETURN_IF_ERROR(dst_w[q]->Put(dst));
      }
      ++run[q];
      return src_w[q]->Put(src - cfg.node_map[q]);
    }));
    for (int q = q0; q < q1; ++q) {
      if (last[q] >= 0) DG_RETURN_IF_ERROR(ptr_w[q]->Put(run[q]));
      DG_RETURN_IF_ERROR(dst_w[q]->Finish());
      DG_RETURN_IF_ERROR(ptr_w[q]->Finish());
      DG_RETURN_IF_ERROR(src_w[q]->Finish());
    }
  }
  return Status::OK();
}

}  // namespace dg
