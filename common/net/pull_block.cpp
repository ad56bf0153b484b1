#include "common/net/pull_block.h"

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

// `len` names the vector's length in the message (n, s, c).
Status CheckInt32Vector(const char* what, const char* field, const char* len, const Array& a) {
  if (a.dtype != DType::kInt32 || a.shape.size() != 1)
    return Status::InvalidArgument(std::string(what) + ": " + field + " must be an int32 [" + len + "] array, got " +
                                   DTypeName(a.dtype) + " " + a.ShapeString());
  return Status::OK();
}

}  // namespace

int64_t StoredRowStep(const void* row, size_t row_bytes) {
  int64_t written = 0;
  std::memcpy(&written, static_cast<const uint8_t*>(row) + row_bytes - sizeof(int64_t), sizeof(int64_t));
  return written - 1;
}

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
  DG_RETURN_IF_ERROR(CheckInt32Vector("PULL_BLOCK", "rows", "n", r.rows));
  DG_RETURN_IF_ERROR(CheckInt32Vector("PULL_BLOCK", "counts", "n", r.counts));
  DG_RETURN_IF_ERROR(CheckInt32Vector("PULL_BLOCK", "src", "n", r.src));
  return r;
}

void EncodeSampleBlock(Encoder* e, const std::string& name, WireDType wire, const SampleSpec& spec,
                       std::shared_ptr<const PullBlockIds> ids, const SampleBlockHistory& history) {
  e->String(name);
  e->U8(static_cast<uint8_t>(wire));
  e->I64(spec.fanout);
  e->Bool(spec.replace);
  e->U64(spec.seed);
  e->ArrayRef(Int32Ref(ids->rows, ids));
  e->ArrayRef(Int32Ref(ids->skip, ids));
  e->String(history.name);
  e->I64(history.step);
  e->I64(history.max_age);
  e->ArrayRef(Int32Ref(ids->cand, ids));
}

Result<SampleBlockRequest> DecodeSampleBlock(const Frame& f) {
  SampleBlockRequest r;
  Decoder d = f.decoder("SAMPLE_BLOCK");
  r.name = d.String();
  const uint8_t code = d.U8();
  r.spec.fanout = d.I64();
  r.spec.replace = d.Bool();
  r.spec.seed = d.U64();
  r.dst = d.ArrayView();
  r.skip = d.ArrayView();
  r.history.name = d.String();
  r.history.step = d.I64();
  r.history.max_age = d.I64();
  r.cand = d.ArrayView();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckTensorName("SAMPLE_BLOCK", r.name));
  if (!r.history.name.empty()) DG_RETURN_IF_ERROR(CheckTensorName("SAMPLE_BLOCK history", r.history.name));
  auto wire = WireDTypeFromCode(code);
  if (!wire.ok()) return Status::InvalidArgument("SAMPLE_BLOCK: " + wire.status().message());
  r.wire = *wire;
  DG_RETURN_IF_ERROR(CheckInt32Vector("SAMPLE_BLOCK", "dst", "n", r.dst));
  DG_RETURN_IF_ERROR(CheckInt32Vector("SAMPLE_BLOCK", "skip", "s", r.skip));
  DG_RETURN_IF_ERROR(CheckInt32Vector("SAMPLE_BLOCK", "cand", "c", r.cand));
  if (r.history.name.empty() && r.cand.numel() > 0)
    return Status::InvalidArgument("SAMPLE_BLOCK: cand names destinations but no history tensor is named");
  if (r.history.max_age < 0)
    return Status::InvalidArgument("SAMPLE_BLOCK: max_age " + std::to_string(r.history.max_age) + " < 0");
  return r;
}

}  // namespace dg
