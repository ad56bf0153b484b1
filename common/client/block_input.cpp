#include "common/client/block_input.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

#include "common/client/feature_cache.h"
#include "common/client/typed_node_rows.h"
#include "common/net/pull_block.h"
#include "common/storage/block_rows.h"

namespace dg {
namespace {

// One PULL_BLOCK to one partition for one range of the batch, and where its
// answer goes: own rows to output rows row_pos, sums to the destinations
// [dst_begin, ...) whose ids->counts entry is > 0.
struct Piece {
  int part = 0;
  int64_t dst_begin = 0;
  std::shared_ptr<PullBlockIds> ids = std::make_shared<PullBlockIds>();
  std::vector<int64_t> row_pos;
  std::shared_ptr<PendingCall> call;  // remote; null = machine-local (read from the mmap)
  // Remote destinations whose every source here is in the feature cache:
  // their partial sums, computed here (rounded as the wire would), added
  // when this piece's answer is.
  std::vector<int64_t> cached_pos;
  std::vector<float> cached_sums;
};

bool HasWork(const Piece& pc) { return !pc.ids->rows.empty() || !pc.ids->src.empty(); }

// The feature cache when it holds o's array, else null.
const FeatureCache* CacheFor(const DistGraphClient* client, const BlockInputOptions& o) {
  const FeatureCache* c = client->feature_cache();
  return c && c->name() == o.feature_name ? c : nullptr;
}

// acc[0..F) += the cached row of each of src[0..n) (all cached), in order:
// the float32 additions a server's sum makes.
template <typename Id>
void SumCached(const FeatureCache& cache, const Id* src, int64_t n, float* __restrict acc) {
  const int64_t F = cache.cols();
  for (int64_t t = 0; t < n; ++t) {
    const float* __restrict row = cache.Find(static_cast<int64_t>(src[t]));
    for (int64_t j = 0; j < F; ++j) acc[j] += row[j];
  }
}

// Per partition: whether every source of one destination it owns is cached
// (remote partitions only; flags[q] = 0 for the rest).
template <typename Id>
void AllCached(const DistGraphClient* client, const FeatureCache& cache, const Id* src, int64_t n,
               std::vector<char>* flags) {
  const PartitionBook& book = client->book();
  for (int q = 0; q < static_cast<int>(flags->size()); ++q) (*flags)[q] = !client->is_local(q);
  for (int64_t t = 0; t < n; ++t) {
    const int64_t s = static_cast<int64_t>(src[t]);
    const int q = book.Owner(s);
    if ((*flags)[q] && !cache.Find(s)) (*flags)[q] = 0;
  }
}

// A PULL_BLOCK of sums only (no own rows): for each destination in
// ids->counts (all > 0), the sum of its sources on one partition, added to
// the batch's neighbour-sum row pos[i].
// With a feature cache, a destination whose every source on the partition is
// cached takes its place in the piece as a cached entry (cached[i] = 1): its
// sum is made here, the piece is cut where it would be without the cache,
// so the partials of every destination add up in the same order.
struct SumPiece {
  int part = 0;
  std::shared_ptr<PullBlockIds> ids = std::make_shared<PullBlockIds>();
  std::vector<int64_t> pos;
  std::vector<char> cached;        // [pos.size()]
  std::vector<float> cached_sums;  // F per cached entry, in order
  std::shared_ptr<PendingCall> call;  // null: nothing to ask (all cached)
};

// Sorts destinations' sources by owning partition into SumPieces of at most
// max_dst_per_request destinations; a full or flushed piece is summed at once
// from the mmap (machine-local partition) or sent (remote; kept in `sent`).
class SumSplitter {
 public:
  // base[q]: the global id of row 0 of partition q's o.feature_name (null:
  // the partition's first node; a typed partition's "<type>/features" starts
  // at the type's first id on q).
  SumSplitter(DistGraphClient* client, const BlockInputOptions& o, float* neigh,
              const std::vector<int64_t>* base = nullptr)
      : client_(client),
        o_(o),
        neigh_(neigh),
        base_(base ? base : &client->config().node_map),
        cache_(CacheFor(client, o)),
        open_(static_cast<size_t>(client->config().num_parts)),
        all_cached_(open_.size(), 0) {}

  // Sources (global ids) of batch row pos.
  template <typename Id>
  Status Add(int64_t pos, const Id* src, int64_t n) {
    const PartitionBook& book = client_->book();
    const std::vector<int64_t>& base = *base_;
    const int64_t F = cache_ ? cache_->cols() : 0;
    if (cache_) AllCached(client_, *cache_, src, n, &all_cached_);
    for (int64_t t = 0; t < n; ++t) {
      const int64_t s = static_cast<int64_t>(src[t]);
      const int q = book.Owner(s);
      SumPiece& pc = open_[q];
      const bool cached = cache_ && all_cached_[q];
      if (pc.pos.empty() || pc.pos.back() != pos) {
        if (static_cast<int64_t>(pc.pos.size()) >= std::max<int64_t>(1, o_.max_dst_per_request))
          DG_RETURN_IF_ERROR(Close(q));
        open_[q].pos.push_back(pos);
        open_[q].cached.push_back(cached);
        if (cached) {
          open_[q].cached_sums.resize(open_[q].cached_sums.size() + static_cast<size_t>(F), 0.0f);
        } else {
          open_[q].ids->counts.push_back(0);
        }
      }
      if (cached) {
        SumCached(*cache_, &s, 1, open_[q].cached_sums.data() + open_[q].cached_sums.size() - F);
        continue;
      }
      ++open_[q].ids->counts.back();
      open_[q].ids->src.push_back(static_cast<int32_t>(s - base[q]));
    }
    return Status::OK();
  }

  Status Flush() {
    for (size_t q = 0; q < open_.size(); ++q)
      if (!open_[q].pos.empty()) DG_RETURN_IF_ERROR(Close(static_cast<int>(q)));
    return Status::OK();
  }

  std::vector<SumPiece> sent;

 private:
  Status Close(int q) {
    SumPiece pc = std::move(open_[q]);
    open_[q] = SumPiece();
    pc.part = q;
    const PullBlockIds& ids = *pc.ids;
    if (client_->is_local(q))  // never cached entries
      return AddPullBlock(*client_->local_store(q), o_.feature_name, nullptr, 0, nullptr, ids.counts.data(),
                          static_cast<int64_t>(ids.counts.size()), ids.src.data(),
                          static_cast<int64_t>(ids.src.size()), nullptr, neigh_, pc.pos.data());
    if (cache_) {
      const uint64_t k = pc.cached_sums.size() / static_cast<size_t>(std::max<int64_t>(1, cache_->cols()));
      cache_->Count(k, ids.counts.size(),
                    k * static_cast<uint64_t>(cache_->cols()) * WireDTypeSize(o_.wire));
      RoundLikeWire(o_.wire, pc.cached_sums.data(), static_cast<int64_t>(pc.cached_sums.size()));
    }
    if (!ids.counts.empty()) {
      Encoder e;
      EncodePullBlock(&e, o_.feature_name, o_.wire, pc.ids);
      pc.call = client_->StartRequest(q, MsgType::kPullBlock, e.Finish());
    }
    sent.push_back(std::move(pc));
    return Status::OK();
  }

