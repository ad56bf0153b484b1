#include "common/client/block_input.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

#include "common/client/feature_cache.h"
#include "common/client/typed_node_rows.h"
#include "common/net/pull_block.h"

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
  SumSplitter(DistGraphClient* client, const BlockInputOptions& o, float* neigh)
      : client_(client),
        o_(o),
        neigh_(neigh),
        cache_(CacheFor(client, o)),
        open_(static_cast<size_t>(client->config().num_parts)),
        all_cached_(open_.size(), 0) {}

  // Sources (global ids) of batch row pos.
  template <typename Id>
  Status Add(int64_t pos, const Id* src, int64_t n) {
    const PartitionBook& book = client_->book();
    const std::vector<int64_t>& base = client_->config().node_map;
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

// Block 0 sampled where its destinations live (SAMPLE_BLOCK): the input rows,
// the mean of each destination's sampled sources and block 0 as sampled
// degrees (see SampleBlockInput in the header).
Status FillSampledBlock(DistGraphClient* client, const BlockInputOptions& o, int fanout, bool replace, uint64_t seed,
                        const std::vector<int64_t>& dst, MiniBatch* mb) {
  const PartitionConfig& config = client->config();
  auto info = config.node_data.find(o.feature_name);
  if (info == config.node_data.end() || info->second.shape.size() != 2)
    return Status::InvalidArgument("SampleBlockInput: no float32 [N, F] node array '" + o.feature_name + "'");
  const int64_t F = info->second.shape[1], n = static_cast<int64_t>(dst.size());
  const PartitionBook& book = client->book();
  const std::vector<int64_t>& base = config.node_map;
  const int P = config.num_parts;
  const int64_t chunk = std::max<int64_t>(1, o.max_dst_per_request);
  DG_ASSIGN_OR_RETURN(Array x, Array::TryUninitialized(DType::kFloat32, {n, F}, "batch input rows"));
  DG_ASSIGN_OR_RETURN(Array neigh, Array::TryZeros(DType::kFloat32, {n, F}, "batch input sums"));
  float* xp = x.as<float>();
  float* np = neigh.as<float>();
  std::vector<int64_t> deg(static_cast<size_t>(n), 0);
  // Destinations by owner; the remote ones go out at once (SAMPLE_BLOCK).
  std::vector<std::vector<int64_t>> by_part(static_cast<size_t>(P));
  for (int64_t i = 0; i < n; ++i) by_part[book.Owner(dst[i])].push_back(i);
  // Own rows the feature cache holds are not asked for (ids->skip); they
  // go into the batch as the wire would give them.
  const FeatureCache* cache = CacheFor(client, o);
  uint64_t cached_rows = 0, asked_rows = 0;
  std::vector<Piece> samples;  // row_pos = batch rows of ids->rows
  for (int p = 0; p < P; ++p) {
    if (client->is_local(p)) continue;
    const std::vector<int64_t>& rows = by_part[p];
    for (size_t a = 0; a < rows.size(); a += static_cast<size_t>(chunk)) {
      Piece pc;
      pc.part = p;
      const size_t b = std::min(rows.size(), a + static_cast<size_t>(chunk));
      pc.row_pos.assign(rows.begin() + a, rows.begin() + b);
      for (int64_t i : pc.row_pos) pc.ids->rows.push_back(static_cast<int32_t>(dst[i] - base[p]));
      for (size_t j = 0; cache && j < pc.row_pos.size(); ++j) {
        const int64_t i = pc.row_pos[j];
        const float* row = cache->Find(dst[i]);
        if (!row) continue;
        pc.ids->skip.push_back(static_cast<int32_t>(j));
        std::memcpy(xp + i * F, row, static_cast<size_t>(F) * 4);
        RoundLikeWire(o.wire, xp + i * F, F);
      }
      cached_rows += pc.ids->skip.size();
      asked_rows += pc.row_pos.size() - pc.ids->skip.size();
      Encoder e;
      EncodeSampleBlock(&e, o.feature_name, o.wire, fanout, replace, seed, pc.ids);
      pc.call = client->StartRequest(p, MsgType::kSampleBlock, e.Finish());
      samples.push_back(std::move(pc));
    }
  }
  if (cache) cache->Count(cached_rows, asked_rows, cached_rows * static_cast<uint64_t>(F) * WireDTypeSize(o.wire));
  // Machine-local destinations: sampled and read from the mmap; their
  // sources summed where they live.
  SumSplitter sums(client, o, np);
  for (int p = 0; p < P; ++p) {
    if (!client->is_local(p) || by_part[p].empty()) continue;
    const PartitionStore& store = *client->local_store(p);
    const std::vector<int64_t>& rows = by_part[p];
    std::vector<int64_t> ids(rows.size());
    std::vector<int32_t> offsets(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      ids[i] = dst[rows[i]];
      offsets[i] = static_cast<int32_t>(ids[i] - base[p]);
    }
    DG_RETURN_IF_ERROR(AddPullBlock(store, o.feature_name, offsets.data(), static_cast<int64_t>(rows.size()),
                                    rows.data(), nullptr, 0, nullptr, 0, xp, nullptr, nullptr));
    SampleResult sampled;
    DG_RETURN_IF_ERROR(store.Sample(ids.data(), ids.size(), fanout, replace, seed, "", &sampled, false));
    int64_t at = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      deg[rows[i]] = sampled.counts[i];
      DG_RETURN_IF_ERROR(sums.Add(rows[i], sampled.src.data() + at, sampled.counts[i]));
      at += sampled.counts[i];
    }
  }
  DG_RETURN_IF_ERROR(sums.Flush());
  // The remote destinations' answers, in send order: their sources elsewhere
  // first (the same order of additions as FillBlockInput), then the sums of
  // the sources their owner holds.
  const auto deadline = client->CallDeadline();
  Status first_error;
  for (Piece& pc : samples) {
    auto f = pc.call->Wait(deadline);
    if (!first_error.ok()) continue;
    if (!f.ok()) {
      first_error = f.status();
      continue;
    }
    const int64_t m = static_cast<int64_t>(pc.row_pos.size());
    const std::string what = "SAMPLE_BLOCK reply of partition " + std::to_string(pc.part);
    Decoder d = f->decoder(what);
    WireRowsView own, part_sums;
    const std::vector<int32_t>& skip = pc.ids->skip;
    Status st = DecodeWireRows(&d, o.wire, m - static_cast<int64_t>(skip.size()), F, what + " (rows)", &own);
    Array own_counts, remote_counts, remote_src;
    int64_t k = 0, r = 0;
    if (st.ok()) {
      own_counts = d.ArrayView();
      st = d.status().ok() ? CheckInt32(what, "own_counts", own_counts, m) : d.status();
    }
    if (st.ok())
      for (int64_t i = 0; i < m; ++i) k += own_counts.as<int32_t>()[i] > 0;
    if (st.ok()) st = DecodeWireRows(&d, o.wire, k, F, what + " (sums)", &part_sums);
    if (st.ok()) {
      remote_counts = d.ArrayView();
      st = d.status().ok() ? CheckInt32(what, "remote_counts", remote_counts, m) : d.status();
    }
    if (st.ok()) {
      remote_src = d.ArrayView();
      st = d.Finish();
    }
    for (int64_t i = 0; st.ok() && i < m; ++i) {
      const int32_t a = own_counts.as<int32_t>()[i], b = remote_counts.as<int32_t>()[i];
      if (a < 0 || b < 0) st = Status::InvalidArgument(what + ": a negative count");
      r += b;
    }
    if (st.ok() && ((remote_src.dtype != DType::kInt32 && remote_src.dtype != DType::kInt64) ||
                    remote_src.shape != std::vector<int64_t>{r}))
      st = Status::InvalidArgument(what + ": remote_src is " + std::string(DTypeName(remote_src.dtype)) + " " +
                                   remote_src.ShapeString() + ", expected " + std::to_string(r) + " ids");
    if (st.ok()) {  // every id a node of the graph
      for (int64_t t = 0; t < r; ++t) {
        const int64_t s = remote_src.dtype == DType::kInt32 ? remote_src.as<int32_t>()[t] : remote_src.as<int64_t>()[t];
        if (s < 0 || s >= config.num_nodes) {
          st = Status::InvalidArgument(what + ": source id " + std::to_string(s) + " is not a node of the graph");
          break;
        }
      }
    }
    if (!st.ok()) {
      first_error = st;
      continue;
    }
    int64_t at = 0;
    for (int64_t i = 0, sent = 0, sk = 0; i < m && st.ok(); ++i) {
      const int64_t row = pc.row_pos[i];
      if (sk < static_cast<int64_t>(skip.size()) && skip[sk] == i) ++sk;  // from the cache, above
      else own.Row(sent++, xp + row * F);
      const int32_t b = remote_counts.as<int32_t>()[i];
      deg[row] = own_counts.as<int32_t>()[i] + b;
      st = remote_src.dtype == DType::kInt32 ? sums.Add(row, remote_src.as<int32_t>() + at, b)
                                             : sums.Add(row, remote_src.as<int64_t>() + at, b);
      at += b;
    }
    if (st.ok()) st = sums.Flush();
    if (!st.ok()) {
      first_error = st;
      continue;
    }
    int64_t s = 0;
    for (int64_t i = 0; i < m; ++i)
      if (own_counts.as<int32_t>()[i] > 0) part_sums.AddRow(s++, np + pc.row_pos[i] * F);
  }
  // The sums of sources on remote partitions, in send order.
  for (SumPiece& pc : sums.sent) {
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
  DG_RETURN_IF_ERROR(first_error);
  // Means, and block 0 as the sampled degrees: each edge points at its
  // destination (the sources stay where they live).
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
  mb->blocks[0] = std::move(b0);
  mb->input_nodes = dst;
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

Status FillBlockInput(DistGraphClient* client, const BlockInputOptions& o, MiniBatch* mb) {
  if (mb->blocks.empty()) return Status::InvalidArgument("FillBlockInput: a batch without blocks");
  if (client->config().typed() && o.feature_name == "features") {  // rows by type, none aggregated
    if (o.aggregate) return Status::InvalidArgument("FillBlockInput: block 0 of a typed partition is not aggregated");
    DG_ASSIGN_OR_RETURN(mb->features, PullTypedNodeRows(client, o.feature_name, mb->input_nodes, o.wire));
    return Status::OK();
  }
  const PartitionConfig& config = client->config();
  auto info = config.node_data.find(o.feature_name);
  if (info == config.node_data.end() || info->second.shape.size() != 2)
    return Status::InvalidArgument("FillBlockInput: no float32 [N, F] node array '" + o.feature_name + "'");
  const int64_t F = info->second.shape[1];
  const Block& b0 = mb->blocks[0];
  const std::vector<int64_t>& nodes = mb->input_nodes;
  const int64_t num_rows = o.aggregate ? b0.num_dst : static_cast<int64_t>(nodes.size());
  const int P = config.num_parts;
  const PartitionBook& book = client->book();
  const std::vector<int64_t>& base = config.node_map;
  const int64_t chunk = std::max<int64_t>(1, o.max_dst_per_request);

  // Cut the batch into pieces (range x partition), send the remote ones at
  // once, compute the machine-local ones while those are in flight. Rows
  // and per-partition sums the feature cache holds do not travel.
  const FeatureCache* cache = CacheFor(client, o);
  std::vector<std::pair<int64_t, const float*>> cached_rows;  // (batch row, cached row)
  std::vector<char> all_cached(static_cast<size_t>(P), 0);
  std::vector<int64_t> src_ids;
  uint64_t hits = 0, misses = 0, saved = 0;
  std::vector<Piece> pieces;
  const int64_t* indptr = b0.indptr.data();
  const int64_t* indices = b0.indices.data();
  for (int64_t a = 0; a < num_rows; a += chunk) {
    const int64_t b = std::min(num_rows, a + chunk);
    const size_t first = pieces.size();
    for (int p = 0; p < P; ++p) {
      Piece pc;
      pc.part = p;
      pc.dst_begin = a;
      if (o.aggregate) pc.ids->counts.assign(static_cast<size_t>(b - a), 0);
      pieces.push_back(std::move(pc));
    }
    for (int64_t i = a; i < b; ++i) {
      const int p = book.Owner(nodes[i]);
      const float* row = cache && !client->is_local(p) ? cache->Find(nodes[i]) : nullptr;
      if (row) {
        cached_rows.emplace_back(i, row);
      } else {
        Piece& own = pieces[first + p];
        own.ids->rows.push_back(static_cast<int32_t>(nodes[i] - base[p]));
        own.row_pos.push_back(i);
        misses += !client->is_local(p) && cache;
      }
      if (!o.aggregate) continue;
      if (cache) {
        src_ids.clear();
        for (int64_t e = indptr[i]; e < indptr[i + 1]; ++e) src_ids.push_back(nodes[indices[e]]);
        AllCached(client, *cache, src_ids.data(), static_cast<int64_t>(src_ids.size()), &all_cached);
        for (int q = 0; q < P; ++q) {
          if (!all_cached[q]) continue;
          Piece& pc = pieces[first + q];
          pc.cached_pos.push_back(i);
          pc.cached_sums.resize(pc.cached_sums.size() + static_cast<size_t>(F), 0.0f);
        }
      }
      for (int64_t e = indptr[i]; e < indptr[i + 1]; ++e) {
        const int64_t s = nodes[indices[e]];
        const int q = book.Owner(s);
        Piece& pc = pieces[first + q];
        if (cache && all_cached[q]) {
          SumCached(*cache, &s, 1, pc.cached_sums.data() + pc.cached_sums.size() - F);
          continue;
        }
        ++pc.ids->counts[i - a];
        pc.ids->src.push_back(static_cast<int32_t>(s - base[q]));
      }
    }
    for (size_t k = first; k < pieces.size(); ++k) {
      Piece& pc = pieces[k];
      if (cache && !client->is_local(pc.part)) {
        const uint64_t cached = pc.cached_pos.size();
        hits += cached;
        misses += std::count_if(pc.ids->counts.begin(), pc.ids->counts.end(), [](int32_t c) { return c > 0; });
        saved += cached * static_cast<uint64_t>(F) * WireDTypeSize(o.wire);
        RoundLikeWire(o.wire, pc.cached_sums.data(), static_cast<int64_t>(pc.cached_sums.size()));
      }
      if (!HasWork(pc) || client->is_local(pc.part)) continue;
      Encoder e;
      EncodePullBlock(&e, o.feature_name, o.wire, pc.ids);
      pc.call = client->StartRequest(pc.part, MsgType::kPullBlock, e.Finish());
    }
  }
  DG_ASSIGN_OR_RETURN(Array x, Array::TryUninitialized(DType::kFloat32, {num_rows, F}, "batch input rows"));
  Array neigh;
  if (o.aggregate) {
    DG_ASSIGN_OR_RETURN(neigh, Array::TryZeros(DType::kFloat32, {num_rows, F}, "batch input sums"));
  }
  float* xp = x.as<float>();
  float* np = o.aggregate ? neigh.as<float>() : nullptr;
  for (const auto& [pos, row] : cached_rows) {  // as the wire would give them
    float* out = xp + pos * F;
    std::memcpy(out, row, static_cast<size_t>(F) * 4);
    RoundLikeWire(o.wire, out, F);
  }
  if (cache) cache->Count(hits + cached_rows.size(), misses, saved + cached_rows.size() * F * WireDTypeSize(o.wire));
  // Machine-local partitions while the remote answers are on their way.
  for (Piece& pc : pieces) {
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
  for (Piece& pc : pieces) {
    for (size_t c = 0; first_error.ok() && c < pc.cached_pos.size(); ++c) {  // no other partial of these from this partition
      float* out = np + pc.cached_pos[c] * F;
      const float* v = pc.cached_sums.data() + static_cast<int64_t>(c) * F;
      for (int64_t j = 0; j < F; ++j) out[j] += v[j];
    }
    if (!HasWork(pc)) continue;
    const int64_t r = static_cast<int64_t>(pc.ids->rows.size());
    const std::vector<int32_t>& counts = pc.ids->counts;
    if (!pc.call) continue;  // machine-local: done above
    auto f = pc.call->Wait(deadline);
    if (!f.ok()) {
      if (first_error.ok()) first_error = f.status();
      continue;
    }
    if (!first_error.ok()) continue;
    const int64_t k = std::count_if(counts.begin(), counts.end(), [](int32_t c) { return c > 0; });
    const std::string what = "PULL_BLOCK reply of partition " + std::to_string(pc.part);
    Decoder d = f->decoder(what);
    WireRowsView own, sums;
    Status st = DecodeWireRows(&d, o.wire, r, F, what + " (rows)", &own);
    if (st.ok()) st = DecodeWireRows(&d, o.wire, k, F, what + " (sums)", &sums);
    if (st.ok()) st = d.Finish();
    if (!st.ok()) {
      first_error = st;
      continue;
    }
    for (int64_t i = 0; i < r; ++i) own.Row(i, xp + pc.row_pos[i] * F);
    int64_t at = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] == 0) continue;
      sums.AddRow(at++, np + (pc.dst_begin + static_cast<int64_t>(i)) * F);
    }
  }
  DG_RETURN_IF_ERROR(first_error);
  if (o.aggregate) {  // mean over the sampled sources (multi-edges counted)
    for (int64_t i = 0; i < num_rows; ++i) {
      const int64_t deg = indptr[i + 1] - indptr[i];
      if (deg <= 1) continue;
      const float inv = 1.0f / static_cast<float>(deg);
      float* row = np + i * F;
      for (int64_t j = 0; j < F; ++j) row[j] *= inv;
    }
  }
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
  DG_RETURN_IF_ERROR(FillSampledBlock(client, o, options.fanouts[0], options.replace,
                                      SamplingSeed(job_seed, epoch, batch_index, 0), dst, &mb));
  mb.sample_seconds = std::chrono::duration<double>(t1 - t0).count();
  mb.gather_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
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
    if (options_.aggregate && options_.sample_at_owner)
      return SampleBlockInput(client_, source_, options_, seeds, opts, job_seed, epoch, b);
    DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(source_, seeds, opts, job_seed, epoch, b));
    const auto t0 = std::chrono::steady_clock::now();
    DG_RETURN_IF_ERROR(FillBlockInput(client_, options_, &mb));
    mb.gather_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return mb;
  });
}

Result<bool> BlockInputProvider::Next(MiniBatch* out) { return batches_.Next(out); }

}  // namespace dg
