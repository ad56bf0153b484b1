#include "common/storage/aggregate_index.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "common/io/npy.h"

namespace dg {

namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

template <typename T>
void AddRows(T* acc, const uint8_t* rows, int64_t count, int64_t elems) {
  const T* r = reinterpret_cast<const T*>(rows);
  for (int64_t i = 0; i < count; ++i, r += elems)
    for (int64_t j = 0; j < elems; ++j) acc[j] += r[j];
}

}  // namespace

Result<AggregateIndex> AggregateIndex::Open(const std::string& dir, int64_t num_nodes, int64_t owned) {
  AggregateIndex idx;
  const std::string fd = dir + "/agg_dst.npy", fi = dir + "/agg_indptr.npy", fs = dir + "/agg_src.npy";
  const int present = int(Exists(fd)) + int(Exists(fi)) + int(Exists(fs));
  if (present == 0) return idx;
  if (present != 3)
    return Status::Corruption(dir + ": the aggregation index needs agg_dst.npy, agg_indptr.npy and agg_src.npy; " +
                              std::to_string(present) + " of them exist");
  DG_ASSIGN_OR_RETURN(idx.dst_, NpyMap(fd));
  DG_ASSIGN_OR_RETURN(idx.indptr_, NpyMap(fi));
  DG_ASSIGN_OR_RETURN(idx.src_, NpyMap(fs));
  for (auto [f, a] : {std::pair<const std::string*, const Array*>{&fd, &idx.dst_}, {&fi, &idx.indptr_},
                      {&fs, &idx.src_}}) {
    if (a->dtype != DType::kInt64 || a->shape.size() != 1)
      return Status::Corruption(*f + ": expected int64 [n], got " + DTypeName(a->dtype) + " " + a->ShapeString());
  }
  const int64_t m = idx.dst_.rows(), k = idx.src_.rows();
  if (idx.indptr_.rows() != m + 1)
    return Status::Corruption(fi + ": " + std::to_string(idx.indptr_.rows()) + " entries, expected " +
                              std::to_string(m + 1) + " (agg_dst.npy has " + std::to_string(m) + ")");
  const int64_t* d = idx.dst_.as<int64_t>();
  for (int64_t i = 0; i < m; ++i)
    if (d[i] < 0 || d[i] >= num_nodes || (i > 0 && d[i] <= d[i - 1]))
      return Status::Corruption(fd + ": entry " + std::to_string(i) + " (" + std::to_string(d[i]) +
                                ") is not increasing within [0, " + std::to_string(num_nodes) + ")");
  const int64_t* ip = idx.indptr_.as<int64_t>();
  if (ip[0] != 0 || ip[m] != k)
    return Status::Corruption(fi + ": must start at 0 and end at " + std::to_string(k));
  for (int64_t i = 0; i < m; ++i)
    if (ip[i + 1] <= ip[i])
      return Status::Corruption(fi + ": entry " + std::to_string(i + 1) + " is not above the one before");
  const int64_t* s = idx.src_.as<int64_t>();
  for (int64_t i = 0; i < k; ++i)
    if (s[i] < 0 || s[i] >= owned)
      return Status::Corruption(fs + ": entry " + std::to_string(i) + " (" + std::to_string(s[i]) +
                                ") is not a local row in [0, " + std::to_string(owned) + ")");
  idx.present_ = true;
  return idx;
}

void AggregateIndex::Range(int64_t gid, int64_t* begin, int64_t* end) const {
  *begin = *end = 0;
  if (!present_) return;
  const int64_t* d = dst_.as<int64_t>();
  const int64_t m = dst_.rows();
  const int64_t* it = std::lower_bound(d, d + m, gid);
  if (it == d + m || *it != gid) return;
  const int64_t i = it - d;
  *begin = indptr_.as<int64_t>()[i];
  *end = indptr_.as<int64_t>()[i + 1];
}