  DistGraphClient* client_;
  const BlockInputOptions& o_;
  float* neigh_;
  const std::vector<int64_t>* base_;
  const FeatureCache* cache_;
  std::vector<SumPiece> open_;  // per partition
  std::vector<char> all_cached_;  // per partition, for the row being added
};

// An int32 [n] array from a reply.
Status CheckInt32(const std::string& what, const char* field, const Array& a, int64_t n) {
  if (a.dtype == DType::kInt32 && a.shape == std::vector<int64_t>{n}) return Status::OK();
  return Status::InvalidArgument(what + ": " + field + " is " + DTypeName(a.dtype) + " " + a.ShapeString() +
                                 ", expected int32 [" + std::to_string(n) + "]");
}

// What FillSampledBlock fills: block 0's destinations' input rows (xp), the
// sums of their sampled sources (np) and their sampled degrees.
struct SampledBlockFill {
  DistGraphClient* client;
  const BlockInputOptions& o;
  const std::vector<int64_t>& dst;
  int64_t F;
  float* xp;
  float* np;
  std::vector<int64_t> deg;
  // With stored rows (SampleBlock0WithHistory): the ask; per destination
  // whether a stored row answered it, and that row; and per destination its
  // batch row: misses take rows 0, 1, ... as they become known (the hits
  // take none), so only the misses' rows are ever written. Without stored
  // rows a destination's batch row is its position.
  const BlockHistoryRead* history = nullptr;
  std::vector<char> hit = {};
  std::vector<float> stored = {};       // the hits' rows in arrival order
  std::vector<int64_t> stored_at = {};  // per destination: its row's index in stored
  std::vector<int64_t> out = {};
  int64_t next_out = 0;
};

// Destination i's batch row; with stored rows a miss takes the next one,
// its sum row zeroed.
int64_t TakeRow(SampledBlockFill& b, int64_t i) {
  if (!b.history) return i;
  b.out[i] = b.next_out++;
  std::memset(b.np + b.out[i] * b.F, 0, static_cast<size_t>(b.F) * 4);
  return b.out[i];
}

// A hit of destination `row`: its stored row.
void AddStoredRow(SampledBlockFill& b, int64_t row, const float* stored) {
  const int64_t W = b.history->width;
  b.hit[row] = 1;
  b.stored_at[row] = static_cast<int64_t>(b.stored.size()) / W;
  b.stored.insert(b.stored.end(), stored, stored + W);
}

// by_part's destinations go out at once (SAMPLE_BLOCK), max_dst_per_request
// a request. Own rows the feature cache holds are not asked for (ids->skip);
// they go into the batch as the wire would give them. With stored rows the
// cache is not consulted (a destination's batch row is known only once its
// answer says it misses).
void SendSampleBlocks(SampledBlockFill& b, const SampleSpec& spec, const std::vector<std::vector<int64_t>>& by_part,
                      std::vector<Piece>* samples) {
  const BlockInputOptions& o = b.o;
  const std::vector<int64_t>& base = b.client->config().node_map;
  const int64_t chunk = std::max<int64_t>(1, o.max_dst_per_request), F = b.F;
  const FeatureCache* cache = CacheFor(b.client, o);
  uint64_t cached_rows = 0, asked_rows = 0;
  const BlockHistoryRead* h = b.history;
  for (int p = 0; p < static_cast<int>(by_part.size()); ++p) {
    const std::vector<int64_t>& rows = by_part[p];
    for (size_t a = 0; a < rows.size(); a += static_cast<size_t>(chunk)) {
      Piece pc;
      pc.part = p;
      const size_t e = std::min(rows.size(), a + static_cast<size_t>(chunk));
      pc.row_pos.assign(rows.begin() + a, rows.begin() + e);
      for (int64_t i : pc.row_pos) pc.ids->rows.push_back(static_cast<int32_t>(b.dst[i] - base[p]));
      for (size_t j = 0; cache && !h && j < pc.row_pos.size(); ++j) {
        const int64_t i = pc.row_pos[j];
        const float* row = cache->Find(b.dst[i]);
        if (!row) continue;
        pc.ids->skip.push_back(static_cast<int32_t>(j));
        std::memcpy(b.xp + i * F, row, static_cast<size_t>(F) * 4);
        RoundLikeWire(o.wire, b.xp + i * F, F);
      }
      cached_rows += pc.ids->skip.size();
      asked_rows += pc.row_pos.size() - pc.ids->skip.size();
      for (size_t j = 0; h && j < pc.row_pos.size(); ++j)
        if (h->candidate[pc.row_pos[j]]) pc.ids->cand.push_back(static_cast<int32_t>(j));
      Encoder enc;
      EncodeSampleBlock(&enc, o.feature_name, o.wire, spec, pc.ids, h ? h->ask : SampleBlockHistory());
      // Stored rows live with the partition's mutable tensors.
      pc.call = b.client->StartRequest(p, MsgType::kSampleBlock, enc.Finish(), h != nullptr);
      samples->push_back(std::move(pc));
    }
  }
  if (cache) cache->Count(cached_rows, asked_rows, cached_rows * static_cast<uint64_t>(F) * WireDTypeSize(o.wire));
}

// Machine-local destinations: sampled and read from the mmap; their sources
// summed where they live.
Status SampleLocalBlocks(SampledBlockFill& b, const SampleSpec& spec, const std::vector<std::vector<int64_t>>& by_part,
                         SumSplitter* sums) {
  const std::vector<int64_t>& base = b.client->config().node_map;
  for (int p = 0; p < static_cast<int>(by_part.size()); ++p) {
    if (by_part[p].empty()) continue;
    const PartitionStore& store = *b.client->local_store(p);
    const std::vector<int64_t>& dst_pos = by_part[p];
    std::vector<int64_t> ids(dst_pos.size()), rows(dst_pos.size());  // rows: batch rows
    std::vector<int32_t> offsets(dst_pos.size());
    for (size_t i = 0; i < dst_pos.size(); ++i) {
      ids[i] = b.dst[dst_pos[i]];
      offsets[i] = static_cast<int32_t>(ids[i] - base[p]);
      rows[i] = TakeRow(b, dst_pos[i]);
    }
    DG_RETURN_IF_ERROR(AddPullBlock(store, b.o.feature_name, offsets.data(), static_cast<int64_t>(rows.size()),
                                    rows.data(), nullptr, 0, nullptr, 0, b.xp, nullptr, nullptr));
    SampleResult sampled;
    DG_RETURN_IF_ERROR(store.Sample(ids.data(), ids.size(), spec, &sampled));
    int64_t at = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      b.deg[rows[i]] = sampled.counts[i];
      DG_RETURN_IF_ERROR(sums->Add(rows[i], sampled.src.data() + at, sampled.counts[i]));
      at += sampled.counts[i];
    }
  }
  return Status::OK();
}

// One SAMPLE_BLOCK reply, every field checked against the request
// (pull_block.h has the wire).
struct SampleBlockReply {
  Array hit, stored;  // with a history
  WireRowsView own, part_sums;
  Array own_counts, remote_counts, remote_src;
};

// The hits of a reply: positions among the request's candidates, ascending,
// and a float32 [h, width] row each.
Status DecodeHits(const SampledBlockFill& b, const Piece& pc, const std::string& what, Decoder* d,
                  SampleBlockReply* out) {
  out->hit = d->ArrayView();
  out->stored = d->ArrayView();
  DG_RETURN_IF_ERROR(d->status());
  const int64_t h = out->hit.numel();
  DG_RETURN_IF_ERROR(CheckInt32(what, "hit", out->hit, h));
  const std::vector<int32_t>& cand = pc.ids->cand;
  const int32_t* hit = out->hit.as<int32_t>();
  size_t c = 0;
  for (int64_t i = 0; i < h; ++i) {
    while (c < cand.size() && cand[c] < hit[i]) ++c;
    if (c == cand.size() || cand[c] != hit[i])
      return Status::InvalidArgument(what + ": hit[" + std::to_string(i) + "] = " + std::to_string(hit[i]) +
                                     " is not a candidate above the one before");
    ++c;
  }
  if (out->stored.dtype != DType::kFloat32 || out->stored.shape != std::vector<int64_t>{h, b.history->width})
    return Status::InvalidArgument(what + ": stored rows are " + std::string(DTypeName(out->stored.dtype)) + " " +
                                   out->stored.ShapeString() + ", expected float32 [" + std::to_string(h) + ", " +
                                   std::to_string(b.history->width) + "]");
  return Status::OK();
}

// Hits in a reply (an Array without a shape has one element).
int64_t NumHits(const SampleBlockReply& r) { return r.hit.shape.empty() ? 0 : r.hit.numel(); }

// Own rows a reply carries: the destinations neither skipped nor hits.
int64_t OwnRowsSent(const Piece& pc, const SampleBlockReply& r) {
  const std::vector<int32_t>& skip = pc.ids->skip;
  const int64_t h = NumHits(r);
  const int32_t* hit = h > 0 ? r.hit.as<int32_t>() : nullptr;
  int64_t both = 0;
  for (int64_t i = 0, j = 0; i < h; ++i) {
    while (j < static_cast<int64_t>(skip.size()) && skip[j] < hit[i]) ++j;
    both += j < static_cast<int64_t>(skip.size()) && skip[j] == hit[i];
  }
  return static_cast<int64_t>(pc.row_pos.size() - skip.size()) - (h - both);
}

Status DecodeSampleBlockReply(const SampledBlockFill& b, const Piece& pc, const Frame& f, SampleBlockReply* out) {
  const int64_t m = static_cast<int64_t>(pc.row_pos.size()), F = b.F;
  const std::string what = "SAMPLE_BLOCK reply of partition " + std::to_string(pc.part);
  const WireDType wire = b.o.wire;
  Decoder d = f.decoder(what);
  if (b.history) DG_RETURN_IF_ERROR(DecodeHits(b, pc, what, &d, out));
  DG_RETURN_IF_ERROR(DecodeWireRows(&d, wire, OwnRowsSent(pc, *out), F, what + " (rows)", &out->own));
  out->own_counts = d.ArrayView();
  DG_RETURN_IF_ERROR(d.status());
  DG_RETURN_IF_ERROR(CheckInt32(what, "own_counts", out->own_counts, m));
  int64_t k = 0, r = 0;
  for (int64_t i = 0; i < m; ++i) k += out->own_counts.as<int32_t>()[i] > 0;
  DG_RETURN_IF_ERROR(DecodeWireRows(&d, wire, k, F, what + " (sums)", &out->part_sums));
  out->remote_counts = d.ArrayView();
  DG_RETURN_IF_ERROR(d.status());
  DG_RETURN_IF_ERROR(CheckInt32(what, "remote_counts", out->remote_counts, m));
  out->remote_src = d.ArrayView();
  DG_RETURN_IF_ERROR(d.Finish());
  for (int64_t i = 0; i < m; ++i) {
    const int32_t a = out->own_counts.as<int32_t>()[i], c = out->remote_counts.as<int32_t>()[i];
    if (a < 0 || c < 0) return Status::InvalidArgument(what + ": a negative count");
    r += c;
  }
  const Array& src = out->remote_src;
  if ((src.dtype != DType::kInt32 && src.dtype != DType::kInt64) || src.shape != std::vector<int64_t>{r})
    return Status::InvalidArgument(what + ": remote_src is " + std::string(DTypeName(src.dtype)) + " " +
                                   src.ShapeString() + ", expected " + std::to_string(r) + " ids");
  const int64_t num_nodes = b.client->config().num_nodes;
  for (int64_t t = 0; t < r; ++t) {  // every id a node of the graph
    const int64_t s = src.dtype == DType::kInt32 ? src.as<int32_t>()[t] : src.as<int64_t>()[t];
    if (s < 0 || s >= num_nodes)
      return Status::InvalidArgument(what + ": source id " + std::to_string(s) + " is not a node of the graph");
  }
  return Status::OK();
}

// A remote destination's answer: its own row, its degree, its sources
// elsewhere to sum where they live (first: the same order of additions as
// FillBlockInput), then the sums of the sources its owner holds.
Status ApplySampleBlockReply(SampledBlockFill& b, const Piece& pc, const SampleBlockReply& r, SumSplitter* sums) {
  const int64_t m = static_cast<int64_t>(pc.row_pos.size()), F = b.F;
  const std::vector<int32_t>& skip = pc.ids->skip;
  const int32_t* own_counts = r.own_counts.as<int32_t>();
  const int32_t* remote_counts = r.remote_counts.as<int32_t>();
  const int64_t h = NumHits(r), W = b.history ? b.history->width : 0;
  for (int64_t t = 0; t < h; ++t) AddStoredRow(b, pc.row_pos[r.hit.as<int32_t>()[t]], r.stored.as<float>() + t * W);
  std::vector<int64_t> rows(static_cast<size_t>(m), -1);  // batch rows; -1: a hit
  int64_t at = 0;
  for (int64_t i = 0, sent = 0, sk = 0; i < m; ++i) {
    if (h > 0 && b.hit[pc.row_pos[i]]) {  // no own row; counts 0 (if not, their sources are left out)
      at += remote_counts[i];
      continue;
    }
    const int64_t row = rows[i] = TakeRow(b, pc.row_pos[i]);
    if (sk < static_cast<int64_t>(skip.size()) && skip[sk] == i) ++sk;  // from the cache, above
    else r.own.Row(sent++, b.xp + row * F);
    const int32_t c = remote_counts[i];
    b.deg[row] = own_counts[i] + c;
    DG_RETURN_IF_ERROR(r.remote_src.dtype == DType::kInt32 ? sums->Add(row, r.remote_src.as<int32_t>() + at, c)
                                                           : sums->Add(row, r.remote_src.as<int64_t>() + at, c));
    at += c;
  }
  DG_RETURN_IF_ERROR(sums->Flush());
  int64_t s = 0;
  for (int64_t i = 0; i < m; ++i) {
    if (own_counts[i] > 0 && rows[i] >= 0) r.part_sums.AddRow(s, b.np + rows[i] * F);
    s += own_counts[i] > 0;
  }
  return Status::OK();
}

// The sums of sources on remote partitions (PULL_BLOCK), in send order, and
// the cached partials in their place.
Status ReceiveSumPieces(std::vector<SumPiece>& sent, const BlockInputOptions& o, int64_t F, float* np,
                        std::chrono::steady_clock::time_point deadline, Status first_error) {
  for (SumPiece& pc : sent) {
    WireRowsView part_sums;
    if (pc.call) {
      auto f = pc.call->Wait(deadline);
      if (!first_error.ok()) continue;
      if (!f.ok()) {
        first_error = f.status();
        continue;
      }
      const int64_t k = static_cast<int64_t>(pc.ids->counts.size());
      const std::string what = "PULL_BLOCK reply of partition " + std::to_string(pc.part);
      Decoder d = f->decoder(what);
      WireRowsView own;
      Status st = DecodeWireRows(&d, o.wire, 0, F, what + " (rows)", &own);
      if (st.ok()) st = DecodeWireRows(&d, o.wire, k, F, what + " (sums)", &part_sums);
      if (st.ok()) st = d.Finish();
      if (!st.ok()) {
        first_error = st;
        continue;
      }
    }
    if (!first_error.ok()) continue;
    int64_t asked = 0, cached = 0;
    for (size_t i = 0; i < pc.pos.size(); ++i) {
      float* out = np + pc.pos[i] * F;
      if (!pc.cached.empty() && pc.cached[i]) {
        const float* v = pc.cached_sums.data() + (cached++) * F;
        for (int64_t j = 0; j < F; ++j) out[j] += v[j];
      } else {
        part_sums.AddRow(asked++, out);
      }
    }
  }
  return first_error;
}

// Means, and block 0 as the sampled degrees: each edge points at its
// destination (the sources stay where they live).
Block SampledDegreesBlock(const std::vector<int64_t>& deg, int64_t F, float* np) {
  const int64_t n = static_cast<int64_t>(deg.size());
  Block b0;
  b0.num_dst = b0.num_src = n;
  b0.indptr.resize(static_cast<size_t>(n + 1));
  b0.indptr[0] = 0;
  for (int64_t i = 0; i < n; ++i) b0.indptr[i + 1] = b0.indptr[i] + deg[i];
  b0.indices.resize(static_cast<size_t>(b0.indptr[n]));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t e = b0.indptr[i]; e < b0.indptr[i + 1]; ++e) b0.indices[e] = i;
    if (deg[i] <= 1) continue;
    const float inv = 1.0f / static_cast<float>(deg[i]);
    float* row = np + i * F;
    for (int64_t j = 0; j < F; ++j) row[j] *= inv;
  }
  return b0;
}

