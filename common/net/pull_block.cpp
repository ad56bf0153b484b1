#include "common/net/pull_block.h"

#include <climits>
#include <cstring>
#include <memory>

#include "common/net/messages.h"

namespace dg {
namespace {

Array Int32Ref(const std::vector<int32_t>& v, const std::shared_ptr<const PullBlockIds>& holder) {
  Array a;
  a.dtype = DType::kInt32;
  a.shape = {static_cast<int64_t>(v.size())};
  a.data = const_cast<int32_t*>(v.data());
  a.holder = std::const_pointer_cast<PullBlockIds>(holder);
  return a;
}

Status CheckInt32Vector(const char* field, const Array& a) {
  if (a.dtype != DType::kInt32 || a.shape.size() != 1)
    return Status::InvalidArgument(std::string("PULL_BLOCK: ") + field + " must be an int32 [n] array, got " +
                                   DTypeName(a.dtype) + " " + a.ShapeString());
  return Status::OK();
}

// The feature array of `name`: float32 [owned, F] partition node data.
Result<const Array*> BlockTensor(const PartitionStore& store, const std::string& name) {
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

// Destination i's sources added to sums row (pos ? pos[i] : the how-many-th
// destination with a source it is), in src order; src has e = sum(counts) entries.
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

// Row i of `rows` to out row (pos ? pos[i] : i).
void CopyRows(const float* table, int64_t elems, const int32_t* rows, int64_t r, const int64_t* pos, float* out) {
  for (int64_t i = 0; i < r; ++i) {
    if (i + kRowsAhead < r) PrefetchRow(table + static_cast<int64_t>(rows[i + kRowsAhead]) * elems, elems);
    std::memcpy(out + (pos ? pos[i] : i) * elems, table + static_cast<int64_t>(rows[i]) * elems,
                static_cast<size_t>(elems) * 4);
  }
}

}  // namespace

void EncodePullBlock(Encoder* e, const std::string& name, WireDType wire, std::shared_ptr<const PullBlockIds> ids) {
  e->String(name);
  e->U8(static_cast<uint8_t>(wire));
  e->ArrayRef(Int32Ref(ids->rows, ids));
  e->ArrayRef(Int32Ref(ids->counts, ids));
  e->ArrayRef(Int32Ref(ids->src, ids));
}

Result<PullBlockRequest> DecodePullBlock(const Frame& f) {
  PullBlockRequest r;
  Decoder d = f.decoder("PULL_BLOCK");
  r.name = d.String();
  const uint8_t code = d.U8();
  r.rows = d.ArrayView();
  r.counts = d.ArrayView();
  r.src = d.ArrayView();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckTensorName("PULL_BLOCK", r.name));
  auto wire = WireDTypeFromCode(code);
  if (!wire.ok()) return Status::InvalidArgument("PULL_BLOCK: " + wire.status().message());
  r.wire = *wire;
  DG_RETURN_IF_ERROR(CheckInt32Vector("rows", r.rows));
  DG_RETURN_IF_ERROR(CheckInt32Vector("counts", r.counts));
  DG_RETURN_IF_ERROR(CheckInt32Vector("src", r.src));
  return r;
}

Status AddPullBlock(const PartitionStore& store, const std::string& name, const int32_t* rows, int64_t r,
                    const int64_t* own_pos, const int32_t* counts, int64_t m, const int32_t* src, int64_t e,
                    float* own_out, float* sums_out, const int64_t* sums_pos) {
  const std::string what = "PULL_BLOCK '" + name + "'";
  DG_ASSIGN_OR_RETURN(const Array* table, BlockTensor(store, name));
  const int64_t owned = table->shape[0];  // a node's row; of its type's array on a typed partition
  DG_RETURN_IF_ERROR(CheckOffsets(what, "rows", rows, r, owned));
  DG_RETURN_IF_ERROR(CheckOffsets(what, "src", src, e, owned));
  DG_RETURN_IF_ERROR(CheckCounts(what, counts, m, e).status());
  const int64_t elems = table->shape[1];
  CopyRows(table->as<float>(), elems, rows, r, own_pos, own_out);
  SumRows(table->as<float>(), elems, counts, m, src, e, sums_pos, sums_out);
  return Status::OK();
}

Result<BufferList> ServePullBlock(const PartitionStore& store, const PullBlockRequest& req,
                                  const PullBlockLimits& limits) {
  const std::string what = "PULL_BLOCK '" + req.name + "'";
  DG_ASSIGN_OR_RETURN(const Array* table, BlockTensor(store, req.name));
  const int64_t r = req.rows.numel(), m = req.counts.numel(), e = req.src.numel();
  if (e > limits.max_edges)
    return Status::ResourceExhausted(what + ": " + std::to_string(e) + " sources are more than " +
                                     std::to_string(limits.max_edges) +
                                     " (limits.max_aggregate_edges); send fewer destinations per request");
  const int32_t* rows = req.rows.as<int32_t>();
  const int32_t* counts = req.counts.as<int32_t>();
  const int32_t* src = req.src.as<int32_t>();
  const int64_t owned = table->shape[0];  // a node's row; of its type's array on a typed partition
  DG_RETURN_IF_ERROR(CheckOffsets(what, "rows", rows, r, owned));
  DG_RETURN_IF_ERROR(CheckOffsets(what, "src", src, e, owned));
  DG_ASSIGN_OR_RETURN(int64_t k, CheckCounts(what, counts, m, e));
  const int64_t elems = table->shape[1];
  // Both wire-row sets plus their heads; int128 so hostile counts cannot overflow.
  const unsigned __int128 answer =
      (unsigned __int128)(r + k) * (unsigned __int128)elems * WireDTypeSize(req.wire) + 256;
  if (answer > (unsigned __int128)limits.max_answer_bytes)
    return Status::ResourceExhausted(what + ": " + std::to_string(r) + " rows and " + std::to_string(k) +
                                     " sums would be over the frame limit of " +
                                     std::to_string(limits.max_answer_bytes) + " bytes; send fewer per request");
  DG_ASSIGN_OR_RETURN(Array own, Array::TryUninitialized(DType::kFloat32, {r, elems}, what));  // every row written
  DG_ASSIGN_OR_RETURN(Array sums, Array::TryZeros(DType::kFloat32, {k, elems}, what));
  CopyRows(table->as<float>(), elems, rows, r, nullptr, own.as<float>());
  SumRows(table->as<float>(), elems, counts, m, src, e, nullptr, sums.as<float>());
  Encoder enc;
  EncodeWireRows(&enc, req.wire, own.as<float>(), r, elems, own.holder);
  EncodeWireRows(&enc, req.wire, sums.as<float>(), k, elems, sums.holder);
  return enc.Finish();
}

void EncodeSampleBlock(Encoder* e, const std::string& name, WireDType wire, int64_t fanout, bool replace,
                       uint64_t seed, std::shared_ptr<const PullBlockIds> ids) {
  e->String(name);
  e->U8(static_cast<uint8_t>(wire));
  e->I64(fanout);
  e->Bool(replace);
  e->U64(seed);
  e->ArrayRef(Int32Ref(ids->rows, ids));
  e->ArrayRef(Int32Ref(ids->skip, ids));
}

Result<SampleBlockRequest> DecodeSampleBlock(const Frame& f) {
  SampleBlockRequest r;
  Decoder d = f.decoder("SAMPLE_BLOCK");
  r.name = d.String();
  const uint8_t code = d.U8();
  r.fanout = d.I64();
  r.replace = d.Bool();
  r.seed = d.U64();
  r.dst = d.ArrayView();
  r.skip = d.ArrayView();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckTensorName("SAMPLE_BLOCK", r.name));
  auto wire = WireDTypeFromCode(code);
  if (!wire.ok()) return Status::InvalidArgument("SAMPLE_BLOCK: " + wire.status().message());
  r.wire = *wire;
  if (r.dst.dtype != DType::kInt32 || r.dst.shape.size() != 1)
    return Status::InvalidArgument(std::string("SAMPLE_BLOCK: dst must be an int32 [n] array, got ") +
                                   DTypeName(r.dst.dtype) + " " + r.dst.ShapeString());
  if (r.skip.dtype != DType::kInt32 || r.skip.shape.size() != 1)
    return Status::InvalidArgument(std::string("SAMPLE_BLOCK: skip must be an int32 [s] array, got ") +
                                   DTypeName(r.skip.dtype) + " " + r.skip.ShapeString());
  return r;
}

