#include "common/sampling/edge_batch.h"

#include <algorithm>
#include <chrono>

#include "common/sampling/id_map.h"
#include "common/storage/neighbor_sampling.h"

namespace dg {

void EdgeTable::AddCsr(int64_t first_edge, int64_t first_node, const int64_t* indptr, int64_t rows,
                       const int64_t* indices) {
  Range r;
  r.first = first_edge;
  const int64_t base = indptr[0], n = indptr[rows] - base;
  r.src.assign(indices + base, indices + base + n);
  r.dst.resize(static_cast<size_t>(n));
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t e = indptr[row]; e < indptr[row + 1]; ++e) r.dst[e - base] = first_node + row;
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), first_edge,
                             [](int64_t v, const Range& x) { return v < x.first; });
  ranges_.insert(it, std::move(r));
}

Status EdgeTable::Pair(int64_t gid, int64_t* src, int64_t* dst) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), gid,
                             [](int64_t v, const Range& x) { return v < x.first; });
  if (it != ranges_.begin()) {
    --it;
    const int64_t k = gid - it->first;
    if (k < static_cast<int64_t>(it->src.size())) {
      *src = it->src[k];
      *dst = it->dst[k];
      return Status::OK();
    }
  }
  return Status::InvalidArgument("edge id " + std::to_string(gid) + " is not in this process's edge table");
}

int64_t EdgeTable::num_edges() const {
  int64_t n = 0;
  for (const auto& r : ranges_) n += static_cast<int64_t>(r.src.size());
  return n;
}

std::vector<int64_t> EdgeTable::EdgeIds() const {
  std::vector<int64_t> ids;
  for (const auto& r : ranges_)
    for (size_t k = 0; k < r.src.size(); ++k) ids.push_back(r.first + static_cast<int64_t>(k));
  return ids;
}

void EdgeTable::AddPairs(int64_t first_edge, std::vector<int64_t> src, std::vector<int64_t> dst) {
  Range r;
  r.first = first_edge;
  r.src = std::move(src);
  r.dst = std::move(dst);
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), first_edge,
                             [](int64_t v, const Range& x) { return v < x.first; });
  ranges_.insert(it, std::move(r));
}

ExcludingSource::ExcludingSource(NeighborSource* inner, std::vector<std::pair<int64_t, int64_t>> pairs,
                                 std::vector<TypedEdge> typed)
    : inner_(inner), pairs_(std::move(pairs)), typed_(std::move(typed)) {
  std::sort(pairs_.begin(), pairs_.end());
  pairs_.erase(std::unique(pairs_.begin(), pairs_.end()), pairs_.end());
  std::sort(typed_.begin(), typed_.end());
  typed_.erase(std::unique(typed_.begin(), typed_.end()), typed_.end());
}

void ExcludingSource::Filter(const std::vector<int64_t>& seeds, SampledNeighbors* out) {
  if (pairs_.empty() && typed_.empty()) return;
  const bool has_types = !out->etypes.empty();
  int64_t w = 0;
  for (size_t i = 0; i < seeds.size(); ++i) {
    const int64_t begin = out->indptr[i], end = out->indptr[i + 1];
    out->indptr[i] = w;
    for (int64_t e = begin; e < end; ++e) {
      const int64_t s = out->sources[e];
      const bool drop =
          std::binary_search(pairs_.begin(), pairs_.end(), std::make_pair(s, seeds[i])) ||
          (has_types && std::binary_search(typed_.begin(), typed_.end(), TypedEdge(s, seeds[i], out->etypes[e])));
      if (drop) {
        ++dropped_;
        continue;
      }
      if (has_types) out->etypes[w] = out->etypes[e];
      out->sources[w++] = s;
    }
  }
  out->indptr[seeds.size()] = w;
  out->sources.resize(static_cast<size_t>(w));
  if (has_types) out->etypes.resize(static_cast<size_t>(w));
}

Status ExcludingSource::SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec,
                                        SampledNeighbors* out) {
  DG_RETURN_IF_ERROR(inner_->SampleNeighbors(seeds, spec, out));
  Filter(seeds, out);
  return Status::OK();
}