// Candidates on machine-local partitions: their stored rows are read from
// the partition's server (while the other partitions' SAMPLE_BLOCKs are on
// the wire); the misses join the destinations sampled from the mmap.
Status ReadLocalStoredRows(SampledBlockFill& b, const std::vector<int64_t>& local_cand,
                           std::vector<std::vector<int64_t>>* mapped) {
  if (local_cand.empty()) return Status::OK();
  const BlockHistoryRead& h = *b.history;
  std::vector<int64_t> ids(local_cand.size());
  for (size_t c = 0; c < local_cand.size(); ++c) ids[c] = b.dst[local_cand[c]];
  DG_ASSIGN_OR_RETURN(Array rows, b.client->Pull(h.ask.name, ids));
  if (rows.dtype != DType::kFloat32 || rows.row_elems() != h.width + 2)
    return Status::InvalidArgument("stored rows '" + h.ask.name + "' are " + DTypeName(rows.dtype) + " " +
                                   rows.ShapeString() + ", expected float32 [n, " + std::to_string(h.width + 2) + "]");
  for (size_t c = 0; c < local_cand.size(); ++c) {
    const int64_t i = local_cand[c];
    const float* row = rows.as<float>() + c * (h.width + 2);
    if (StoredRowFresh(StoredRowStep(row, rows.row_bytes()), h.ask.step, h.ask.max_age)) {
      AddStoredRow(b, i, row);
    } else {
      (*mapped)[b.client->book().Owner(ids[c])].push_back(i);
    }
  }
  for (auto& rows_of_part : *mapped) std::sort(rows_of_part.begin(), rows_of_part.end());
  return Status::OK();
}

