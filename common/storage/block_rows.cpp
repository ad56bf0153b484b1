#include "common/storage/block_rows.h"

#include <cstring>

namespace dg {
namespace {

// Rows of a feature table are read in random order and miss the cache: each
// loop asks for the lines of the row kRowsAhead rows on before it reads the
// current one, so the memory reads overlap (2-3x on a table larger than the cache).
constexpr int64_t kRowsAhead = 8;

inline void PrefetchRow(const float* row, int64_t elems) {
  const char* p = reinterpret_cast<const char*>(row);
  for (int64_t b = 0; b < elems * 4; b += 64) __builtin_prefetch(p + b);
}

// acc[0..n) += row[0..n), in blocks of 8 that -O2's vectorizer turns into SIMD
// adds (it leaves a loop of unknown length scalar). Same order, same result.
inline void AddRowInto(float* __restrict acc, const float* __restrict row, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[j + k] += row[j + k];
  for (; j < n; ++j) acc[j] += row[j];
}

}  // namespace

void SumRows(const float* table, int64_t elems, const int32_t* counts, int64_t m, const int32_t* src, int64_t e,
             const int64_t* pos, float* sums) {
  int64_t at = 0, out = 0;
  for (int64_t i = 0; i < m; ++i) {
    const int32_t c = counts[i];
    if (c == 0) continue;
    float* acc = sums + (pos ? pos[i] : out) * elems;
    for (int32_t t = 0; t < c; ++t) {
      if (at + t + kRowsAhead < e) PrefetchRow(table + static_cast<int64_t>(src[at + t + kRowsAhead]) * elems, elems);
      AddRowInto(acc, table + static_cast<int64_t>(src[at + t]) * elems, elems);
    }
    at += c;
    ++out;
  }
}

void CopyRows(const float* table, int64_t elems, const int32_t* rows, int64_t r, const int64_t* pos, float* out) {
  for (int64_t i = 0; i < r; ++i) {
    if (i + kRowsAhead < r) PrefetchRow(table + static_cast<int64_t>(rows[i + kRowsAhead]) * elems, elems);
    std::memcpy(out + (pos ? pos[i] : i) * elems, table + static_cast<int64_t>(rows[i]) * elems,
                static_cast<size_t>(elems) * 4);
  }
}

// The feature array of `name`: float32 [owned, F] partition node data.
Result<const Array*> BlockFeatureTable(const PartitionStore& store, const std::string& name) {
  const std::string what = "PULL_BLOCK '" + name + "'";
  const auto& data = store.partition().node_data;
  auto it = data.find(name);
  if (it == data.end()) {
    if (store.Meta(TensorKind::kNode, name).ok())
      return Status::InvalidArgument(what + ": reads partition node data only, not a mutable tensor");
    return Status::NotFound(what + ": no node array of that name in partition " + std::to_string(store.part_id()));
  }
  const Array& a = it->second;
  if (a.dtype != DType::kFloat32 || a.shape.size() != 2)
    return Status::InvalidArgument(what + ": needs a float32 [N, F] node array, this one is " + DTypeName(a.dtype) +
                                   " " + a.ShapeString());
  return &a;
}

Status CheckOffsets(const std::string& what, const char* field, const int32_t* v, int64_t n, int64_t owned) {
  for (int64_t i = 0; i < n; ++i)
    if (v[i] < 0 || v[i] >= owned)
      return Status::InvalidArgument(what + ": " + field + " offset " + std::to_string(v[i]) + " (at position " +
                                     std::to_string(i) + ") is not in [0, " + std::to_string(owned) +
                                     "), the rows of this partition");
  return Status::OK();
}

// Counts >= 0 summing to e; returns k, the destinations with count > 0.
Result<int64_t> CheckCounts(const std::string& what, const int32_t* counts, int64_t m, int64_t e) {
  int64_t total = 0, k = 0;
  for (int64_t i = 0; i < m; ++i) {
    if (counts[i] < 0)
      return Status::InvalidArgument(what + ": count " + std::to_string(counts[i]) + " (at position " +
                                     std::to_string(i) + ") is negative");
    total += counts[i];
    k += counts[i] > 0;
  }
  if (total != e)
    return Status::InvalidArgument(what + ": the counts add up to " + std::to_string(total) + " but " +
                                   std::to_string(e) + " sources were sent");
  return k;
}

Status AddPullBlock(const PartitionStore& store, const std::string& name, const int32_t* rows, int64_t r,
                    const int64_t* own_pos, const int32_t* counts, int64_t m, const int32_t* src, int64_t e,
                    float* own_out, float* sums_out, const int64_t* sums_pos) {
  const std::string what = "PULL_BLOCK '" + name + "'";
  DG_ASSIGN_OR_RETURN(const Array* table, BlockFeatureTable(store, name));
  const int64_t owned = table->shape[0];  // a node's row; of its type's array on a typed partition
  DG_RETURN_IF_ERROR(CheckOffsets(what, "rows", rows, r, owned));
  DG_RETURN_IF_ERROR(CheckOffsets(what, "src", src, e, owned));
  DG_RETURN_IF_ERROR(CheckCounts(what, counts, m, e).status());
  const int64_t elems = table->shape[1];
  CopyRows(table->as<float>(), elems, rows, r, own_pos, own_out);
  SumRows(table->as<float>(), elems, counts, m, src, e, sums_pos, sums_out);
  return Status::OK();
}

}  // namespace dg
