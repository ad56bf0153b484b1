#include "common/net/messages.h"

namespace dg {

namespace {
// Tensor names are echoed in errors and logs: keep them short.
constexpr size_t kMaxNameBytes = 1024;
Status CheckName(const char* what, const std::string& name) {
  if (name.size() <= kMaxNameBytes) return Status::OK();
  return Status::InvalidArgument(std::string(what) + ": tensor name of " + std::to_string(name.size()) +
                                 " bytes (at most " + std::to_string(kMaxNameBytes) + ")");
}
}  // namespace

Status CheckTensorName(const char* what, const std::string& name) { return CheckName(what, name); }

Array IdsArray(std::vector<int64_t> ids) {
  auto holder = std::make_shared<std::vector<int64_t>>(std::move(ids));
  Array a;
  a.dtype = DType::kInt64;
  a.shape = {static_cast<int64_t>(holder->size())};
  a.data = holder->data();
  a.holder = holder;
  return a;
}

Array IdsView(const int64_t* ids, size_t n) {
  Array a;
  a.dtype = DType::kInt64;
  a.shape = {static_cast<int64_t>(n)};
  a.data = const_cast<int64_t*>(ids);
  return a;
}

void EncodePull(Encoder* e, TensorKind kind, const std::string& name, const Array& ids) {
  e->U8(static_cast<uint8_t>(kind));
  e->String(name);
  e->ArrayRef(ids);
}

Result<PullRequest> DecodePull(const Frame& f) {
  PullRequest r;
  Decoder d = f.decoder("PULL");
  uint8_t kind = d.U8();
  r.name = d.String();
  r.ids = d.Ids();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckName("PULL", r.name));
  if (kind != uint8_t(TensorKind::kNode) && kind != uint8_t(TensorKind::kEdge)) {
    return Status::Protocol("PULL: tensor kind " + std::to_string(kind) + " is not 0 (node) or 1 (edge)");
  }
  r.kind = static_cast<TensorKind>(kind);
  return r;
}

void EncodePush(Encoder* e, const std::string& name, PushMode mode, const Array& ids, const Array& rows) {
  e->String(name);
  e->U8(static_cast<uint8_t>(mode));
  e->ArrayRef(ids);
  e->ArrayRef(rows);
}

Result<PushRequest> DecodePush(const Frame& f) {
  PushRequest r;
  Decoder d = f.decoder("PUSH");
  r.name = d.String();
  uint8_t mode = d.U8();
  r.ids = d.Ids();
  r.rows = d.ArrayView();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckName("PUSH", r.name));
  if (mode > uint8_t(PushMode::kAdd)) {
    return Status::Protocol("PUSH: mode " + std::to_string(mode) + " is not 0 (overwrite) or 1 (add)");
  }
  r.mode = static_cast<PushMode>(mode);
  return r;
}

void EncodeInitTensor(Encoder* e, const InitTensorSpec& s) {
  e->String(s.name);
  e->U8(static_cast<uint8_t>(s.dtype));
  e->U8(static_cast<uint8_t>(s.shape.size()));
  for (int64_t d : s.shape) e->I64(d);
  e->U8(static_cast<uint8_t>(s.init));
  e->U64(s.seed);
  e->F64(s.a);
  e->F64(s.b);
  e->Bool(s.persistent);
  e->Bool(s.scratch);
}

Result<InitTensorSpec> DecodeInitTensor(const Frame& f) {
  InitTensorSpec s;
  Decoder d = f.decoder("INIT_TENSOR");
  s.name = d.String();
  uint8_t dt = d.U8();
  uint8_t ndim = d.U8();
  if (ndim > 8) d.Fail("rank " + std::to_string(ndim) + " exceeds 8");
  for (int i = 0; i < ndim && d.status().ok(); ++i) s.shape.push_back(d.I64());
  uint8_t init = d.U8();
  s.seed = d.U64();
  s.a = d.F64();
  s.b = d.F64();
  s.persistent = d.Bool();
  s.scratch = d.Bool();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckName("INIT_TENSOR", s.name));
  if (dt > uint8_t(DType::kBool)) return Status::Protocol("INIT_TENSOR: unknown dtype code " + std::to_string(dt));
  if (init > uint8_t(Initializer::kNormal)) {
    return Status::Protocol("INIT_TENSOR: unknown initializer " + std::to_string(init));
  }
  s.dtype = static_cast<DType>(dt);
  s.init = static_cast<Initializer>(init);
  return s;
}

void EncodeSparseUpdate(Encoder* e, const SparseUpdateRequest& r) {
  e->String(r.name);
  e->U8(static_cast<uint8_t>(r.optimizer.kind));
  e->F64(r.optimizer.lr);
  e->F64(r.optimizer.eps);
  e->F64(r.optimizer.beta1);
  e->F64(r.optimizer.beta2);
  e->F64(r.optimizer.weight_decay);
  e->U64(r.step);
  e->U32(r.contributors);
  e->U32(r.rank);
  e->ArrayRef(r.ids);
  e->ArrayRef(r.grads);
}