// The hits' positions and rows, the misses' positions in batch row order,
// and the batch cut to the misses' rows (SampleBlock0WithHistory).
void SplitHits(SampledBlockFill& b, Array* x, Array* neigh, BlockHistoryHits* hits) {
  const int64_t n = static_cast<int64_t>(b.dst.size()), W = b.history->width, k = b.next_out;
  hits->miss_pos.assign(static_cast<size_t>(k), -1);
  for (int64_t i = 0; i < n; ++i) {
    if (b.hit[i]) hits->hit_pos.push_back(i);
    else hits->miss_pos[b.out[i]] = i;
  }
  const int64_t h = static_cast<int64_t>(hits->hit_pos.size());
  hits->rows = Array::Zeros(DType::kFloat32, {h, W});
  for (int64_t t = 0; t < h; ++t)
    std::memcpy(hits->rows.as<float>() + t * W, b.stored.data() + b.stored_at[hits->hit_pos[t]] * W,
                static_cast<size_t>(W) * 4);
  x->shape[0] = neigh->shape[0] = k;  // rows k.. were never written
  b.deg.resize(static_cast<size_t>(k));
}

// Block 0 sampled where its destinations live (SAMPLE_BLOCK): the input rows,
// the mean of each destination's sampled sources and block 0 as sampled
// degrees (see SampleBlockInput and SampleBlock0WithHistory in the header).
Status FillSampledBlock(DistGraphClient* client, const BlockInputOptions& o, const SampleSpec& spec,
                        const std::vector<int64_t>& dst, MiniBatch* mb, const BlockHistoryRead* history = nullptr,
                        BlockHistoryHits* hits = nullptr) {
  const PartitionConfig& config = client->config();
  auto info = config.node_data.find(o.feature_name);
  if (info == config.node_data.end() || info->second.shape.size() != 2)
    return Status::InvalidArgument("SampleBlockInput: no float32 [N, F] node array '" + o.feature_name + "'");
  const int64_t F = info->second.shape[1], n = static_cast<int64_t>(dst.size());
  DG_ASSIGN_OR_RETURN(Array x, Array::TryUninitialized(DType::kFloat32, {n, F}, "batch input rows"));
  // With stored rows most destinations hit: only the misses' sum rows are
  // zeroed (and so touched), the rest of the array is never written.
  DG_ASSIGN_OR_RETURN(Array neigh, history ? Array::TryUninitialized(DType::kFloat32, {n, F}, "batch input sums")
                                           : Array::TryZeros(DType::kFloat32, {n, F}, "batch input sums"));
  SampledBlockFill b{client, o, dst, F, x.as<float>(), neigh.as<float>(), std::vector<int64_t>(static_cast<size_t>(n), 0)};
  b.history = history;
  if (history) {
    b.hit.assign(static_cast<size_t>(n), 0);
    b.stored_at.assign(static_cast<size_t>(n), -1);
    b.out.assign(static_cast<size_t>(n), -1);
  }
  // Destinations by owner: asked of its servers, or read from the mmap of a
  // machine-local partition (a candidate there once its stored row is read).
  std::vector<std::vector<int64_t>> asked(static_cast<size_t>(config.num_parts)), mapped(asked.size());
  std::vector<int64_t> local_cand;
  for (int64_t i = 0; i < n; ++i) {
    const int p = client->book().Owner(dst[i]);
    if (!client->is_local(p)) asked[p].push_back(i);
    else if (history && history->candidate[i]) local_cand.push_back(i);
    else mapped[p].push_back(i);
  }
  std::vector<Piece> samples;  // row_pos = batch rows of ids->rows
  SendSampleBlocks(b, spec, asked, &samples);
  DG_RETURN_IF_ERROR(ReadLocalStoredRows(b, local_cand, &mapped));
  SumSplitter sums(client, o, b.np);
  DG_RETURN_IF_ERROR(SampleLocalBlocks(b, spec, mapped, &sums));
  DG_RETURN_IF_ERROR(sums.Flush());
  // The remote destinations' answers, in send order.
  const auto deadline = client->CallDeadline();
  Status first_error;
  for (Piece& pc : samples) {
    auto f = pc.call->Wait(deadline);
    if (!first_error.ok()) continue;
    SampleBlockReply reply;
    Status st = f.ok() ? DecodeSampleBlockReply(b, pc, *f, &reply) : f.status();
    if (st.ok()) st = ApplySampleBlockReply(b, pc, reply, &sums);
    if (!st.ok()) first_error = st;
  }
  DG_RETURN_IF_ERROR(ReceiveSumPieces(sums.sent, o, F, b.np, deadline, first_error));
  if (history) SplitHits(b, &x, &neigh, hits);
  mb->blocks[0] = SampledDegreesBlock(b.deg, F, b.np);
  if (history) {
    mb->input_nodes.clear();
    for (int64_t i : hits->miss_pos) mb->input_nodes.push_back(dst[i]);
  } else {
    mb->input_nodes = dst;
  }
  mb->features = std::move(x);
  mb->input_neigh_mean = std::move(neigh);
  return Status::OK();
}

}  // namespace

