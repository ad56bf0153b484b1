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

// Arrays may be absent (features/labels not gathered): u8 form, then the
// array (form 1) or float32 rows in a 16-bit wire dtype (form 2: u8 wire
// dtype, i64 rows, i64 columns, the wire rows).
enum RowsForm : uint8_t { kAbsent = 0, kArray = 1, kWireRows = 2 };

void OptionalArray(Encoder* e, const Array& a, WireDType wire = WireDType::kFloat32) {
  const bool present = a.data != nullptr || !a.shape.empty();
  if (present && wire != WireDType::kFloat32 && a.dtype == DType::kFloat32 && a.shape.size() == 2) {
    e->U8(kWireRows);
    e->U8(static_cast<uint8_t>(wire));
    e->I64(a.shape[0]);
    e->I64(a.shape[1]);
    EncodeWireRows(e, wire, a.as<float>(), a.shape[0], a.shape[1]);
    return;
  }
  e->U8(present ? kArray : kAbsent);
  if (present) e->ArrayRef(a);
}

// The trainer's one conversion of 16-bit rows: into a float32 array.
Array DecodeWireArray(Decoder* d, const char* what) {
  auto wire = WireDTypeFromCode(d->U8());
  const int64_t n = d->I64(), cols = d->I64();
  if (!d->status().ok()) return Array();
  if (!wire.ok()) {
    d->Fail(std::string("MINIBATCH ") + what + ": " + wire.status().message());
    return Array();
  }
  WireRowsView view;
  Status st = CheckShape({n, cols}, std::string("MINIBATCH ") + what);  // bounds 2 x cols below
  if (st.ok()) st = DecodeWireRows(d, *wire, n, cols, std::string("MINIBATCH ") + what, &view);
  Result<Array> out = st.ok() ? Array::TryUninitialized(DType::kFloat32, {n, cols}, "MINIBATCH rows") : st;
  if (!out.ok()) {
    d->Fail(std::string("MINIBATCH ") + what + ": " + out.status().message());
    return Array();
  }
  for (int64_t i = 0; i < n; ++i) view.Row(i, out->as<float>() + i * cols);
  return std::move(*out);
}

Array DecodeOptionalArray(Decoder* d, const char* what) {
  const uint8_t form = d->U8();
  if (form == kArray) return d->ArrayView();
  if (form == kWireRows) return DecodeWireArray(d, what);
  if (form != kAbsent) d->Fail(std::string("MINIBATCH ") + what + ": form " + std::to_string(form));
  return Array();
}

// Feature rows: one per input node, or with block 0 aggregated (a neighbour
// mean present) one per block-0 destination beside its mean row (typed: one
// per input node beside G per-relation mean rows).
Status CheckInputRows(const MiniBatch& mb) {
  const Array& x = mb.features;
  const Array& mean = mb.input_neigh_mean;
  if (mean.data == nullptr && mean.shape.empty()) {
    if (x.data != nullptr && x.rows() != static_cast<int64_t>(mb.input_nodes.size()))
      return Status::Protocol("MINIBATCH: " + std::to_string(x.rows()) + " feature rows for " +
                              std::to_string(mb.input_nodes.size()) + " input nodes");
    return Status::OK();
  }
  if (!mb.input_ntypes.empty()) {  // typed: every input node's row, and per-relation means (block_input.h)
    if (x.dtype != DType::kFloat32 || x.shape.size() != 2 || x.rows() != static_cast<int64_t>(mb.input_nodes.size()) ||
        mean.dtype != DType::kFloat32 || mean.shape.size() != 2 || mean.shape[1] != x.shape[1])
      return Status::Protocol("MINIBATCH: an aggregated typed block 0 of " + std::to_string(mb.input_nodes.size()) +
                              " sources needs float32 [" + std::to_string(mb.input_nodes.size()) +
                              ", F] features and float32 [G, F] input_neigh_mean, got " + DTypeName(x.dtype) + " " +
                              x.ShapeString() + " and " + DTypeName(mean.dtype) + " " + mean.ShapeString());
    return Status::OK();
  }
  const int64_t dst = mb.blocks.empty() ? 0 : mb.blocks.front().num_dst;
  if (mean.dtype != DType::kFloat32 || mean.shape.size() != 2 || mean.shape[0] != dst || x.dtype != DType::kFloat32 ||
      x.shape != mean.shape)
    return Status::Protocol("MINIBATCH: an aggregated block 0 of " + std::to_string(dst) +
                            " destinations needs float32 [" + std::to_string(dst) +
                            ", F] features and input_neigh_mean, got " + DTypeName(x.dtype) + " " + x.ShapeString() +
                            " and " + DTypeName(mean.dtype) + " " + mean.ShapeString());
  return Status::OK();
}

}  // namespace

BufferList EncodeEpoch(const EpochRequest& r, uint32_t credits, const BatchInput& input) {
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
  e.Bool(input.aggregate);
  e.U8(static_cast<uint8_t>(input.wire));
  return e.Finish();
}

Status DecodeEpoch(const Frame& f, EpochRequest* r, uint32_t* credits, BatchInput* input) {
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
  BatchInput in;
  in.aggregate = d.Bool();
  const uint8_t wire = d.U8();
  DG_RETURN_IF_ERROR(d.Finish());
  auto wire_dtype = WireDTypeFromCode(wire);
  if (!wire_dtype.ok()) return Status::Protocol("EPOCH: " + wire_dtype.status().message());
  in.wire = *wire_dtype;
  if (input) *input = in;
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

BufferList EncodeMiniBatch(MiniBatch mb, WireDType rows) {
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
  OptionalArray(&e, mb.features, rows);
  OptionalArray(&e, mb.input_neigh_mean, rows);
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
  mb->features = DecodeOptionalArray(&d, "features");
  mb->input_neigh_mean = DecodeOptionalArray(&d, "input_neigh_mean");
  mb->labels = DecodeOptionalArray(&d, "labels");
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
  DG_RETURN_IF_ERROR(CheckInputRows(*mb));
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