Result<BufferList> ServeSampleBlock(const PartitionStore& store, const SampleBlockRequest& req,
                                   const SampleBlockLimits& limits) {
  const std::string what = "SAMPLE_BLOCK '" + req.name + "'";
  DG_ASSIGN_OR_RETURN(const Array* table, BlockTensor(store, req.name));
  const int64_t m = req.dst.numel(), owned = store.partition().num_owned(), base = store.node_begin();
  const int32_t* dst = req.dst.as<int32_t>();
  if (table->shape[0] != owned)  // sampled by node offsets: a row per node
    return Status::InvalidArgument(what + ": needs a row per node of partition " + std::to_string(store.part_id()) +
                                   ", the array has " + std::to_string(table->shape[0]));
  DG_RETURN_IF_ERROR(CheckOffsets(what, "dst", dst, m, owned));
  const int64_t s = req.skip.numel();
  const int32_t* skip = req.skip.as<int32_t>();
  for (int64_t i = 0; i < s; ++i)
    if (skip[i] < 0 || skip[i] >= m || (i > 0 && skip[i] <= skip[i - 1]))
      return Status::InvalidArgument(what + ": skip[" + std::to_string(i) + "] = " + std::to_string(skip[i]) +
                                     " is not a position in dst (0.." + std::to_string(m - 1) +
                                     ") above the one before");
  if (req.replace && req.fanout > limits.max_fanout)
    return Status::ResourceExhausted(what + ": fanout " + std::to_string(req.fanout) +
                                     " with replacement is over this server's limit of " +
                                     std::to_string(limits.max_fanout) + " (limits.max_fanout)");
  std::vector<int64_t> ids(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) ids[i] = base + dst[i];
  DG_ASSIGN_OR_RETURN(int64_t bound, store.SampleBound(ids.data(), ids.size(), req.fanout, req.replace));
  const int64_t elems = table->shape[1];
  const bool wide = limits.num_nodes > INT32_MAX;
  // Own rows and at most one sum per destination, plus the ids of every edge at worst.
  const unsigned __int128 answer = (unsigned __int128)(2 * m) * (unsigned __int128)elems * WireDTypeSize(req.wire) +
                                   (unsigned __int128)bound * (wide ? 8 : 4) + 8 * m + 512;
  if (answer > (unsigned __int128)limits.max_answer_bytes)
    return Status::ResourceExhausted(what + ": " + std::to_string(m) + " destinations and up to " +
                                     std::to_string(bound) + " sampled edges would be over the frame limit of " +
                                     std::to_string(limits.max_answer_bytes) + " bytes; send fewer per request");
  SampleResult sampled;
  DG_RETURN_IF_ERROR(store.Sample(ids.data(), ids.size(), req.fanout, req.replace, req.seed, "", &sampled, false));
  // Split each destination's sources: offsets of owned ones (summed here), ids of the others.
  Array own_counts = Array::Zeros(DType::kInt32, {m}), remote_counts = Array::Zeros(DType::kInt32, {m});
  int32_t* oc = own_counts.as<int32_t>();
  int32_t* rc = remote_counts.as<int32_t>();
  std::vector<int32_t> local_src;
  std::vector<int64_t> remote;
  local_src.reserve(sampled.src.size());
  int64_t at = 0, k = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t t = 0; t < sampled.counts[i]; ++t) {
      const int64_t s = sampled.src[at + t];
      if (s >= base && s < base + owned) {
        local_src.push_back(static_cast<int32_t>(s - base));
        ++oc[i];
      } else {
        remote.push_back(s);
        ++rc[i];
      }
    }
    at += sampled.counts[i];
    k += oc[i] > 0;
  }
  std::vector<int32_t> sent_rows;  // dst without the skipped positions
  sent_rows.reserve(static_cast<size_t>(m - s));
  for (int64_t i = 0, j = 0; i < m; ++i) {
    if (j < s && skip[j] == i) {
      ++j;
      continue;
    }
    sent_rows.push_back(dst[i]);
  }
  const int64_t n_own = m - s;
  DG_ASSIGN_OR_RETURN(Array own, Array::TryUninitialized(DType::kFloat32, {n_own, elems}, what));  // every row written
  DG_ASSIGN_OR_RETURN(Array sums, Array::TryZeros(DType::kFloat32, {k, elems}, what));
  CopyRows(table->as<float>(), elems, sent_rows.data(), n_own, nullptr, own.as<float>());
  SumRows(table->as<float>(), elems, oc, m, local_src.data(), static_cast<int64_t>(local_src.size()), nullptr,
          sums.as<float>());
  const int64_t r = static_cast<int64_t>(remote.size());
  Array remote_src = Array::Zeros(wide ? DType::kInt64 : DType::kInt32, {r});
  if (wide) std::memcpy(remote_src.data, remote.data(), static_cast<size_t>(r) * 8);
  else
    for (int64_t i = 0; i < r; ++i) remote_src.as<int32_t>()[i] = static_cast<int32_t>(remote[i]);
  Encoder enc;
  EncodeWireRows(&enc, req.wire, own.as<float>(), n_own, elems, own.holder);
  enc.ArrayRef(own_counts);
  EncodeWireRows(&enc, req.wire, sums.as<float>(), k, elems, sums.holder);
  enc.ArrayRef(remote_counts);
  enc.ArrayRef(remote_src);
  return enc.Finish();
}

}  // namespace dg