Status CheckBlockInput(const PartitionConfig& config, const std::string& feature_name) {
  if (config.typed() && feature_name == "features") return CheckTypedWireRows(config);
  for (int p = 0; p < config.num_parts; ++p)
    if (config.node_map[p + 1] - config.node_map[p] > INT32_MAX)
      return Status::InvalidArgument(config.path + ": partition " + std::to_string(p) +
                                     " owns more than 2^31 nodes; PULL_BLOCK addresses nodes by int32 offsets");
  auto it = config.node_data.find(feature_name);
  if (it == config.node_data.end())
    return Status::InvalidArgument(config.path + ": no node array '" + feature_name + "' to pull input rows from");
  if (it->second.dtype != DType::kFloat32 || it->second.shape.size() != 2)
    return Status::InvalidArgument(config.path + ": node array '" + feature_name +
                                   "' is not float32 [N, F]; PULL_BLOCK needs float32 rows");
  return Status::OK();
}

namespace {

// FillBlockInput's cut of the batch into pieces (range x partition): the
// remote ones are sent at once. Rows and per-partition sums the feature cache
// holds do not travel: cached rows are listed in cached_rows, cached sums
// made in their piece (rounded as the wire would).
class BlockPieces {
 public:
  BlockPieces(DistGraphClient* client, const BlockInputOptions& o, const MiniBatch& mb, int64_t F)
      : client_(client),
        o_(o),
        b0_(mb.blocks[0]),
        nodes_(mb.input_nodes),
        F_(F),
        cache_(CacheFor(client, o)),
        all_cached_(static_cast<size_t>(client->config().num_parts), 0) {}

  // Rows [a, b) of the batch: one piece per partition, the remote ones sent.
  void Cut(int64_t a, int64_t b) {
    const size_t first = pieces.size();
    for (int p = 0; p < static_cast<int>(all_cached_.size()); ++p) {
      Piece pc;
      pc.part = p;
      pc.dst_begin = a;
      if (o_.aggregate) pc.ids->counts.assign(static_cast<size_t>(b - a), 0);
      pieces.push_back(std::move(pc));
    }
    for (int64_t i = a; i < b; ++i) {
      AddOwnRow(i, first);
      if (o_.aggregate) AddSources(i, a, first);
    }
    for (size_t k = first; k < pieces.size(); ++k) Send(&pieces[k]);
  }

  // The cache's tally of this batch (FeatureCache::Count).
  void CountCache() const {
    if (cache_)
      cache_->Count(hits_ + cached_rows.size(), misses_,
                    saved_ + cached_rows.size() * F_ * WireDTypeSize(o_.wire));
  }

  std::vector<Piece> pieces;
  std::vector<std::pair<int64_t, const float*>> cached_rows;  // (batch row, cached row)

 private:
  void AddOwnRow(int64_t i, size_t first) {
    const int p = client_->book().Owner(nodes_[i]);
    const float* row = cache_ && !client_->is_local(p) ? cache_->Find(nodes_[i]) : nullptr;
    if (row) {
      cached_rows.emplace_back(i, row);
      return;
    }
    Piece& own = pieces[first + p];
    own.ids->rows.push_back(static_cast<int32_t>(nodes_[i] - client_->config().node_map[p]));
    own.row_pos.push_back(i);
    misses_ += !client_->is_local(p) && cache_;
  }

