#include "common/storage/partition_store.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"

namespace dg {
namespace {

std::string Range(int64_t b, int64_t e) {
  return "[" + std::to_string(b) + ", " + std::to_string(e) + ")";
}

template <typename T>
void AddRow(uint8_t* dst, const uint8_t* src, int64_t elems) {
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t i = 0; i < elems; ++i) d[i] += s[i];
}

// Persistent tensors become file names: keep them to one safe path component.
bool IsFileSafeName(const std::string& name) {
  if (name.empty() || name[0] == '.' || name.size() > 200) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string TensorFile(const std::string& dir, const std::string& name) {
  return dir + "/tensors/" + name + ".npy";
}

}  // namespace

Status ValidatePartitionStructure(const LocalPartition& part, const std::string& where) {
  const int64_t* ip = part.indptr.as<int64_t>();
  const int64_t n = part.num_owned(), m = part.num_edges();
  for (int64_t i = 0; i < n; ++i) {
    if (ip[i + 1] < ip[i] || ip[i + 1] > m) {
      return Status::Corruption(where + "/indptr.npy: entry " + std::to_string(i + 1) + " (" +
                                std::to_string(ip[i + 1]) + ") breaks the CSR (previous " + std::to_string(ip[i]) +
                                ", nnz " + std::to_string(m) + ")");
    }
  }
  return Status::OK();
}

PartitionStore::PartitionStore(const PartitionConfig& config, LocalPartition part, bool holds_mutable)
    : graph_name_(config.graph_name),
      num_nodes_(config.num_nodes),
      num_edges_(config.num_edges),
      part_(std::move(part)),
      node_info_(config.node_data),
      edge_info_(config.edge_data),
      holds_mutable_(holds_mutable) {
  if (const Array* types = EdgeTypes()) {
    const uint8_t* t = types->as<uint8_t>();
    for (int64_t e = 0; e < types->numel(); ++e) num_edge_types_ = std::max(num_edge_types_, t[e] + 1);
  }
  type_names_ = config.node_types;
}

const Array* PartitionStore::EdgeTypes() const {
  if (part_.edge_types.dtype == DType::kUInt8 && part_.edge_types.shape.size() == 1) return &part_.edge_types;
  auto it = part_.edge_data.find(kEdgeTypesTensor);
  if (it != part_.edge_data.end() && it->second.dtype == DType::kUInt8 && it->second.shape.size() == 1)
    return &it->second;
  return nullptr;
}

Status PartitionStore::UnknownTensor(const char* what, const std::string& name) const {
  return Status::NotFound(std::string(what) + ": unknown tensor '" + name + "'" +
                          (holds_mutable_ ? std::string()
                                          : " (mutable tensors live on server index 0 of partition " +
                                                std::to_string(part_.part_id) + ")"));
}

std::shared_ptr<PartitionStore::MutableTensor> PartitionStore::FindMutable(const std::string& name) const {
  std::shared_lock<std::shared_mutex> l(mutable_mu_);
  auto it = mutable_.find(name);
  return it == mutable_.end() ? nullptr : it->second;
}

Result<TensorMeta> PartitionStore::Meta(TensorKind kind, const std::string& name) const {
  if (kind == TensorKind::kEdge) {
    auto it = edge_info_.find(name);
    if (it == edge_info_.end()) return Status::NotFound("unknown edge tensor '" + name + "'");
    return TensorMeta{name, kind, it->second.dtype, it->second.shape};
  }
  auto it = node_info_.find(name);
  if (it != node_info_.end()) return TensorMeta{name, TensorKind::kNode, it->second.dtype, it->second.shape};
  if (auto t = FindMutable(name)) {
    return TensorMeta{name, TensorKind::kMutableNode, t->data.dtype, t->global_shape};
  }
  return UnknownTensor("lookup", name);
}

std::vector<TensorMeta> PartitionStore::ListTensors() const {
  std::vector<TensorMeta> out;
  for (const auto& [name, info] : node_info_) out.push_back({name, TensorKind::kNode, info.dtype, info.shape});
  for (const auto& [name, info] : edge_info_) out.push_back({name, TensorKind::kEdge, info.dtype, info.shape});
  std::shared_lock<std::shared_mutex> l(mutable_mu_);
  for (const auto& [name, t] : mutable_) {
    out.push_back({name, TensorKind::kMutableNode, t->data.dtype, t->global_shape});
  }
  return out;
}

Status PartitionStore::CheckNodeIds(const char* what, const std::string& name, const int64_t* ids,
                                    size_t n) const {
  const int64_t b = part_.node_begin, e = part_.node_end;
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < b || ids[i] >= e) {
      return Status::InvalidArgument(std::string(what) + (name.empty() ? "" : " '" + name + "'") +
                                     ": node id " + std::to_string(ids[i]) + " (at position " +
                                     std::to_string(i) + ") is not owned by partition " +
                                     std::to_string(part_.part_id) + ", which owns " + Range(b, e));
    }
  }
  return Status::OK();
}

