#include "common/sampling/minibatch_codec.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace dg {
namespace {

constexpr uint32_t kMaxLayers = 64;

// A block's ids as a view of the frame's payload (no copy); empty after a
// failed decode (the Decoder holds the error).
IdBuffer ViewIds(const Array& ids) {
  if (ids.data == nullptr || ids.shape.size() != 1) return IdBuffer();
  return IdBuffer::View(static_cast<int64_t*>(ids.data), static_cast<size_t>(ids.numel()), ids.holder);
}

std::vector<int64_t> ToVector(const Array& ids) {
  if (ids.data == nullptr || ids.shape.size() != 1) return {};  // a failed decode (the Decoder holds the error), not one id
  std::vector<int64_t> v(static_cast<size_t>(ids.numel()));
  if (!v.empty()) std::memcpy(v.data(), ids.data, v.size() * sizeof(int64_t));
  return v;
}

// Arrays may be absent (features/labels not gathered): u8 present, then the array.
void OptionalArray(Encoder* e, const Array& a) {
  const bool present = a.data != nullptr || !a.shape.empty();
  e->Bool(present);
  if (present) e->ArrayRef(a);
}
Array DecodeOptionalArray(Decoder* d) { return d->Bool() ? d->ArrayView() : Array(); }

}  // namespace

BufferList EncodeEpoch(const EpochRequest& r, uint32_t credits) {
  Encoder e;
  e.I64(r.epoch);
  e.Ids(r.seeds.data(), r.seeds.size());
  e.I64(r.batch_size);
  e.Bool(r.shuffle);
  e.U32(static_cast<uint32_t>(r.fanouts.size()));
  for (int f : r.fanouts) e.I32(f);
  e.Bool(r.replace);
  e.Bool(r.labels);
  e.U64(r.job_seed);
  e.I64(r.batch_offset);
  e.I64(r.batch_stride);
  e.U32(credits);
  e.Bool(r.link);
  return e.Finish();
}

Status DecodeEpoch(const Frame& f, EpochRequest* r, uint32_t* credits) {
  Decoder d = f.decoder("EPOCH");
  r->epoch = d.I64();
  r->seeds = ToVector(d.Ids());
  r->batch_size = d.I64();
  r->shuffle = d.Bool();
  uint32_t layers = d.U32();
  if (layers > kMaxLayers) d.Fail("EPOCH: " + std::to_string(layers) + " layers");
  r->fanouts.clear();
  for (uint32_t l = 0; l < layers && d.status().ok(); ++l) r->fanouts.push_back(d.I32());
  r->replace = d.Bool();
  r->labels = d.Bool();
  r->job_seed = d.U64();
  r->batch_offset = d.I64();
  r->batch_stride = d.I64();
  *credits = d.U32();
  r->link = d.Bool();
  DG_RETURN_IF_ERROR(d.Finish());
  // Bounds a sampler relies on (loops over batches and layers).
  if (r->batch_size < 1 || r->batch_offset < 0 || r->batch_stride < 1)
    return Status::Protocol("EPOCH: batch size " + std::to_string(r->batch_size) + ", offset " +
                            std::to_string(r->batch_offset) + ", stride " + std::to_string(r->batch_stride) +
                            " (need >= 1, >= 0, >= 1)");
  for (int fo : r->fanouts)
    if (fo < -1 || fo == 0) return Status::Protocol("EPOCH: fanout " + std::to_string(fo) + " (need >= 1 or -1)");
  return Status::OK();
}

BufferList EncodeCredit(uint32_t n) {
  Encoder e;
  e.U32(n);
  return e.Finish();
}

Result<uint32_t> DecodeCredit(const Frame& f) {
  Decoder d = f.decoder("CREDIT");
  uint32_t n = d.U32();
  DG_RETURN_IF_ERROR(d.Finish());
  return n;
}

BufferList EncodeMiniBatch(MiniBatch mb) {
  // The id arrays move into the payload (the frame references them, no copy).
  Encoder e;
  e.I64(mb.epoch);
  e.I64(mb.batch_index);
  e.Ids(std::move(mb.seeds));
  e.U32(static_cast<uint32_t>(mb.blocks.size()));
  for (Block& b : mb.blocks) {
    e.I64(b.num_dst);
    e.I64(b.num_src);
    e.Ids(b.indptr.Release());
    e.Ids(b.indices.Release());
  }
  e.Ids(std::move(mb.input_nodes));
  OptionalArray(&e, mb.features);
  OptionalArray(&e, mb.labels);
  e.F64(mb.sample_seconds);
  e.F64(mb.gather_seconds);
  e.F64(mb.send_time);
  // Typed batches: the edge type of every block edge (uint8) and the node type
  // of every input node.
  const bool typed = !mb.input_ntypes.empty();
  e.Bool(typed);
  if (typed) {
    for (const Block& b : mb.blocks) {
      Array etypes = Array::Zeros(DType::kUInt8, {static_cast<int64_t>(b.etypes.size())});
      for (size_t k = 0; k < b.etypes.size(); ++k) etypes.as<uint8_t>()[k] = static_cast<uint8_t>(b.etypes[k]);
      e.ArrayRef(etypes);
    }
    e.Ids(std::move(mb.input_ntypes));
  }
  return e.Finish();
}