  // Destination i's sources, each to its owner's piece (or its cached sum).
  void AddSources(int64_t i, int64_t a, size_t first) {
    const int64_t* indptr = b0_.indptr.data();
    const int64_t* indices = b0_.indices.data();
    if (cache_) {
      src_ids_.clear();
      for (int64_t e = indptr[i]; e < indptr[i + 1]; ++e) src_ids_.push_back(nodes_[indices[e]]);
      AllCached(client_, *cache_, src_ids_.data(), static_cast<int64_t>(src_ids_.size()), &all_cached_);
      for (size_t q = 0; q < all_cached_.size(); ++q) {
        if (!all_cached_[q]) continue;
        Piece& pc = pieces[first + q];
        pc.cached_pos.push_back(i);
        pc.cached_sums.resize(pc.cached_sums.size() + static_cast<size_t>(F_), 0.0f);
      }
    }
    for (int64_t e = indptr[i]; e < indptr[i + 1]; ++e) {
      const int64_t s = nodes_[indices[e]];
      const int q = client_->book().Owner(s);
      Piece& pc = pieces[first + q];
      if (cache_ && all_cached_[q]) {
        SumCached(*cache_, &s, 1, pc.cached_sums.data() + pc.cached_sums.size() - F_);
        continue;
      }
      ++pc.ids->counts[i - a];
      pc.ids->src.push_back(static_cast<int32_t>(s - client_->config().node_map[q]));
    }
  }

  void Send(Piece* pc) {
    if (cache_ && !client_->is_local(pc->part)) {
      const uint64_t cached = pc->cached_pos.size();
      hits_ += cached;
      misses_ += std::count_if(pc->ids->counts.begin(), pc->ids->counts.end(), [](int32_t c) { return c > 0; });
      saved_ += cached * static_cast<uint64_t>(F_) * WireDTypeSize(o_.wire);
      RoundLikeWire(o_.wire, pc->cached_sums.data(), static_cast<int64_t>(pc->cached_sums.size()));
    }
    if (!HasWork(*pc) || client_->is_local(pc->part)) return;
    Encoder e;
    EncodePullBlock(&e, o_.feature_name, o_.wire, pc->ids);
    pc->call = client_->StartRequest(pc->part, MsgType::kPullBlock, e.Finish());
  }

  DistGraphClient* client_;
  const BlockInputOptions& o_;
  const Block& b0_;
  const std::vector<int64_t>& nodes_;
  const int64_t F_;
  const FeatureCache* cache_;
  std::vector<char> all_cached_;
  std::vector<int64_t> src_ids_;
  uint64_t hits_ = 0, misses_ = 0, saved_ = 0;
};

// A remote piece's PULL_BLOCK answer: own rows into x, sums added to their
// destinations' rows of neigh.
Status ApplyPullBlockReply(const Piece& pc, const Frame& f, const BlockInputOptions& o, int64_t F, float* xp,
                           float* np) {
  const int64_t r = static_cast<int64_t>(pc.ids->rows.size());
  const std::vector<int32_t>& counts = pc.ids->counts;
  const int64_t k = std::count_if(counts.begin(), counts.end(), [](int32_t c) { return c > 0; });
  const std::string what = "PULL_BLOCK reply of partition " + std::to_string(pc.part);
  Decoder d = f.decoder(what);
  WireRowsView own, sums;
  DG_RETURN_IF_ERROR(DecodeWireRows(&d, o.wire, r, F, what + " (rows)", &own));
  DG_RETURN_IF_ERROR(DecodeWireRows(&d, o.wire, k, F, what + " (sums)", &sums));
  DG_RETURN_IF_ERROR(d.Finish());
  for (int64_t i = 0; i < r; ++i) own.Row(i, xp + pc.row_pos[i] * F);
  int64_t at = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    sums.AddRow(at++, np + (pc.dst_begin + static_cast<int64_t>(i)) * F);
  }
  return Status::OK();
}

// Mean over the sampled sources (multi-edges counted).
void DivideByDegree(const Block& b0, int64_t num_rows, int64_t F, float* np) {
  for (int64_t i = 0; i < num_rows; ++i) {
    const int64_t deg = b0.indptr[i + 1] - b0.indptr[i];
    if (deg <= 1) continue;
    const float inv = 1.0f / static_cast<float>(deg);
    float* row = np + i * F;
    for (int64_t j = 0; j < F; ++j) row[j] *= inv;
  }
}

// One aggregated relation of a typed block 0: the sums of its sources'
// "<type>/features" rows per destination with r-edges (in destination
// order), made where those rows live.
struct TypedRelationSums {
  int relation = 0;
  int64_t cols = 0;
  BlockInputOptions o;        // feature_name "<source type>/features"
  std::vector<int64_t> base;  // per partition: the source type's first id there
  std::vector<int64_t> deg;   // per destination with r-edges: their number
  Array sums;                 // float32 [deg.size(), cols]
  std::unique_ptr<SumSplitter> split;
};

// The aggregated relations' sums of block 0, sent (remote partitions) or made
// (machine-local ones) run by run: each destination's edges of one relation
// are one run (the block groups a destination's edges by edge type).
Status SendTypedSums(DistGraphClient* client, const BlockInputOptions& o, const MiniBatch& mb,
                     std::vector<std::unique_ptr<TypedRelationSums>>* out) {
  const PartitionConfig& c = client->config();
  const Block& b0 = mb.blocks[0];
  std::vector<int> slot(c.edge_types.size(), -1);
  for (int r : TypedAggregatedRelations(c)) {
    auto s = std::make_unique<TypedRelationSums>();
    const int t = c.edge_types[r].src_type;
    s->relation = r;
    s->o = o;
    s->o.feature_name = c.node_types[t] + "/features";
    s->cols = c.node_data.at(s->o.feature_name).shape[1];
    for (int p = 0; p < c.num_parts; ++p) s->base.push_back(c.node_type_offsets[p][t]);
    slot[r] = static_cast<int>(out->size());
    out->push_back(std::move(s));
  }
  std::vector<int64_t> last(out->size(), -1);  // first pass: the destinations of each relation
  for (int64_t d = 0; d < b0.num_dst; ++d)
    for (int64_t e = b0.indptr[d]; e < b0.indptr[d + 1]; ++e) {
      const int k = slot[b0.etypes[e]];
      if (k < 0) continue;
      TypedRelationSums& s = *(*out)[k];
      if (last[k] != d) s.deg.push_back(0);
      last[k] = d;
      ++s.deg.back();
    }
  for (auto& s : *out) {
    DG_ASSIGN_OR_RETURN(s->sums, Array::TryZeros(DType::kFloat32, {static_cast<int64_t>(s->deg.size()), s->cols},
                                                 "batch input sums"));
    s->split = std::make_unique<SumSplitter>(client, s->o, s->sums.as<float>(), &s->base);
  }
  std::fill(last.begin(), last.end(), -1);
  std::vector<int64_t> pos(out->size(), -1), src;
  for (int64_t d = 0; d < b0.num_dst; ++d) {
    for (int64_t e = b0.indptr[d], end = e; e < b0.indptr[d + 1]; e = end) {
      const int64_t r = b0.etypes[e];
      for (src.clear(); end < b0.indptr[d + 1] && b0.etypes[end] == r; ++end)
        src.push_back(mb.input_nodes[b0.indices[end]]);
      const int k = slot[r];
      if (k < 0) continue;
      if (last[k] != d) ++pos[k];
      last[k] = d;
      DG_RETURN_IF_ERROR((*out)[k]->split->Add(pos[k], src.data(), static_cast<int64_t>(src.size())));
    }
  }
  for (auto& s : *out) DG_RETURN_IF_ERROR(s->split->Flush());
  return Status::OK();
}

