#include "common/client/block_input.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

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
};

bool HasWork(const Piece& pc) { return !pc.ids->rows.empty() || !pc.ids->src.empty(); }

}  // namespace

Status CheckBlockInput(const PartitionConfig& config, const std::string& feature_name) {
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
  // once, compute the machine-local ones while those are in flight.
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
      Piece& own = pieces[first + p];
      own.ids->rows.push_back(static_cast<int32_t>(nodes[i] - base[p]));
      own.row_pos.push_back(i);
      if (!o.aggregate) continue;
      for (int64_t e = indptr[i]; e < indptr[i + 1]; ++e) {
        const int64_t s = nodes[indices[e]];
        const int q = book.Owner(s);
        Piece& pc = pieces[first + q];
        ++pc.ids->counts[i - a];
        pc.ids->src.push_back(static_cast<int32_t>(s - base[q]));
      }
    }
    for (size_t k = first; k < pieces.size(); ++k) {
      Piece& pc = pieces[k];
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
  // Machine-local partitions while the remote answers are on their way.
  for (Piece& pc : pieces) {
    if (!HasWork(pc) || pc.call) continue;
    const PullBlockIds& ids = *pc.ids;
    DG_RETURN_IF_ERROR(AddPullBlock(*client->local_store(pc.part), o.feature_name, ids.rows.data(),
                                    static_cast<int64_t>(ids.rows.size()), pc.row_pos.data(), ids.counts.data(),
                                    static_cast<int64_t>(ids.counts.size()), ids.src.data(),
                                    static_cast<int64_t>(ids.src.size()), xp, np, pc.dst_begin));
  }
  const auto deadline = client->CallDeadline();
  Status first_error;
  // Remote answers in piece order (range, then partition): the partial sums add
  // up in a fixed order (machine-local ones first).
  for (Piece& pc : pieces) {
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
    DG_ASSIGN_OR_RETURN(MiniBatch mb, SampleMiniBatch(source_, seeds, opts, job_seed, epoch, b));
    const auto t0 = std::chrono::steady_clock::now();
    DG_RETURN_IF_ERROR(FillBlockInput(client_, options_, &mb));
    mb.gather_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return mb;
  });
}

Result<bool> BlockInputProvider::Next(MiniBatch* out) { return batches_.Next(out); }

}  // namespace dg