Status PartitionStore::CheckEdgeIds(const char* what, const std::string& name, const int64_t* ids,
                                    size_t n) const {
  const int64_t b = part_.edge_begin, e = part_.edge_begin + part_.num_edges();
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < b || ids[i] >= e) {
      return Status::InvalidArgument(std::string(what) + " '" + name + "': edge id " +
                                     std::to_string(ids[i]) + " (at position " + std::to_string(i) +
                                     ") is not owned by partition " + std::to_string(part_.part_id) +
                                     ", which owns edges " + Range(b, e));
    }
  }
  return Status::OK();
}

int PartitionStore::TypeOfTensor(const std::string& name) const {
  const size_t slash = name.find('/');
  if (part_.type_offsets.empty() || slash == std::string::npos) return -1;
  for (size_t t = 0; t < type_names_.size(); ++t)
    if (name.compare(0, slash, type_names_[t]) == 0 && type_names_[t].size() == slash &&
        t + 1 < part_.type_offsets.size())
      return static_cast<int>(t);
  return -1;
}

namespace {

// Gathered rows of a table whose rows may owe weight decay: each is multiplied
// by its read factor, so a reader sees the value after the last applied step
// (common/storage/sparse_optimizer.h).
void ApplyReadDecay(const SparseOptimizerState& opt, const int64_t* ids, size_t n, int64_t base, float* out,
                    const int64_t* out_pos) {
  const int64_t dim = opt.dim();
  for (size_t i = 0; i < n; ++i) {
    const float f = opt.ReadFactor(ids[i] - base);
    if (f == 1.0f) continue;
    float* row = out + (out_pos ? out_pos[i] : static_cast<int64_t>(i)) * dim;
    for (int64_t j = 0; j < dim; ++j) row[j] *= f;
  }
}

}  // namespace

Status PartitionStore::CheckTypedIds(const std::string& name, int type, const int64_t* ids, size_t n) const {
  const int64_t b = part_.type_offsets[type], e = part_.type_offsets[type + 1];
  for (size_t i = 0; i < n; ++i)
    if (ids[i] < b || ids[i] >= e)
      return Status::InvalidArgument("PULL '" + name + "': node id " + std::to_string(ids[i]) + " (at position " +
                                     std::to_string(i) + ") is not a " + type_names_[type] + " node of partition " +
                                     std::to_string(part_.part_id) + ", which owns " + Range(b, e) +
                                     " of that type");
  return Status::OK();
}

Result<RowTable> PartitionStore::ImmutableRows(TensorKind kind, const std::string& name,
                                                              const int64_t* ids, size_t n) const {
  auto view_of = [](const Array& a, int64_t first_id) {
    return RowTable{static_cast<const uint8_t*>(a.data), a.row_bytes(), first_id, a.holder};
  };
  if (kind == TensorKind::kEdge) {
    auto it = part_.edge_data.find(name);
    if (it == part_.edge_data.end()) return Status::NotFound("PULL: unknown edge tensor '" + name + "'");
    DG_RETURN_IF_ERROR(CheckEdgeIds("PULL", name, ids, n));
    return view_of(it->second, part_.edge_begin);
  }
  auto it = part_.node_data.find(name);
  if (it == part_.node_data.end()) {
    if (!FindMutable(name)) return UnknownTensor("PULL", name);
    return RowTable{};  // mutable: copied under its lock (GatherRows)
  }
  const int type = TypeOfTensor(name);
  if (type >= 0) {  // "<type>/<name>" of a typed partition
    DG_RETURN_IF_ERROR(CheckTypedIds(name, type, ids, n));
    return view_of(it->second, part_.type_offsets[type]);
  }
  DG_RETURN_IF_ERROR(CheckNodeIds("PULL", name, ids, n));
  return view_of(it->second, part_.node_begin);
}

Status PartitionStore::GatherRows(TensorKind kind, const std::string& name, const int64_t* ids,
                                  size_t n, uint8_t* out, const int64_t* out_pos) const {
  DG_ASSIGN_OR_RETURN(RowTable rows, ImmutableRows(kind, name, ids, n));
  if (rows.base != nullptr) {
    GatherRowBytes(rows.base, rows.row_bytes, ids, n, rows.first_id, out, out_pos);
    return Status::OK();
  }
  std::shared_ptr<MutableTensor> mt = FindMutable(name);
  if (!mt) return UnknownTensor("PULL", name);
  std::shared_lock<std::shared_mutex> lock(mt->mu);
  DG_RETURN_IF_ERROR(CheckNodeIds("PULL", name, ids, n));
  const int64_t base = part_.node_begin;
  GatherRowBytes(mt->data.data, mt->data.row_bytes(), ids, n, base, out, out_pos);
  if (mt->optimizer && mt->optimizer->owes_decay())
    ApplyReadDecay(*mt->optimizer, ids, n, base, reinterpret_cast<float*>(out), out_pos);
  return Status::OK();
}