// The feature rows block 0's model input reads with the aggregated relations
// left out: its destinations' and the other relations' sources' (float32
// [num_src, F_max], PullTypedNodeRows' rows; zero rows for the rest).
Status FillTypedInputRows(DistGraphClient* client, const BlockInputOptions& o, const std::vector<char>& aggregated,
                          MiniBatch* mb) {
  const Block& b0 = mb->blocks[0];
  std::vector<char> need(static_cast<size_t>(b0.num_src), 0);
  std::fill(need.begin(), need.begin() + b0.num_dst, 1);
  for (size_t e = 0; e < b0.indices.size(); ++e)
    if (!aggregated[b0.etypes[e]]) need[b0.indices[e]] = 1;
  std::vector<int64_t> ids, pos;
  for (int64_t i = 0; i < b0.num_src; ++i)
    if (need[i]) {
      ids.push_back(mb->input_nodes[i]);
      pos.push_back(i);
    }
  DG_ASSIGN_OR_RETURN(Array rows, PullTypedNodeRows(client, "features", ids, o.wire));
  DG_ASSIGN_OR_RETURN(Array x, Array::TryZeros(DType::kFloat32, {b0.num_src, rows.shape[1]}, "batch input rows"));
  const size_t rb = rows.row_bytes();
  for (size_t k = 0; k < pos.size(); ++k)
    std::memcpy(static_cast<uint8_t*>(x.data) + pos[k] * rb, static_cast<const uint8_t*>(rows.data) + k * rb, rb);
  mb->features = std::move(x);
  return Status::OK();
}

// A typed block 0 aggregated per relation (see FillBlockInput in the header):
// the sums go out first, the rows are pulled while they are in flight.
Status FillTypedAggregated(DistGraphClient* client, const BlockInputOptions& o, MiniBatch* mb) {
  const PartitionConfig& c = client->config();
  const Block& b0 = mb->blocks[0];
  if (b0.etypes.size() != b0.indices.size() || static_cast<int64_t>(mb->input_nodes.size()) != b0.num_src)
    return Status::InvalidArgument("FillBlockInput: block 0 of a typed batch without an edge type per edge");
  for (int64_t r : b0.etypes)
    if (r < 0 || r >= static_cast<int64_t>(c.edge_types.size()))
      return Status::InvalidArgument("FillBlockInput: edge type " + std::to_string(r) + " is not one of the " +
                                     std::to_string(c.edge_types.size()) + " of " + c.path);
  std::vector<std::unique_ptr<TypedRelationSums>> sums;
  Status st = SendTypedSums(client, o, *mb, &sums);
  std::vector<char> aggregated(c.edge_types.size(), 0);
  for (const auto& s : sums) aggregated[s->relation] = 1;
  if (st.ok()) st = FillTypedInputRows(client, o, aggregated, mb);
  const auto deadline = client->CallDeadline();
  for (auto& s : sums)  // every answer waited for, so none outlives this call
    if (s->split) st = ReceiveSumPieces(s->split->sent, s->o, s->cols, s->sums.as<float>(), deadline, st);
  DG_RETURN_IF_ERROR(st);
  int64_t groups = 0;
  for (const auto& s : sums) groups += static_cast<int64_t>(s->deg.size());
  const int64_t F = mb->features.shape[1];
  DG_ASSIGN_OR_RETURN(Array mean, Array::TryZeros(DType::kFloat32, {groups, F}, "batch input means"));
  float* out = mean.as<float>();
  for (const auto& s : sums)
    for (size_t i = 0; i < s->deg.size(); ++i, out += F) {
      const float inv = s->deg[i] > 1 ? 1.0f / static_cast<float>(s->deg[i]) : 1.0f;
      const float* row = s->sums.as<float>() + static_cast<int64_t>(i) * s->cols;
      for (int64_t j = 0; j < s->cols; ++j) out[j] = s->deg[i] > 1 ? row[j] * inv : row[j];
    }
  mb->input_neigh_mean = std::move(mean);
  return Status::OK();
}

}  // namespace

std::vector<int> TypedAggregatedRelations(const PartitionConfig& c) {
  std::vector<int> out;
  for (int r = 0; r < static_cast<int>(c.edge_types.size()); ++r) {
    auto it = c.node_data.find(c.node_types[c.edge_types[r].src_type] + "/features");
    if (it != c.node_data.end() && it->second.dtype == DType::kFloat32 && it->second.shape.size() == 2 &&
        it->second.shape[1] > 0)
      out.push_back(r);
  }
  return out;
}