Result<MiniBatch> SampleLinkBatch(NeighborSource* source, const std::vector<int64_t>& pos_src,
                                  const std::vector<int64_t>& pos_dst, const LinkBatchOptions& options,
                                  uint64_t job_seed, int64_t epoch, int64_t batch_index) {
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  if (pos_src.size() != pos_dst.size()) return Status::InvalidArgument("link batch: src and dst differ in length");
  if (options.negatives < 0) return Status::InvalidArgument("negative.k must be >= 0");
  if (options.negatives > 0 && !options.sampler) return Status::InvalidArgument("link batch: no negative sampler");
  const int64_t P = static_cast<int64_t>(pos_src.size()), K = options.negatives;
  std::vector<int64_t> neg(static_cast<size_t>(P * K));
  Rng rng(SamplingSeed(job_seed, epoch, batch_index, 15));
  if (options.negative_ranges.empty())
    for (auto& v : neg) v = options.sampler->Draw(rng) + options.negative_offset;
  else
    for (auto& v : neg) v = NthInRanges(options.negative_ranges, options.sampler->Draw(rng));
  // Seeds: distinct endpoints in order of first appearance.
  std::vector<int64_t> seeds;
  IdMap pos_of(static_cast<size_t>(2 * P + P * K));
  bool inserted = false;
  auto position = [&](int64_t gid) {
    const int64_t at = pos_of.Insert(gid, static_cast<int64_t>(seeds.size()), &inserted);
    if (inserted) seeds.push_back(gid);
    return at;
  };
  Array labels = Array::Zeros(DType::kInt64, {P * (1 + K), 3});
  int64_t* l = labels.as<int64_t>();
  std::vector<int64_t> src_pos(P);
  for (int64_t i = 0; i < P; ++i) src_pos[i] = position(pos_src[i]);
  for (int64_t i = 0; i < P; ++i) {
    l[3 * i] = src_pos[i];
    l[3 * i + 1] = position(pos_dst[i]);
    l[3 * i + 2] = 1;
  }
  for (int64_t i = 0; i < P; ++i)
    for (int64_t j = 0; j < K; ++j) {
      int64_t* row = l + 3 * (P + i * K + j);
      row[0] = src_pos[i];
      row[1] = position(neg[i * K + j]);
      row[2] = 0;
    }
  std::vector<std::pair<int64_t, int64_t>> excluded;
  std::vector<ExcludingSource::TypedEdge> excluded_typed;
  if (options.exclude && options.positive_etype >= 0) {
    const bool reverse = options.exclude_reverse && options.reverse_etype >= 0;
    excluded_typed.reserve(static_cast<size_t>(P * (reverse ? 2 : 1)));
    for (int64_t i = 0; i < P; ++i) {
      excluded_typed.emplace_back(pos_src[i], pos_dst[i], options.positive_etype);
      if (reverse) excluded_typed.emplace_back(pos_dst[i], pos_src[i], options.reverse_etype);
    }
  } else if (options.exclude) {
    excluded.reserve(static_cast<size_t>(P * (options.exclude_reverse ? 2 : 1)));
    for (int64_t i = 0; i < P; ++i) {
      excluded.emplace_back(pos_src[i], pos_dst[i]);
      if (options.exclude_reverse) excluded.emplace_back(pos_dst[i], pos_src[i]);
    }
  }
  ExcludingSource filtered(source, std::move(excluded), std::move(excluded_typed));
  MiniBatchOptions mo;
  mo.fanouts = options.fanouts;
  mo.replace = options.replace;
  mo.feature_name = options.feature_name;
  mo.label_name = "";
  DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(&filtered, seeds, mo, job_seed, epoch, batch_index));
  mb.labels = std::move(labels);
  mb.sample_seconds = std::chrono::duration<double>(Clock::now() - t0).count() - mb.gather_seconds;
  return mb;
}

LinkBatchProvider::LinkBatchProvider(NeighborSource* source, const EdgeTable* edges, LinkBatchOptions options,
                                     int workers, int prefetch)
    : source_(source), edges_(edges), options_(std::move(options)), batches_(workers, prefetch) {}

Status LinkBatchProvider::BeginEpoch(const EpochRequest& request) {
  LinkBatchOptions opts = options_;
  opts.fanouts = request.fanouts;
  opts.replace = request.replace;
  return batches_.Begin(request, [this, opts, job_seed = request.job_seed, epoch = request.epoch](
                                     int64_t b, const std::vector<int64_t>& ids) -> Result<MiniBatch> {
    std::vector<int64_t> src(ids.size()), dst(ids.size());
    Status st;
    for (size_t i = 0; i < ids.size() && st.ok(); ++i) st = edges_->Pair(ids[i], &src[i], &dst[i]);
    if (!st.ok()) return st;
    return SampleLinkBatch(source_, src, dst, opts, job_seed, epoch, b);
  });
}

Result<bool> LinkBatchProvider::Next(MiniBatch* out) { return batches_.Next(out); }

}  // namespace dg