Result<Array> PartitionStore::Pull(TensorKind kind, const std::string& name, const int64_t* ids,
                                   size_t n) const {
  DG_ASSIGN_OR_RETURN(TensorMeta meta, Meta(kind, name));
  std::vector<int64_t> shape = meta.shape;
  if (shape.empty()) shape.push_back(0);
  shape[0] = static_cast<int64_t>(n);
  // GatherRows writes every row or fails: no zero fill.
  DG_ASSIGN_OR_RETURN(Array out, Array::TryUninitialized(meta.dtype, shape, "PULL '" + name + "'"));
  DG_RETURN_IF_ERROR(GatherRows(kind, name, ids, n, static_cast<uint8_t*>(out.data), nullptr));
  return out;
}

Status PartitionStore::Push(const std::string& name, const int64_t* ids, size_t n, const Array& rows,
                            PushMode mode) {
  if (node_info_.count(name) || edge_info_.count(name)) {
    return Status::InvalidArgument("PUSH '" + name + "': tensor is read-only partition data");
  }
  auto mt = FindMutable(name);
  if (!mt) return UnknownTensor("PUSH", name);
  if (mode != PushMode::kOverwrite && mode != PushMode::kAdd) {
    return Status::InvalidArgument("PUSH '" + name + "': unknown mode " + std::to_string(int(mode)));
  }
  std::vector<int64_t> want = mt->global_shape;
  want[0] = static_cast<int64_t>(n);
  if (rows.dtype != mt->data.dtype || rows.shape != want) {
    Array w;
    w.shape = want;
    return Status::InvalidArgument("PUSH '" + name + "': rows are " + DTypeName(rows.dtype) + " " +
                                   rows.ShapeString() + " but the tensor needs " +
                                   DTypeName(mt->data.dtype) + " " + w.ShapeString() + " for " +
                                   std::to_string(n) + " ids");
  }
  if (mode == PushMode::kAdd && (rows.dtype == DType::kBool)) {
    return Status::InvalidArgument("PUSH '" + name + "': add is not defined for bool tensors");
  }
  DG_RETURN_IF_ERROR(CheckNodeIds("PUSH", name, ids, n));
  std::unique_lock<std::shared_mutex> lock(mt->mu);
  const size_t rb = mt->data.row_bytes();
  const int64_t elems = mt->data.row_elems();
  uint8_t* d = static_cast<uint8_t*>(mt->data.data);
  const uint8_t* s = static_cast<const uint8_t*>(rows.data);
  SparseOptimizerState* opt = mt->optimizer.get();
  for (size_t i = 0; i < n; ++i) {
    uint8_t* dst = d + (ids[i] - part_.node_begin) * rb;
    const uint8_t* src = s + i * rb;
    // A row owing weight decay gets it first: PUSH writes over or adds to its current value.
    if (opt) opt->Settle(ids[i] - part_.node_begin, reinterpret_cast<float*>(dst));
    if (mode == PushMode::kOverwrite) {
      std::memcpy(dst, src, rb);
      continue;
    }
    switch (rows.dtype) {
      case DType::kFloat32: AddRow<float>(dst, src, elems); break;
      case DType::kFloat64: AddRow<double>(dst, src, elems); break;
      case DType::kInt64: AddRow<int64_t>(dst, src, elems); break;
      case DType::kInt32: AddRow<int32_t>(dst, src, elems); break;
      case DType::kInt8: AddRow<int8_t>(dst, src, elems); break;
      case DType::kUInt8: AddRow<uint8_t>(dst, src, elems); break;
      case DType::kBool: break;
    }
  }
  return Status::OK();
}