double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status DecodeMiniBatch(const Frame& f, MiniBatch* mb, double arrival) {
  Decoder d = f.decoder("MINIBATCH");
  mb->epoch = d.I64();
  mb->batch_index = d.I64();
  mb->seeds = ToVector(d.Ids());
  uint32_t layers = d.U32();
  if (layers > kMaxLayers) d.Fail("MINIBATCH: " + std::to_string(layers) + " blocks");
  mb->blocks.assign(d.status().ok() ? layers : 0, Block());
  for (Block& b : mb->blocks) {
    b.num_dst = d.I64();
    b.num_src = d.I64();
    b.indptr = ViewIds(d.Ids());
    b.indices = ViewIds(d.Ids());
  }
  mb->input_nodes = ToVector(d.Ids());
  mb->features = DecodeOptionalArray(&d);
  mb->labels = DecodeOptionalArray(&d);
  mb->sample_seconds = d.F64();
  mb->gather_seconds = d.F64();
  mb->send_time = d.F64();
  const bool typed = d.Bool();
  for (Block& b : mb->blocks) {
    b.etypes.clear();
    if (!typed || !d.status().ok()) continue;
    Array etypes = d.ArrayView();
    if (!d.status().ok()) break;
    if (etypes.dtype != DType::kUInt8 || etypes.shape.size() != 1) {
      d.Fail("MINIBATCH: edge types must be uint8 [num_edges]");
      break;
    }
    b.etypes.assign(etypes.as<uint8_t>(), etypes.as<uint8_t>() + etypes.numel());
  }
  mb->input_ntypes = typed ? ToVector(d.Ids()) : std::vector<int64_t>();
  mb->transfer_seconds = std::max(0.0, arrival - mb->send_time);
  if (arrival <= 0) mb->transfer_seconds = 0;
  DG_RETURN_IF_ERROR(d.Finish());
  // Structural checks: a malformed batch must not reach the model.
  for (size_t l = 0; l < mb->blocks.size(); ++l) {
    const Block& b = mb->blocks[l];
    if (b.num_dst < 0 || b.num_src < b.num_dst ||
        b.indptr.size() != static_cast<size_t>(b.num_dst) + 1 || b.indptr.front() != 0 ||
        b.indptr.back() != b.num_edges() || !std::is_sorted(b.indptr.begin(), b.indptr.end()))
      return Status::Protocol("MINIBATCH: block " + std::to_string(l) + " has an inconsistent CSR");
    for (int64_t i : b.indices)
      if (i < 0 || i >= b.num_src)
        return Status::Protocol("MINIBATCH: block " + std::to_string(l) + " source index out of range");
  }
  if (typed) {
    for (size_t l = 0; l < mb->blocks.size(); ++l)
      if (static_cast<int64_t>(mb->blocks[l].etypes.size()) != mb->blocks[l].num_edges())
        return Status::Protocol("MINIBATCH: block " + std::to_string(l) + " has " +
                                std::to_string(mb->blocks[l].etypes.size()) + " edge types for " +
                                std::to_string(mb->blocks[l].num_edges()) + " edges");
    if (mb->input_ntypes.size() != mb->input_nodes.size())
      return Status::Protocol("MINIBATCH: " + std::to_string(mb->input_ntypes.size()) + " node types for " +
                              std::to_string(mb->input_nodes.size()) + " input nodes");
    for (int64_t t : mb->input_ntypes)
      if (t < 0) return Status::Protocol("MINIBATCH: node type " + std::to_string(t) + " (need >= 0)");
  }
  for (size_t l = 1; l < mb->blocks.size(); ++l)
    if (mb->blocks[l].num_src != mb->blocks[l - 1].num_dst)
      return Status::Protocol("MINIBATCH: block " + std::to_string(l) + " has " +
                              std::to_string(mb->blocks[l].num_src) + " sources but block " + std::to_string(l - 1) +
                              " has " + std::to_string(mb->blocks[l - 1].num_dst) + " destinations");
  if (!mb->blocks.empty() &&
      (mb->blocks.back().num_dst != static_cast<int64_t>(mb->seeds.size()) ||
       mb->blocks.front().num_src != static_cast<int64_t>(mb->input_nodes.size())))
    return Status::Protocol("MINIBATCH: blocks do not match the seeds and input nodes");
  if (mb->features.data != nullptr && mb->features.rows() != static_cast<int64_t>(mb->input_nodes.size()))
    return Status::Protocol("MINIBATCH: " + std::to_string(mb->features.rows()) + " feature rows for " +
                            std::to_string(mb->input_nodes.size()) + " input nodes");
  if (mb->labels.data != nullptr && mb->labels.shape.size() == 2 && mb->labels.shape[1] == 3 &&
      mb->labels.dtype == DType::kInt64) {
    // A link batch: rows (source position, destination position, target 0/1).
    const int64_t* l = mb->labels.as<int64_t>();
    const int64_t n = static_cast<int64_t>(mb->seeds.size());
    for (int64_t r = 0; r < mb->labels.rows(); ++r)
      if (l[3 * r] < 0 || l[3 * r] >= n || l[3 * r + 1] < 0 || l[3 * r + 1] >= n || (l[3 * r + 2] != 0 && l[3 * r + 2] != 1))
        return Status::Protocol("MINIBATCH: link pair " + std::to_string(r) + " is out of range for " +
                                std::to_string(n) + " seeds");
    return Status::OK();
  }
  if (mb->labels.data != nullptr && mb->labels.rows() != static_cast<int64_t>(mb->seeds.size()))
    return Status::Protocol("MINIBATCH: " + std::to_string(mb->labels.rows()) + " label rows for " +
                            std::to_string(mb->seeds.size()) + " seeds");
  return Status::OK();
}

BufferList EncodeEndOfEpoch(int64_t epoch, int64_t batches) {
  Encoder e;
  e.I64(epoch);
  e.I64(batches);
  return e.Finish();
}

}  // namespace dg