Result<SparseUpdateRequest> DecodeSparseUpdate(const Frame& f) {
  SparseUpdateRequest r;
  Decoder d = f.decoder("SPARSE_UPDATE");
  r.name = d.String();
  uint8_t kind = d.U8();
  r.optimizer.lr = d.F64();
  r.optimizer.eps = d.F64();
  r.optimizer.beta1 = d.F64();
  r.optimizer.beta2 = d.F64();
  r.optimizer.weight_decay = d.F64();
  r.step = d.U64();
  r.contributors = d.U32();
  r.rank = d.U32();
  r.ids = d.Ids();
  r.grads = d.ArrayView();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckName("SPARSE_UPDATE", r.name));
  if (kind > uint8_t(SparseOptimizerKind::kAdam)) {
    return Status::Protocol("SPARSE_UPDATE: optimizer kind " + std::to_string(kind) +
                            " is not 0 (sparse_adagrad) or 1 (sparse_adam)");
  }
  r.optimizer.kind = static_cast<SparseOptimizerKind>(kind);
  const std::string where = "SPARSE_UPDATE '" + r.name + "' step " + std::to_string(r.step);
  if (r.contributors == 0 || r.contributors > kMaxSparseContributors) {
    return Status::InvalidArgument(where + ": " + std::to_string(r.contributors) + " contributors (must be 1.." +
                                   std::to_string(kMaxSparseContributors) + ")");
  }
  if (r.rank >= r.contributors) {
    return Status::InvalidArgument(where + ": rank " + std::to_string(r.rank) + " is not below the " +
                                   std::to_string(r.contributors) + " contributors");
  }
  DG_RETURN_IF_ERROR(ValidateSparseOptimizer(r.optimizer).WithContext(where));
  return r;
}

void EncodeSample(Encoder* e, const Array& seeds, const SampleSpec& spec) {
  e->ArrayRef(seeds);
  e->I64(spec.fanout);
  e->Bool(spec.replace);
  e->U64(spec.seed);
  e->String(spec.weight_name);
  e->Bool(spec.edge_ids);
  e->U32(static_cast<uint32_t>(spec.etype_fanouts.size()));
  for (int f : spec.etype_fanouts) e->I32(f);
}

Result<SampleRequest> DecodeSample(const Frame& f) {
  SampleRequest r;
  Decoder d = f.decoder("SAMPLE_NEIGHBORS");
  r.seeds = d.Ids();
  r.spec.fanout = d.I64();
  r.spec.replace = d.Bool();
  r.spec.seed = d.U64();
  r.spec.weight_name = d.String();
  r.spec.edge_ids = d.Bool();
  const uint32_t num_etypes = d.U32();
  if (d.status().ok() && num_etypes > kMaxEdgeTypes)
    return Status::InvalidArgument("SAMPLE_NEIGHBORS: " + std::to_string(num_etypes) + " edge type fanouts, at most " +
                                   std::to_string(kMaxEdgeTypes));
  for (uint32_t t = 0; t < num_etypes && d.status().ok(); ++t) r.spec.etype_fanouts.push_back(d.I32());
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckName("SAMPLE_NEIGHBORS", r.spec.weight_name));
  return r;
}

void EncodeInDegrees(Encoder* e, const Array& ids) { e->ArrayRef(ids); }

Result<InDegreesRequest> DecodeInDegrees(const Frame& f) {
  InDegreesRequest r;
  Decoder d = f.decoder("IN_DEGREES");
  r.ids = d.Ids();
  DG_RETURN_IF_ERROR(d.Finish());
  return r;
}

void EncodeSaveTensor(Encoder* e, const std::string& name) { e->String(name); }

Result<SaveTensorRequest> DecodeSaveTensor(const Frame& f) {
  SaveTensorRequest r;
  Decoder d = f.decoder("SAVE_TENSOR");
  r.name = d.String();
  DG_RETURN_IF_ERROR(d.Finish());
  DG_RETURN_IF_ERROR(CheckName("SAVE_TENSOR", r.name));
  return r;
}

void EncodeCheckpoint(Encoder* e, const CheckpointRequest& r) {
  e->U8(static_cast<uint8_t>(r.action));
  e->U64(r.step);
  e->U32(r.keep);
}

Result<CheckpointRequest> DecodeCheckpoint(const Frame& f) {
  CheckpointRequest r;
  Decoder d = f.decoder("CHECKPOINT");
  const uint8_t action = d.U8();
  r.step = d.U64();
  r.keep = d.U32();
  DG_RETURN_IF_ERROR(d.Finish());
  if (action > uint8_t(CheckpointAction::kRestoreBest))
    return Status::InvalidArgument("CHECKPOINT: unknown action " + std::to_string(action) +
                                   " (0 = save, 1 = load, 2 = keep best, 3 = restore best)");
  r.action = static_cast<CheckpointAction>(action);
  return r;
}