Status PartitionStore::InitTensor(const InitTensorSpec& spec, bool* created) {
  *created = false;
  const std::string& name = spec.name;
  if (!holds_mutable_) {
    return Status::InvalidArgument("INIT_TENSOR '" + name + "': mutable tensors live on server index 0 of partition " +
                                   std::to_string(part_.part_id));
  }
  if (name.empty()) return Status::InvalidArgument("INIT_TENSOR: empty tensor name");
  if (node_info_.count(name) || edge_info_.count(name)) {
    return Status::AlreadyExists("INIT_TENSOR '" + name + "': a partition data tensor has this name");
  }
  if (spec.shape.empty() || spec.shape[0] != num_nodes_) {
    Array s;
    s.shape = spec.shape;
    return Status::InvalidArgument("INIT_TENSOR '" + name + "': shape " + s.ShapeString() +
                                   " must have num_nodes = " + std::to_string(num_nodes_) + " rows");
  }
  DG_RETURN_IF_ERROR(CheckShape(spec.shape, "INIT_TENSOR '" + name + "'"));
  if (spec.init != Initializer::kZeros && spec.dtype != DType::kFloat32 && spec.dtype != DType::kFloat64) {
    return Status::InvalidArgument("INIT_TENSOR '" + name + "': uniform/normal need float32 or float64, got " +
                                   DTypeName(spec.dtype));
  }
  if (spec.init > Initializer::kNormal) {
    return Status::InvalidArgument("INIT_TENSOR '" + name + "': unknown initializer " +
                                   std::to_string(int(spec.init)));
  }
  if (spec.persistent && !IsFileSafeName(name)) {
    return Status::InvalidArgument("INIT_TENSOR '" + name +
                                   "': a persistent tensor's name must be a file name of letters, digits, '_', "
                                   "'-' and '.' (not starting with '.')");
  }
  std::unique_lock<std::shared_mutex> l(mutable_mu_);
  auto it = mutable_.find(name);
  if (it != mutable_.end()) {
    if (it->second->global_shape == spec.shape && it->second->data.dtype == spec.dtype) {
      if (spec.persistent) it->second->persistent = true;
      return Status::OK();
    }
    Array have, want;
    have.shape = it->second->global_shape;
    want.shape = spec.shape;
    return Status::AlreadyExists("INIT_TENSOR '" + name + "': exists as " + DTypeName(it->second->data.dtype) +
                                 " " + have.ShapeString() + ", asked for " + DTypeName(spec.dtype) + " " +
                                 want.ShapeString());
  }
  std::vector<int64_t> local = spec.shape;
  local[0] = part_.num_owned();
  const int64_t bytes = CheckedByteSize(spec.dtype, local);
  Array want;
  want.shape = local;
  if (bytes < 0) {
    return Status::ResourceExhausted("INIT_TENSOR '" + name + "': " + DTypeName(spec.dtype) + " " +
                                     want.ShapeString() + " here is larger than any allocation");
  }
  if (mutable_budget_ >= 0 && bytes > mutable_budget_ - mutable_bytes_) {
    return Status::ResourceExhausted("INIT_TENSOR '" + name + "': its " + std::to_string(bytes) + " bytes here (" +
                                     DTypeName(spec.dtype) + " " + want.ShapeString() +
                                     ") and the existing mutable tensors would use " +
                                     std::to_string(mutable_bytes_ + bytes) + " bytes, over this server's budget of " +
                                     std::to_string(mutable_budget_) + " bytes (limits.mutable_tensor_bytes)");
  }
  auto t = std::make_shared<MutableTensor>();
  t->persistent = spec.persistent;
  t->scratch = spec.scratch && !spec.persistent;
  t->global_shape = spec.shape;
  DG_ASSIGN_OR_RETURN(t->data, Array::TryZeros(spec.dtype, local, "INIT_TENSOR '" + name + "'"));
  if (spec.init != Initializer::kZeros) {
    const int64_t elems = t->data.row_elems();
    std::vector<double> row(static_cast<size_t>(elems));
    for (int64_t r = 0; r < local[0]; ++r) {
      InitialRow(spec, part_.node_begin + r, elems, row.data());
      for (int64_t j = 0; j < elems; ++j) {
        if (spec.dtype == DType::kFloat32) t->data.as<float>()[r * elems + j] = static_cast<float>(row[j]);
        else t->data.as<double>()[r * elems + j] = row[j];
      }
    }
  }
  mutable_.emplace(name, std::move(t));
  mutable_bytes_ += bytes;
  *created = true;
  return Status::OK();
}

void InitialRow(const InitTensorSpec& spec, int64_t gid, int64_t elems, double* out) {
  Rng rng(MixSeed(spec.seed, static_cast<uint64_t>(gid)));
  for (int64_t j = 0; j < elems; ++j) {
    if (spec.init == Initializer::kZeros) {
      out[j] = 0;
    } else if (spec.init == Initializer::kUniform) {
      out[j] = spec.a + (spec.b - spec.a) * rng.UniformDouble();
    } else {  // Box-Muller
      double u1 = rng.UniformDouble(), u2 = rng.UniformDouble();
      out[j] = spec.a + spec.b * std::sqrt(-2.0 * std::log(u1 > 0 ? u1 : 1e-300)) * std::cos(6.283185307179586 * u2);
    }
  }
}

Status PartitionStore::Sample(const int64_t* seeds, size_t n, const SampleSpec& spec, SampleResult* out) const {
  return spec.typed() ? SampleTyped(seeds, n, spec, out) : SampleUntyped(seeds, n, spec, out);
}