Status AggregateSums(const PartitionStore& store, const AggregateIndex& index, const std::string& name,
                     const int64_t* ids, size_t n, int64_t num_nodes, const AggregateLimits& limits,
                     std::vector<int64_t>* counts, Array* sums) {
  const std::string what = "PULL_AGGREGATE '" + name + "'";
  if (!index.present()) {
    return Status::Unsupported(what + ": partition " + std::to_string(store.part_id()) +
                               " has no aggregation index (agg_dst.npy, agg_indptr.npy, agg_src.npy); "
                               "re-run `distgnn partition` with this version to write it");
  }
  DG_ASSIGN_OR_RETURN(TensorMeta meta, store.Meta(TensorKind::kNode, name));
  if (meta.dtype != DType::kFloat32 && meta.dtype != DType::kFloat64)
    return Status::InvalidArgument(what + ": aggregation needs a float32 or float64 tensor, this one is " +
                                   DTypeName(meta.dtype));
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= num_nodes)
      return Status::InvalidArgument(what + ": node id " + std::to_string(ids[i]) + " (at position " +
                                     std::to_string(i) + ") is not in [0, " + std::to_string(num_nodes) + ")");
  // Work and answer size before anything is allocated.
  std::vector<int64_t> begin(n), end(n);
  int64_t work = 0;
  for (size_t i = 0; i < n; ++i) {
    index.Range(ids[i], &begin[i], &end[i]);
    work += end[i] - begin[i];
    if (work > limits.max_edges)
      return Status::ResourceExhausted(what + ": the " + std::to_string(n) + " ids have more than " +
                                       std::to_string(limits.max_edges) +
                                       " in-edges here (limits.max_aggregate_edges); ask for fewer ids per request");
  }
  std::vector<int64_t> shape = meta.shape;
  shape[0] = static_cast<int64_t>(n);
  const int64_t bytes = CheckedByteSize(meta.dtype, shape);
  if (bytes < 0 || bytes + 8 * static_cast<int64_t>(n) + 128 > limits.max_answer_bytes)
    return Status::ResourceExhausted(what + " of " + std::to_string(n) + " ids: the answer would be over the frame limit of " +
                                     std::to_string(limits.max_answer_bytes) + " bytes; ask for fewer ids per request");
  DG_ASSIGN_OR_RETURN(*sums, Array::TryZeros(meta.dtype, shape, what));
  counts->assign(n, 0);
  const int64_t elems = sums->row_elems();
  const size_t rb = sums->row_bytes();
  const int64_t base = store.node_begin();
  const int64_t* src = index.src();
  // Gather the source rows of a run of ids at once (one lock of a mutable
  // tensor per chunk), then add them up per id.
  constexpr int64_t kChunkEdges = 16384;
  std::vector<int64_t> gids;
  std::vector<uint8_t> rows;
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    gids.clear();
    while (j < n && (j == i || static_cast<int64_t>(gids.size()) + end[j] - begin[j] <= kChunkEdges)) {
      for (int64_t e = begin[j]; e < end[j]; ++e) gids.push_back(base + src[e]);
      ++j;
    }
    rows.resize(gids.size() * rb);
    if (!gids.empty())
      DG_RETURN_IF_ERROR(store.GatherRows(TensorKind::kNode, name, gids.data(), gids.size(), rows.data(), nullptr));
    size_t at = 0;
    for (size_t t = i; t < j; ++t) {
      const int64_t c = end[t] - begin[t];
      (*counts)[t] = c;
      uint8_t* acc = static_cast<uint8_t*>(sums->data) + t * rb;
      if (meta.dtype == DType::kFloat32) AddRows(reinterpret_cast<float*>(acc), rows.data() + at * rb, c, elems);
      else AddRows(reinterpret_cast<double*>(acc), rows.data() + at * rb, c, elems);
      at += c;
    }
    i = j;
  }
  return Status::OK();
}

}  // namespace dg
