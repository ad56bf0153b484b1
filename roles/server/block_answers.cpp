// PULL_BLOCK and SAMPLE_BLOCK answers (common/net/pull_block.h has the wire):
// every offset, count and limit is checked before any work; the row loops are
// common/storage/block_rows.h's.
#include "roles/server/block_answers.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "common/storage/block_rows.h"

namespace dg {
namespace {

// The feature table's rows by offset from the partition's first node (or its
// type's first node): partition data, so they can go out without a copy.
RowTable TableOf(const Array& table) {
  return RowTable{static_cast<const uint8_t*>(table.data), table.row_bytes(), 0, table.holder};
}

}  // namespace

Result<BufferList> ServePullBlock(const PartitionStore& store, const PullBlockRequest& req,
                                  const PullBlockLimits& limits) {
  const std::string what = "PULL_BLOCK '" + req.name + "'";
  DG_ASSIGN_OR_RETURN(const Array* table, BlockFeatureTable(store, req.name));
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
  DG_ASSIGN_OR_RETURN(Array sums, Array::TryZeros(DType::kFloat32, {k, elems}, what));
  SumRows(table->as<float>(), elems, counts, m, src, e, nullptr, sums.as<float>());
  Encoder enc;
  EncodeTableWireRows(&enc, req.wire, TableOf(*table), elems, rows, r);  // own rows: no gathered copy
  EncodeWireRows(&enc, req.wire, sums.as<float>(), k, elems, sums.holder);
  return enc.Finish();
}

namespace {

// skip and cand: strictly ascending positions in dst.
Status CheckPositions(const std::string& what, const char* field, const int32_t* skip, int64_t s, int64_t m) {
  for (int64_t i = 0; i < s; ++i)
    if (skip[i] < 0 || skip[i] >= m || (i > 0 && skip[i] <= skip[i - 1]))
      return Status::InvalidArgument(what + ": " + field + "[" + std::to_string(i) + "] = " + std::to_string(skip[i]) +
                                     " is not a position in dst (0.." + std::to_string(m - 1) +
                                     ") above the one before");
  return Status::OK();
}

// Each destination's sampled sources split: offsets of the owned ones (summed
// here), global ids of the others (summed where they live).
struct SplitSources {
  Array own_counts, remote_counts;  // int32 [m]
  std::vector<int32_t> local_src;
  std::vector<int64_t> remote;
  int64_t k = 0;  // destinations with an owned source
};

// `sampled` holds the destinations that are not hits, in order; a hit's
// counts are 0.
SplitSources SplitByOwner(const SampleResult& sampled, int64_t m, int64_t base, int64_t owned,
                          const std::vector<char>& hit) {
  SplitSources out;
  out.own_counts = Array::Zeros(DType::kInt32, {m});
  out.remote_counts = Array::Zeros(DType::kInt32, {m});
  int32_t* oc = out.own_counts.as<int32_t>();
  int32_t* rc = out.remote_counts.as<int32_t>();
  out.local_src.reserve(sampled.src.size());
  int64_t at = 0;
  for (int64_t i = 0, row = 0; i < m; ++i) {
    if (hit[i]) continue;
    for (int64_t t = 0; t < sampled.counts[row]; ++t) {
      const int64_t s = sampled.src[at + t];
      if (s >= base && s < base + owned) {
        out.local_src.push_back(static_cast<int32_t>(s - base));
        ++oc[i];
      } else {
        out.remote.push_back(s);
        ++rc[i];
      }
    }
    at += sampled.counts[row++];
    out.k += oc[i] > 0;
  }
  return out;
}

// dst without the skipped positions and the hits.
std::vector<int32_t> SentRows(const int32_t* dst, int64_t m, const int32_t* skip, int64_t s,
                              const std::vector<char>& hit) {
  std::vector<int32_t> rows;
  rows.reserve(static_cast<size_t>(m - s));
  for (int64_t i = 0, j = 0; i < m; ++i) {
    if (j < s && skip[j] == i) {
      ++j;
      continue;
    }
    if (!hit[i]) rows.push_back(dst[i]);
  }
  return rows;
}

// The stored rows that answer for destinations (SAMPLE_BLOCK with a history):
// per position of dst whether it hits, the hits' positions and their rows
// (float32 [h, W], without the step slots).
struct HistoryHits {
  std::vector<char> hit;
  std::vector<int32_t> pos;
  Array rows;
  int64_t bytes = 0;  // of pos and rows
};

// The candidates' stored rows are read once; the hits' rows are moved to the
// front of that copy, without their step slots. Every candidate hitting must
// fit the answer, checked before the read.
Result<HistoryHits> ReadHistory(const PartitionStore& store, const SampleBlockRequest& req, const int64_t* ids,
                                int64_t m, int64_t max_answer_bytes, const std::string& what) {
  HistoryHits h;
  h.hit.assign(static_cast<size_t>(m), 0);
  const SampleBlockHistory& ask = req.history;
  if (ask.name.empty()) return h;
  const int64_t c = req.cand.numel();
  const int32_t* cand = req.cand.as<int32_t>();
  DG_RETURN_IF_ERROR(CheckPositions(what, "cand", cand, c, m));
  DG_ASSIGN_OR_RETURN(TensorMeta meta, store.Meta(TensorKind::kMutableNode, ask.name));
  if (meta.dtype != DType::kFloat32 || meta.shape.size() != 2 || meta.shape[1] < 3)
    return Status::InvalidArgument(what + ": history '" + ask.name +
                                   "' must be a float32 [N, W + 2] mutable tensor (a row, then its step)");
  const int64_t width = meta.shape[1] - 2;
  if ((unsigned __int128)c * (unsigned __int128)(width * 4 + 4) > (unsigned __int128)max_answer_bytes)
    return Status::ResourceExhausted(what + ": the stored rows of " + std::to_string(c) +
                                     " candidates would be over the frame limit of " +
                                     std::to_string(max_answer_bytes) + " bytes; send fewer per request");
  std::vector<int64_t> cand_ids(static_cast<size_t>(c));
  for (int64_t t = 0; t < c; ++t) cand_ids[t] = ids[cand[t]];
  DG_ASSIGN_OR_RETURN(Array stored, store.Pull(TensorKind::kMutableNode, ask.name, cand_ids.data(), cand_ids.size()));
  uint8_t* bytes = static_cast<uint8_t*>(stored.data);
  const size_t row_bytes = stored.row_bytes(), kept_bytes = static_cast<size_t>(width) * sizeof(float);
  int64_t n = 0;
  for (int64_t t = 0; t < c; ++t) {
    if (!StoredRowFresh(StoredRowStep(bytes + t * row_bytes, row_bytes), ask.step, ask.max_age)) continue;
    h.hit[cand[t]] = 1;
    h.pos.push_back(cand[t]);
    std::memmove(bytes + n++ * kept_bytes, bytes + t * row_bytes, kept_bytes);  // n <= t: never ahead of the reads
  }
  stored.shape = {n, width};
  h.rows = std::move(stored);
  h.bytes = n * (width * 4 + 4);
  return h;
}

// int32 ids below 2^31 nodes, else int64.
Array RemoteSrcArray(const std::vector<int64_t>& remote, bool wide) {
  const int64_t r = static_cast<int64_t>(remote.size());
  Array a = Array::Zeros(wide ? DType::kInt64 : DType::kInt32, {r});
  if (wide) {
    std::memcpy(a.data, remote.data(), static_cast<size_t>(r) * 8);
  } else {
    for (int64_t i = 0; i < r; ++i) a.as<int32_t>()[i] = static_cast<int32_t>(remote[i]);
  }
  return a;
}

// The answer's size at worst: own rows and one sum per destination, plus the
// ids of every edge.
Status CheckSampleBlockAnswer(const std::string& what, int64_t m, int64_t elems, int64_t bound, WireDType wire,
                              const SampleBlockLimits& limits, int64_t stored_bytes) {
  const bool wide = limits.num_nodes > INT32_MAX;
  const unsigned __int128 answer = (unsigned __int128)(2 * m) * (unsigned __int128)elems * WireDTypeSize(wire) +
                                   (unsigned __int128)bound * (wide ? 8 : 4) + 8 * m + stored_bytes + 512;
  if (answer > (unsigned __int128)limits.max_answer_bytes)
    return Status::ResourceExhausted(what + ": " + std::to_string(m) + " destinations and up to " +
                                     std::to_string(bound) + " sampled edges would be over the frame limit of " +
                                     std::to_string(limits.max_answer_bytes) + " bytes; send fewer per request");
  return Status::OK();
}

}  // namespace

Result<BufferList> ServeSampleBlock(const PartitionStore& store, const SampleBlockRequest& req,
                                   const SampleBlockLimits& limits) {
  const std::string what = "SAMPLE_BLOCK '" + req.name + "'";
  DG_ASSIGN_OR_RETURN(const Array* table, BlockFeatureTable(store, req.name));
  const int64_t m = req.dst.numel(), owned = store.partition().num_owned(), base = store.node_begin();
  const int32_t* dst = req.dst.as<int32_t>();
  if (table->shape[0] != owned)  // sampled by node offsets: a row per node
    return Status::InvalidArgument(what + ": needs a row per node of partition " + std::to_string(store.part_id()) +
                                   ", the array has " + std::to_string(table->shape[0]));
  DG_RETURN_IF_ERROR(CheckOffsets(what, "dst", dst, m, owned));
  const int64_t s = req.skip.numel();
  const int32_t* skip = req.skip.as<int32_t>();
  DG_RETURN_IF_ERROR(CheckPositions(what, "skip", skip, s, m));
  if (req.spec.replace && req.spec.fanout > limits.max_fanout)
    return Status::ResourceExhausted(what + ": fanout " + std::to_string(req.spec.fanout) +
                                     " with replacement is over this server's limit of " +
                                     std::to_string(limits.max_fanout) + " (limits.max_fanout)");
  std::vector<int64_t> ids(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) ids[i] = base + dst[i];
  DG_ASSIGN_OR_RETURN(HistoryHits hits, ReadHistory(store, req, ids.data(), m, limits.max_answer_bytes, what));
  if (!hits.pos.empty()) {  // only the destinations without a stored row are sampled
    size_t kept = 0;
    for (int64_t i = 0; i < m; ++i)
      if (!hits.hit[i]) ids[kept++] = ids[i];
    ids.resize(kept);
  }
  DG_ASSIGN_OR_RETURN(int64_t bound, store.SampleBound(ids.data(), ids.size(), req.spec));
  const int64_t elems = table->shape[1];
  DG_RETURN_IF_ERROR(CheckSampleBlockAnswer(what, m, elems, bound, req.wire, limits, hits.bytes));
  SampleResult sampled;
  DG_RETURN_IF_ERROR(store.Sample(ids.data(), ids.size(), req.spec, &sampled));
  SplitSources split = SplitByOwner(sampled, m, base, owned, hits.hit);
  const std::vector<int32_t> sent_rows = SentRows(dst, m, skip, s, hits.hit);
  const int64_t n_own = static_cast<int64_t>(sent_rows.size());
  DG_ASSIGN_OR_RETURN(Array sums, Array::TryZeros(DType::kFloat32, {split.k, elems}, what));
  SumRows(table->as<float>(), elems, split.own_counts.as<int32_t>(), m, split.local_src.data(),
          static_cast<int64_t>(split.local_src.size()), nullptr, sums.as<float>());
  Encoder enc;
  if (!req.history.name.empty()) {
    Array pos = Array::Zeros(DType::kInt32, {static_cast<int64_t>(hits.pos.size())});
    std::copy(hits.pos.begin(), hits.pos.end(), pos.as<int32_t>());
    enc.ArrayRef(pos);
    enc.ArrayRef(hits.rows);
  }
  EncodeTableWireRows(&enc, req.wire, TableOf(*table), elems, sent_rows.data(), n_own);
  enc.ArrayRef(split.own_counts);
  EncodeWireRows(&enc, req.wire, sums.as<float>(), split.k, elems, sums.holder);
  enc.ArrayRef(split.remote_counts);
  enc.ArrayRef(RemoteSrcArray(split.remote, limits.num_nodes > INT32_MAX));
  return enc.Finish();
}

}  // namespace dg