// "" = no weights (null); else the float32 [E] or [E, 1] edge tensor `name`.
Result<const float*> PartitionStore::EdgeWeights(const std::string& name) const {
  if (name.empty()) return static_cast<const float*>(nullptr);
  auto it = part_.edge_data.find(name);
  if (it == part_.edge_data.end()) {
    return Status::NotFound("SAMPLE_NEIGHBORS: unknown edge weight tensor '" + name + "'");
  }
  const Array& w = it->second;
  if (w.dtype != DType::kFloat32 || w.row_elems() != 1) {
    return Status::InvalidArgument("SAMPLE_NEIGHBORS: edge weight tensor '" + name +
                                   "' must be float32 [E] or [E, 1], got " + DTypeName(w.dtype) + " " +
                                   w.ShapeString());
  }
  return w.as<float>();
}

Status PartitionStore::SampleUntyped(const int64_t* seeds, size_t n, const SampleSpec& spec,
                                     SampleResult* out) const {
  DG_RETURN_IF_ERROR(CheckNodeIds("SAMPLE_NEIGHBORS", "", seeds, n));
  DG_ASSIGN_OR_RETURN(const float* weights, EdgeWeights(spec.weight_name));
  const int64_t* indptr = part_.indptr.as<int64_t>();
  const int64_t* indices = part_.indices.as<int64_t>();
  std::vector<int64_t> pos;
  out->counts.reserve(out->counts.size() + n);
  DG_ASSIGN_OR_RETURN(const int64_t bound, SampleBound(seeds, n, spec));
  if (bound <= (int64_t(1) << 26)) {  // callers with huge requests check SampleBound first
    out->src.reserve(out->src.size() + static_cast<size_t>(bound));
    if (spec.edge_ids) out->eids.reserve(out->eids.size() + static_cast<size_t>(bound));
  }
  // Each seed's CSR row is a cache miss in a large graph: fetch indptr of the
  // seed 16 ahead and the neighbour ids of the seed 8 ahead (its indptr is
  // in cache by then), so the misses overlap instead of queueing.
  constexpr size_t kIndptrAhead = 16, kRowAhead = 8;
  for (size_t i = 0; i < n; ++i) {
    if (i + kIndptrAhead < n) __builtin_prefetch(indptr + (seeds[i + kIndptrAhead] - part_.node_begin));
    if (i + kRowAhead < n) {
      const int64_t la = seeds[i + kRowAhead] - part_.node_begin;
      const char* row = reinterpret_cast<const char*>(indices + indptr[la]);
      const char* end = reinterpret_cast<const char*>(indices + std::min(indptr[la + 1], indptr[la] + 64));
      for (const char* c = row; c < end; c += 64) __builtin_prefetch(c);
      if (end > row) __builtin_prefetch(end - 1);
    }
    const int64_t l = seeds[i] - part_.node_begin;
    const int64_t begin = indptr[l], degree = indptr[l + 1] - begin;
    pos.clear();
    const int64_t k = SampleRow(spec, seeds[i], degree, weights ? weights + begin : nullptr, nullptr, &pos);
    out->counts.push_back(k);
    for (int64_t p : pos) out->src.push_back(indices[begin + p]);
    if (spec.edge_ids)
      for (int64_t p : pos) out->eids.push_back(part_.edge_begin + begin + p);
  }
  return Status::OK();
}

Status PartitionStore::SampleTyped(const int64_t* seeds, size_t n, const SampleSpec& spec, SampleResult* out) const {
  DG_RETURN_IF_ERROR(CheckNodeIds("SAMPLE_NEIGHBORS", "", seeds, n));
  if (!spec.weight_name.empty())
    return Status::InvalidArgument("SAMPLE_NEIGHBORS: weighted sampling by edge type is not supported");
  const Array* types = EdgeTypes();
  if (!types)
    return Status::InvalidArgument("SAMPLE_NEIGHBORS: fanouts per edge type, but partition " +
                                   std::to_string(part_.part_id) +
                                   " has no edge types (a typed partition's uint8 edge_types.npy, or the uint8 edge "
                                   "tensor '" + kEdgeTypesTensor + "')");
  const uint8_t* etypes = types->as<uint8_t>();
  const int64_t* indptr = part_.indptr.as<int64_t>();
  const int64_t* indices = part_.indices.as<int64_t>();
  std::vector<int64_t> pos;
  out->counts.reserve(out->counts.size() + n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t l = seeds[i] - part_.node_begin;
    const int64_t begin = indptr[l], degree = indptr[l + 1] - begin;
    pos.clear();
    const int64_t k = SampleRow(spec, seeds[i], degree, nullptr, etypes + begin, &pos);
    out->counts.push_back(k);
    for (int64_t p : pos) {
      out->src.push_back(indices[begin + p]);
      out->etypes.push_back(etypes[begin + p]);
    }
    if (spec.edge_ids)
      for (int64_t p : pos) out->eids.push_back(part_.edge_begin + begin + p);
  }
  return Status::OK();
}