Status FillBlockInput(DistGraphClient* client, const BlockInputOptions& o, MiniBatch* mb) {
  if (mb->blocks.empty()) return Status::InvalidArgument("FillBlockInput: a batch without blocks");
  if (client->config().typed() && o.feature_name == "features") {  // rows by type, none aggregated
    if (o.aggregate) return FillTypedAggregated(client, o, mb);
    DG_ASSIGN_OR_RETURN(mb->features, PullTypedNodeRows(client, o.feature_name, mb->input_nodes, o.wire));
    return Status::OK();
  }
  const PartitionConfig& config = client->config();
  auto info = config.node_data.find(o.feature_name);
  if (info == config.node_data.end() || info->second.shape.size() != 2)
    return Status::InvalidArgument("FillBlockInput: no float32 [N, F] node array '" + o.feature_name + "'");
  const int64_t F = info->second.shape[1];
  const Block& b0 = mb->blocks[0];
  const int64_t num_rows = o.aggregate ? b0.num_dst : static_cast<int64_t>(mb->input_nodes.size());
  const int64_t chunk = std::max<int64_t>(1, o.max_dst_per_request);
  // Remote pieces go out at once; machine-local ones are computed while those are in flight.
  BlockPieces cut(client, o, *mb, F);
  for (int64_t a = 0; a < num_rows; a += chunk) cut.Cut(a, std::min(num_rows, a + chunk));
  DG_ASSIGN_OR_RETURN(Array x, Array::TryUninitialized(DType::kFloat32, {num_rows, F}, "batch input rows"));
  Array neigh;
  if (o.aggregate) {
    DG_ASSIGN_OR_RETURN(neigh, Array::TryZeros(DType::kFloat32, {num_rows, F}, "batch input sums"));
  }
  float* xp = x.as<float>();
  float* np = o.aggregate ? neigh.as<float>() : nullptr;
  for (const auto& [pos, row] : cut.cached_rows) {  // as the wire would give them
    float* out = xp + pos * F;
    std::memcpy(out, row, static_cast<size_t>(F) * 4);
    RoundLikeWire(o.wire, out, F);
  }
  cut.CountCache();
  for (Piece& pc : cut.pieces) {  // machine-local partitions
    if (!HasWork(pc) || pc.call) continue;
    const PullBlockIds& ids = *pc.ids;
    std::vector<int64_t> sums_pos(ids.counts.size());
    for (size_t i = 0; i < sums_pos.size(); ++i) sums_pos[i] = pc.dst_begin + static_cast<int64_t>(i);
    DG_RETURN_IF_ERROR(AddPullBlock(*client->local_store(pc.part), o.feature_name, ids.rows.data(),
                                    static_cast<int64_t>(ids.rows.size()), pc.row_pos.data(), ids.counts.data(),
                                    static_cast<int64_t>(ids.counts.size()), ids.src.data(),
                                    static_cast<int64_t>(ids.src.size()), xp, np, sums_pos.data()));
  }
  const auto deadline = client->CallDeadline();
  Status first_error;
  // Remote answers in piece order (range, then partition): the partial sums add
  // up in a fixed order (machine-local ones first).
  for (Piece& pc : cut.pieces) {
    for (size_t c = 0; first_error.ok() && c < pc.cached_pos.size(); ++c) {  // no other partial of these from this partition
      float* out = np + pc.cached_pos[c] * F;
      const float* v = pc.cached_sums.data() + static_cast<int64_t>(c) * F;
      for (int64_t j = 0; j < F; ++j) out[j] += v[j];
    }
    if (!HasWork(pc) || !pc.call) continue;  // machine-local: done above
    auto f = pc.call->Wait(deadline);
    if (!first_error.ok()) continue;
    Status st = f.ok() ? ApplyPullBlockReply(pc, *f, o, F, xp, np) : f.status();
    if (!st.ok()) first_error = st;
  }
  DG_RETURN_IF_ERROR(first_error);
  if (o.aggregate) DivideByDegree(b0, num_rows, F, np);
  mb->features = std::move(x);
  mb->input_neigh_mean = std::move(neigh);
  return Status::OK();
}

Result<MiniBatch> SampleBlockInput(DistGraphClient* client, NeighborSource* source, const BlockInputOptions& o,
                                   const std::vector<int64_t>& seeds, const MiniBatchOptions& options,
                                   uint64_t job_seed, int64_t epoch, int64_t batch_index) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  MiniBatch mb;
  std::vector<int64_t> dst;  // block 0's destinations
  DG_RETURN_IF_ERROR(SampleBlocksDownTo(source, seeds, options, job_seed, epoch, batch_index, 1, &mb, &dst));
  if (!options.label_name.empty()) {
    DG_ASSIGN_OR_RETURN(mb.labels, source->Gather(options.label_name, mb.seeds));
  }
  const auto t1 = Clock::now();
  SampleSpec block0;  // uniform, no edge ids: what SAMPLE_BLOCK samples
  block0.fanout = options.fanouts[0];
  block0.replace = options.replace;
  block0.seed = SamplingSeed(job_seed, epoch, batch_index, 0);
  DG_RETURN_IF_ERROR(FillSampledBlock(client, o, block0, dst, &mb));
  mb.sample_seconds = std::chrono::duration<double>(t1 - t0).count();
  mb.gather_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  return mb;
}

Result<MiniBatch> SampleBlock0WithHistory(DistGraphClient* client, const BlockInputOptions& o,
                                          const std::vector<int64_t>& dst, const MiniBatchOptions& options,
                                          uint64_t job_seed, int64_t epoch, int64_t batch_index,
                                          const BlockHistoryRead& history, BlockHistoryHits* hits) {
  if (options.fanouts.size() != 1 || history.candidate.size() != dst.size() || history.width < 1)
    return Status::Internal("SampleBlock0WithHistory: one fanout, a candidate flag per destination and a width");
  const auto t0 = std::chrono::steady_clock::now();
  SampleSpec block0;  // SampleBlockInput's
  block0.fanout = options.fanouts[0];
  block0.replace = options.replace;
  block0.seed = SamplingSeed(job_seed, epoch, batch_index, 0);
  *hits = BlockHistoryHits();
  MiniBatch mb;
  mb.blocks.resize(1);
  DG_RETURN_IF_ERROR(FillSampledBlock(client, o, block0, dst, &mb, &history, hits));
  mb.seeds = mb.input_nodes;
  mb.gather_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return mb;
}

BlockInputProvider::BlockInputProvider(DistGraphClient* client, NeighborSource* source, BlockInputOptions options,
                                       int workers, int prefetch, std::string label_name)
    : client_(client),
      source_(source),
      options_(std::move(options)),
      label_name_(std::move(label_name)),
      batches_(workers, prefetch) {}

Status BlockInputProvider::BeginEpoch(const EpochRequest& request) {
  MiniBatchOptions opts;
  opts.fanouts = request.fanouts;
  opts.replace = request.replace;
  opts.feature_name = "";  // FillBlockInput fetches the input rows
  opts.label_name = request.labels ? label_name_ : "";
  opts.owner_offsets = source_->owner_offsets();
  return batches_.Begin(request, [this, opts, job_seed = request.job_seed, epoch = request.epoch](
                                     int64_t b, const std::vector<int64_t>& seeds) -> Result<MiniBatch> {
    return SampleWithBlockInput(client_, source_, options_, seeds, opts, job_seed, epoch, b);
  });
}

Result<MiniBatch> SampleWithBlockInput(DistGraphClient* client, NeighborSource* source, const BlockInputOptions& o,
                                       const std::vector<int64_t>& seeds, const MiniBatchOptions& options,
                                       uint64_t job_seed, int64_t epoch, int64_t batch_index) {
  if (o.aggregate && o.sample_at_owner && !client->config().typed())
    return SampleBlockInput(client, source, o, seeds, options, job_seed, epoch, batch_index);
  DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(source, seeds, options, job_seed, epoch, batch_index));
  const auto t0 = std::chrono::steady_clock::now();
  DG_RETURN_IF_ERROR(FillBlockInput(client, o, &mb));
  mb.gather_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return mb;
}

Result<bool> BlockInputProvider::Next(MiniBatch* out) { return batches_.Next(out); }

std::unique_ptr<BatchProvider> MakeNodeBatchMaker(DistGraphClient* client, NeighborSource* source,
                                                  const BatchInput& input, const std::string& feature_name,
                                                  int workers, int prefetch) {
  if (!input.pulls_blocks() || feature_name.empty())
    return std::make_unique<LocalBatchProvider>(source, std::max(1, workers), prefetch, feature_name);
  BlockInputOptions o;
  o.feature_name = feature_name;
  o.aggregate = input.aggregate;
  o.wire = input.wire;
  return std::make_unique<BlockInputProvider>(client, source, o, std::max(2, workers), prefetch);
}

}  // namespace dg