Status DecodeEmptyRequest(const Frame& f) { return f.decoder(MsgTypeName(f.header.type).c_str()).Finish(); }

void EncodeMetadataReply(Encoder* e, const MetadataReply& m) {
  e->String(m.graph_name);
  e->I32(m.part_id);
  e->I32(m.server_index);
  e->I64(m.num_nodes);
  e->I64(m.num_edges);
  e->Ids(m.node_map.data(), m.node_map.size());
  e->Ids(m.edge_map.data(), m.edge_map.size());
  e->U32(static_cast<uint32_t>(m.tensors.size()));
  for (const TensorMeta& t : m.tensors) {
    e->String(t.name);
    e->U8(static_cast<uint8_t>(t.kind));
    e->U8(static_cast<uint8_t>(t.dtype));
    e->U8(static_cast<uint8_t>(t.shape.size()));
    for (int64_t d : t.shape) e->I64(d);
  }
}

Result<MetadataReply> DecodeMetadataReply(const Frame& f) {
  MetadataReply m;
  Decoder d = f.decoder("METADATA reply");
  m.graph_name = d.String();
  m.part_id = d.I32();
  m.server_index = d.I32();
  m.num_nodes = d.I64();
  m.num_edges = d.I64();
  Array nm = d.Ids(), em = d.Ids();
  if (d.status().ok()) {
    m.node_map.assign(nm.as<int64_t>(), nm.as<int64_t>() + nm.numel());
    m.edge_map.assign(em.as<int64_t>(), em.as<int64_t>() + em.numel());
  }
  uint32_t n = d.U32();
  for (uint32_t i = 0; i < n && d.status().ok(); ++i) {
    TensorMeta t;
    t.name = d.String();
    const uint8_t kind = d.U8(), dtype = d.U8();
    if (kind > uint8_t(TensorKind::kMutableNode)) d.Fail("unknown tensor kind " + std::to_string(kind));
    if (dtype > uint8_t(DType::kBool)) d.Fail("unknown dtype code " + std::to_string(dtype));
    t.kind = static_cast<TensorKind>(kind);
    t.dtype = static_cast<DType>(dtype);
    uint8_t ndim = d.U8();
    if (ndim > 8) d.Fail("tensor rank exceeds 8");
    for (int k = 0; k < ndim && d.status().ok(); ++k) t.shape.push_back(d.I64());
    m.tensors.push_back(std::move(t));
  }
  DG_RETURN_IF_ERROR(d.Finish());
  for (const TensorMeta& t : m.tensors) DG_RETURN_IF_ERROR(CheckShape(t.shape, "METADATA reply: tensor '" + t.name + "'"));
  return m;
}

void EncodeBarrier(Encoder* e, const BarrierRequest& b) {
  e->String(b.name);
  e->U32(b.participants);
}

Result<BarrierRequest> DecodeBarrier(const Frame& f) {
  BarrierRequest b;
  Decoder d = f.decoder("BARRIER");
  b.name = d.String();
  b.participants = d.U32();
  DG_RETURN_IF_ERROR(d.Finish());
  if (b.name.size() > kMaxBarrierName)
    return Status::InvalidArgument("BARRIER: name of " + std::to_string(b.name.size()) + " bytes (at most " +
                                   std::to_string(kMaxBarrierName) + ")");
  if (b.participants == 0) return Status::InvalidArgument("BARRIER '" + b.name + "': 0 participants");
  if (b.participants > kMaxBarrierParticipants)
    return Status::InvalidArgument("BARRIER '" + b.name + "': " + std::to_string(b.participants) +
                                   " participants (at most " + std::to_string(kMaxBarrierParticipants) + ")");
  return b;
}

void EncodeStatsReply(Encoder* e, const StatsReply& s) {
  e->I32(s.part_id);
  e->I32(s.server_index);
  e->F64(s.uptime_s);
  e->U64(s.connections);
  e->U32(static_cast<uint32_t>(s.types.size()));
  for (const TypeStats& t : s.types) {
    e->String(t.type);
    e->U64(t.requests);
    e->U64(t.errors);
    e->U64(t.bytes_in);
    e->U64(t.bytes_out);
    e->F64(t.p50_ms);
    e->F64(t.p99_ms);
  }
}

Result<StatsReply> DecodeStatsReply(const Frame& f) {
  StatsReply s;
  Decoder d = f.decoder("STATS reply");
  s.part_id = d.I32();
  s.server_index = d.I32();
  s.uptime_s = d.F64();
  s.connections = d.U64();
  uint32_t n = d.U32();
  for (uint32_t i = 0; i < n && d.status().ok(); ++i) {
    TypeStats t;
    t.type = d.String();
    t.requests = d.U64();
    t.errors = d.U64();
    t.bytes_in = d.U64();
    t.bytes_out = d.U64();
    t.p50_ms = d.F64();
    t.p99_ms = d.F64();
    s.types.push_back(std::move(t));
  }
  DG_RETURN_IF_ERROR(d.Finish());
  return s;
}

}  // namespace dg