Result<int64_t> PartitionStore::SampleBound(const int64_t* seeds, size_t n, const SampleSpec& spec) const {
  DG_RETURN_IF_ERROR(CheckNodeIds("SAMPLE_NEIGHBORS", "", seeds, n));
  // Typed: every in-edge at most, plus what a type's fanout may add beyond its
  // degree with replacement.
  const int64_t fanout = spec.typed() ? -1 : spec.fanout;
  const bool replace = spec.typed() ? false : spec.replace;
  unsigned __int128 total = 0;
  if (spec.typed() && spec.replace)
    for (int f : spec.etype_fanouts)
      if (f > 0) total += static_cast<unsigned __int128>(n) * static_cast<uint64_t>(f);
  if (fanout == 0) return int64_t(0);
  if (replace && fanout > 0) {
    total = static_cast<unsigned __int128>(n) * static_cast<uint64_t>(fanout);
  } else {
    const int64_t* indptr = part_.indptr.as<int64_t>();
    for (size_t i = 0; i < n; ++i) {
      const int64_t l = seeds[i] - part_.node_begin;
      const int64_t degree = indptr[l + 1] - indptr[l];
      total += static_cast<uint64_t>(fanout < 0 ? degree : std::min(degree, fanout));
    }
  }
  return total > static_cast<unsigned __int128>(INT64_MAX / 64) ? INT64_MAX / 64 : static_cast<int64_t>(total);
}

int64_t PartitionStore::mutable_bytes() const {
  std::shared_lock<std::shared_mutex> l(mutable_mu_);
  return mutable_bytes_;
}

Status PartitionStore::InDegrees(const int64_t* ids, size_t n, int64_t* out, const int64_t* out_pos) const {
  DG_RETURN_IF_ERROR(CheckNodeIds("IN_DEGREES", "", ids, n));
  const int64_t* indptr = part_.indptr.as<int64_t>();
  for (size_t i = 0; i < n; ++i) {
    const int64_t l = ids[i] - part_.node_begin;
    out[out_pos ? out_pos[i] : static_cast<int64_t>(i)] = indptr[l + 1] - indptr[l];
  }
  return Status::OK();
}

// ------------------------------------------------------------ sparse optimizers

Result<std::shared_ptr<PartitionStore::MutableTensor>> PartitionStore::SparseTarget(const std::string& name) const {
  if (node_info_.count(name) || edge_info_.count(name)) {
    return Status::InvalidArgument("SPARSE_UPDATE '" + name + "': tensor is read-only partition data");
  }
  auto mt = FindMutable(name);
  if (!mt) return UnknownTensor("SPARSE_UPDATE", name);
  if (mt->data.dtype != DType::kFloat32) {
    return Status::InvalidArgument("SPARSE_UPDATE '" + name + "': sparse optimizers need a float32 tensor, this one is " +
                                   DTypeName(mt->data.dtype));
  }
  return mt;
}

Status PartitionStore::CheckOptimizerMatch(const std::string& name, const MutableTensor& t,
                                           const SparseOptimizerSpec& spec) {
  if (t.optimizer && !t.optimizer->spec().SameAs(spec)) {
    return Status::InvalidArgument("SPARSE_UPDATE '" + name + "': optimizer " + spec.ToString() + " differs from " +
                                   t.optimizer->spec().ToString() + " of this tensor's first update");
  }
  return Status::OK();
}

Status PartitionStore::CheckSparseGrad(const std::string& name, const SparseOptimizerSpec& spec, uint64_t step,
                                       const SparseGrad& g) const {
  DG_RETURN_IF_ERROR(ValidateSparseOptimizer(spec).WithContext("SPARSE_UPDATE '" + name + "'"));
  DG_RETURN_IF_ERROR(CheckDecayStep(spec, step).WithContext("SPARSE_UPDATE '" + name + "'"));
  DG_ASSIGN_OR_RETURN(auto mt, SparseTarget(name));
  const size_t n = static_cast<size_t>(g.ids.numel());
  if (g.ids.dtype != DType::kInt64 || g.ids.shape.size() != 1) {
    return Status::InvalidArgument("SPARSE_UPDATE '" + name + "': ids must be int64 [n], got " +
                                   DTypeName(g.ids.dtype) + " " + g.ids.ShapeString());
  }
  std::vector<int64_t> want = mt->global_shape;
  want[0] = static_cast<int64_t>(n);
  if (g.grads.dtype != DType::kFloat32 || g.grads.shape != want) {
    Array w;
    w.shape = want;
    return Status::InvalidArgument("SPARSE_UPDATE '" + name + "': grads are " + DTypeName(g.grads.dtype) + " " +
                                   g.grads.ShapeString() + " but the tensor needs float32 " + w.ShapeString() +
                                   " for " + std::to_string(n) + " ids");
  }
  DG_RETURN_IF_ERROR(CheckNodeIds("SPARSE_UPDATE", name, g.ids.as<int64_t>(), n));
  std::shared_lock<std::shared_mutex> lock(mt->mu);
  return CheckOptimizerMatch(name, *mt, spec);
}

Status PartitionStore::SparseUpdate(const std::string& name, const SparseOptimizerSpec& spec, uint64_t step,
                                    const std::vector<SparseGrad>& contributions) {
  for (const SparseGrad& g : contributions) DG_RETURN_IF_ERROR(CheckSparseGrad(name, spec, step, g));
  DG_ASSIGN_OR_RETURN(auto mt, SparseTarget(name));
  const int64_t dim = mt->data.row_elems();
  // Each row's sum is accumulated in contribution order, then id order.
  size_t total = 0;
  for (const SparseGrad& g : contributions) total += static_cast<size_t>(g.ids.numel());
  SparseGradSum sum(dim, total);
  for (const SparseGrad& g : contributions)
    sum.Add(g.ids.as<int64_t>(), static_cast<size_t>(g.ids.numel()), g.grads.as<float>(), part_.node_begin);
  std::unique_lock<std::shared_mutex> lock(mt->mu);
  DG_RETURN_IF_ERROR(CheckOptimizerMatch(name, *mt, spec));
  if (!mt->optimizer) mt->optimizer = std::make_unique<SparseOptimizerState>(spec, part_.num_owned(), dim);
  mt->optimizer->Apply(sum.rows().data(), sum.rows().size(), sum.sums(), mt->data.as<float>(), step);
  return Status::OK();
}

// ------------------------------------------------------------ persistence

namespace {

// A table whose rows owe weight decay, written as its readers see it (every
// row times its read factor) in chunks, without changing the table.
Status WriteDecayed(const std::string& path, const Array& table, const SparseOptimizerState& opt) {
  NpyWriter w;
  DG_RETURN_IF_ERROR(w.Open(path, table.dtype, table.shape));
  const int64_t rows = table.shape[0], dim = opt.dim(), chunk = 4096;
  std::vector<float> buf;
  for (int64_t first = 0; first < rows; first += chunk) {
    const int64_t n = std::min(chunk, rows - first);
    buf.assign(table.as<float>() + first * dim, table.as<float>() + (first + n) * dim);
    for (int64_t r = 0; r < n; ++r) {
      const float f = opt.ReadFactor(first + r);
      if (f != 1.0f)
        for (int64_t j = 0; j < dim; ++j) buf[r * dim + j] *= f;
    }
    DG_RETURN_IF_ERROR(w.Append(buf.data(), buf.size() * sizeof(float)));
  }
  return w.Finish();
}

}  // namespace

Status PartitionStore::SaveTensor(const std::string& name, const std::string& dir) const {
  if (!holds_mutable_) return UnknownTensor("SAVE_TENSOR", name);
  auto mt = FindMutable(name);
  if (!mt) return UnknownTensor("SAVE_TENSOR", name);
  if (!mt->persistent) {
    return Status::InvalidArgument("SAVE_TENSOR '" + name +
                                   "': tensor is not persistent (create it with InitTensorSpec.persistent = true)");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir + "/tensors", ec);
  if (ec) return Status::IOError("create " + dir + "/tensors: " + ec.message());
  std::lock_guard<std::mutex> save(save_mu_);
  std::shared_lock<std::shared_mutex> lock(mt->mu);
  if (mt->optimizer && mt->optimizer->owes_decay())
    return WriteDecayed(TensorFile(dir, name), mt->data, *mt->optimizer);
  return NpyWrite(TensorFile(dir, name), mt->data);
}

Status PartitionStore::SavePersistent(const std::string& dir, std::vector<std::string>* saved) const {
  std::vector<std::string> names;
  {
    std::shared_lock<std::shared_mutex> l(mutable_mu_);
    for (const auto& [name, t] : mutable_)
      if (t->persistent) names.push_back(name);
  }
  for (const std::string& name : names) {
    DG_RETURN_IF_ERROR(SaveTensor(name, dir));
    if (saved) saved->push_back(name);
  }
  return Status::OK();
}

Status PartitionStore::LoadPersistent(const std::string& dir, std::vector<std::string>* loaded) {
  const std::string tdir = dir + "/tensors";
  std::error_code ec;
  if (!std::filesystem::is_directory(tdir, ec)) return Status::OK();
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(tdir, ec)) {
    const std::string fn = entry.path().filename().string();
    if (fn.size() > 4 && fn.compare(fn.size() - 4, 4, ".npy") == 0) files.push_back(fn);
  }
  if (ec) return Status::IOError("list " + tdir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const std::string& fn : files) {
    const std::string path = tdir + "/" + fn, name = fn.substr(0, fn.size() - 4);
    if (!IsFileSafeName(name)) {
      return Status::InvalidArgument(path + ": '" + name + "' is not a valid persistent tensor name");
    }
    if (node_info_.count(name) || edge_info_.count(name)) {
      return Status::AlreadyExists(path + ": a partition data tensor is also called '" + name + "'");
    }
    DG_ASSIGN_OR_RETURN(Array a, NpyRead(path));
    if (a.shape.empty() || a.shape[0] != part_.num_owned()) {
      return Status::Corruption(path + ": has shape " + a.ShapeString() + " but partition " +
                                std::to_string(part_.part_id) + " owns " + std::to_string(part_.num_owned()) +
                                " nodes (one row each)");
    }
    auto t = std::make_shared<MutableTensor>();
    t->persistent = true;
    t->global_shape = a.shape;
    t->global_shape[0] = num_nodes_;
    t->data = std::move(a);
    std::unique_lock<std::shared_mutex> l(mutable_mu_);
    mutable_bytes_ += static_cast<int64_t>(t->data.nbytes());
    mutable_[name] = std::move(t);
    if (loaded) loaded->push_back(name);
  }
  return Status::OK();
}

// ------------------------------------------------------------ step checkpoints

Status PartitionStore::SaveCheckpoint(const std::string& dir, std::vector<std::string>* saved) const {
  if (!holds_mutable_) return Status::OK();
  std::vector<std::pair<std::string, std::shared_ptr<MutableTensor>>> tensors;
  {
    std::shared_lock<std::shared_mutex> l(mutable_mu_);
    for (const auto& [name, t] : mutable_)
      if (!t->scratch) tensors.emplace_back(name, t);
  }
  std::ostringstream index;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, mt] = tensors[i];
    const std::string stem = dir + "/tensor-" + std::to_string(i);
    std::shared_lock<std::shared_mutex> lock(mt->mu);
    DG_RETURN_IF_ERROR(NpyWrite(stem + ".npy", mt->data));
    if (mt->optimizer) DG_RETURN_IF_ERROR(mt->optimizer->Save(stem + ".sparse_opt"));
    index << i << " " << (mt->persistent ? 1 : 0) << " " << (mt->optimizer ? 1 : 0) << " " << name << "\n";
    if (saved) saved->push_back(name);
  }
  const std::string path = dir + "/tensors";
  std::ofstream out(path, std::ios::trunc);
  out << index.str();
  out.flush();
  if (!out) return Status::IOError("write " + path + " failed");
  return Status::OK();
}

Status PartitionStore::LoadCheckpoint(const std::string& dir, std::vector<std::string>* loaded) {
  if (!holds_mutable_) return Status::OK();
  const std::string path = dir + "/tensors";
  std::ifstream in(path);
  if (!in) return Status::NotFound("step checkpoint " + dir + " has no tensors list (" + path + ")");
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    int64_t i = -1;
    int persistent = 0, has_opt = 0;
    std::string name;
    ls >> i >> persistent >> has_opt;
    ls.get();
    std::getline(ls, name);
    if (!ls && !ls.eof()) return Status::Corruption(path + ": bad line '" + line + "'");
    if (i < 0 || name.empty()) return Status::Corruption(path + ": bad line '" + line + "'");
    const std::string stem = dir + "/tensor-" + std::to_string(i);
    DG_ASSIGN_OR_RETURN(Array a, NpyRead(stem + ".npy"));
    if (a.shape.empty() || a.shape[0] != part_.num_owned()) {
      return Status::Corruption(stem + ".npy: has shape " + a.ShapeString() + " but partition " +
                                std::to_string(part_.part_id) + " owns " + std::to_string(part_.num_owned()) +
                                " nodes");
    }
    std::unique_ptr<SparseOptimizerState> opt;
    if (has_opt) {
      DG_ASSIGN_OR_RETURN(opt, SparseOptimizerState::Load(stem + ".sparse_opt"));
      if (opt->rows() != a.shape[0] || opt->dim() != a.row_elems())
        return Status::Corruption(stem + ".sparse_opt: its shape does not match " + stem + ".npy");
    }
    std::vector<int64_t> global = a.shape;
    global[0] = num_nodes_;
    std::unique_lock<std::shared_mutex> l(mutable_mu_);
    auto it = mutable_.find(name);
    if (it == mutable_.end()) {
      auto t = std::make_shared<MutableTensor>();
      t->global_shape = global;
      mutable_bytes_ += static_cast<int64_t>(a.nbytes());
      it = mutable_.emplace(name, std::move(t)).first;
    } else if (it->second->global_shape != global || it->second->data.dtype != a.dtype) {
      return Status::AlreadyExists("step checkpoint " + dir + ": tensor '" + name + "' exists here as " +
                                   DTypeName(it->second->data.dtype) + " of another shape than its " +
                                   DTypeName(a.dtype) + " " + a.ShapeString() + " rows in the checkpoint");
    }
    MutableTensor& mt = *it->second;
    std::unique_lock<std::shared_mutex> lock(mt.mu);
    if (persistent) mt.persistent = true;
    mt.data = std::move(a);
    mt.optimizer = std::move(opt);
    if (loaded) loaded->push_back(name);
  }
  return Status::OK();
}

}  // namespace dg
