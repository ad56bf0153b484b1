#include "common/sampling/typed_graph.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/storage/neighbor_sampling.h"

namespace dg {

Result<TypedGraphInput> TypedGraphInputOf(TypedDataset ds, const std::string& dir) {
  if (ds.target_type < 0) return Status::InvalidArgument(dir + "/meta.json: key 'target': no target node type");
  TypedGraphInput in;
  for (NodeTypeData& t : ds.node_types) {
    TypedGraphInput::NodeType n;
    n.name = t.name;
    n.count = t.count;
    if (const Array* f = t.Find("features")) n.features = *f;
    in.node_types.push_back(std::move(n));
  }
  for (EdgeTypeData& e : ds.edge_types) {
    TypedGraphInput::EdgeType et;
    et.src_type = e.src_type_id;
    et.dst_type = e.dst_type_id;
    et.relation = e.relation;
    et.src = std::move(e.src);
    et.dst = std::move(e.dst);
    in.edge_types.push_back(std::move(et));
  }
  in.target = ds.target_type;
  const NodeTypeData& target = ds.node_types[ds.target_type];
  const std::string tdir = dir + "/nodes/" + target.name;
  const Array* labels = target.Find("labels");
  const Array* split = target.Find("split");
  if (!labels) return Status::NotFound(tdir + "/labels.npy: the target type's labels are missing");
  if (!split) return Status::NotFound(tdir + "/split.npy: the target type's split is missing");
  in.labels = *labels;
  in.split = *split;
  return in;
}

Result<std::unique_ptr<TypedInMemoryGraph>> TypedInMemoryGraph::Create(TypedGraphInput in, bool merged) {
  const int num_types = static_cast<int>(in.node_types.size());
  if (num_types == 0) return Status::InvalidArgument("typed graph: no node types");
  if (in.edge_types.size() > 255)
    return Status::InvalidArgument("typed graph: " + std::to_string(in.edge_types.size()) +
                                   " edge types, at most 255");
  if (in.target < 0 || in.target >= num_types) return Status::InvalidArgument("typed graph: target type out of range");
  auto g = std::unique_ptr<TypedInMemoryGraph>(new TypedInMemoryGraph());
  g->merged_ = merged;
  g->type_offsets_.push_back(0);
  for (const auto& t : in.node_types) {
    g->type_names_.push_back(t.name);
    g->type_offsets_.push_back(g->type_offsets_.back() + t.count);
    int64_t f = 0;
    if (!t.features.shape.empty()) {
      if (t.features.dtype != DType::kFloat32 || t.features.shape.size() != 2 || t.features.rows() != t.count)
        return Status::InvalidArgument("node type " + t.name + ": features must be float32 [" +
                                       std::to_string(t.count) + ", F], got " + DTypeName(t.features.dtype) +
                                       t.features.ShapeString());
      f = t.features.shape[1];
    }
    g->feature_dims_.push_back(f);
    g->max_feature_dim_ = std::max(g->max_feature_dim_, f);
    g->features_.push_back(t.features);
  }
  const int64_t n = g->type_offsets_.back();
  // In-edge CSR, each row sorted by (edge type, source).
  std::vector<int64_t> degree(n + 1, 0);
  for (size_t e = 0; e < in.edge_types.size(); ++e) {
    const auto& et = in.edge_types[e];
    if (et.src_type < 0 || et.src_type >= num_types || et.dst_type < 0 || et.dst_type >= num_types)
      return Status::InvalidArgument("edge type " + et.relation + ": node type out of range");
    if (et.src.size() != et.dst.size())
      return Status::InvalidArgument("edge type " + et.relation + ": src and dst differ in length");
    g->relations_.push_back(et.relation);
    const int64_t ns = in.node_types[et.src_type].count, nd = in.node_types[et.dst_type].count;
    for (size_t i = 0; i < et.src.size(); ++i) {
      if (et.src[i] < 0 || et.src[i] >= ns || et.dst[i] < 0 || et.dst[i] >= nd)
        return Status::InvalidArgument("edge type " + et.relation + ": edge " + std::to_string(i) + " (" +
                                       std::to_string(et.src[i]) + " -> " + std::to_string(et.dst[i]) +
                                       ") out of range of its node types");
      ++degree[g->type_offsets_[et.dst_type] + et.dst[i] + 1];
    }
  }
  std::partial_sum(degree.begin(), degree.end(), degree.begin());
  g->indptr_ = degree;
  g->indices_.resize(degree.back());
  g->etypes_.resize(degree.back());
  std::vector<int64_t> fill(degree.begin(), degree.end() - 1);
  for (size_t e = 0; e < in.edge_types.size(); ++e) {
    const auto& et = in.edge_types[e];
    const int64_t so = g->type_offsets_[et.src_type], dof = g->type_offsets_[et.dst_type];
    for (size_t i = 0; i < et.src.size(); ++i) {
      const int64_t at = fill[dof + et.dst[i]]++;
      g->indices_[at] = so + et.src[i];
      g->etypes_[at] = static_cast<uint8_t>(e);
    }
  }
  std::vector<std::pair<uint8_t, int64_t>> row;
  for (int64_t v = 0; v < n; ++v) {
    const int64_t b = g->indptr_[v], e = g->indptr_[v + 1];
    row.clear();
    for (int64_t i = b; i < e; ++i) row.emplace_back(g->etypes_[i], g->indices_[i]);
    std::sort(row.begin(), row.end());
    for (int64_t i = b; i < e; ++i) {
      g->etypes_[i] = row[i - b].first;
      g->indices_[i] = row[i - b].second;
    }
  }
  // Global labels and split (-1 off the target type).
  const int64_t tn = in.node_types[in.target].count, to = g->type_offsets_[in.target];
  if (in.labels.dtype != DType::kInt64 || in.labels.shape.size() != 1 || in.labels.rows() != tn)
    return Status::InvalidArgument("labels of " + in.node_types[in.target].name + " must be int64 [" +
                                   std::to_string(tn) + "], got " + DTypeName(in.labels.dtype) +
                                   in.labels.ShapeString());
  if (in.split.dtype != DType::kInt8 || in.split.shape.size() != 1 || in.split.rows() != tn)
    return Status::InvalidArgument("split of " + in.node_types[in.target].name + " must be int8 [" +
                                   std::to_string(tn) + "], got " + DTypeName(in.split.dtype) +
                                   in.split.ShapeString());
  g->labels_ = Array::Zeros(DType::kInt64, {n});
  g->split_ = Array::Zeros(DType::kInt8, {n});
  std::fill(g->labels_.as<int64_t>(), g->labels_.as<int64_t>() + n, int64_t{-1});
  std::fill(g->split_.as<int8_t>(), g->split_.as<int8_t>() + n, int8_t{-1});
  std::memcpy(g->labels_.as<int64_t>() + to, in.labels.data, tn * sizeof(int64_t));
  std::memcpy(g->split_.as<int8_t>() + to, in.split.data, tn);
  return g;
}

int TypedInMemoryGraph::TypeOf(int64_t gid) const {
  return static_cast<int>(std::upper_bound(type_offsets_.begin(), type_offsets_.end(), gid) - type_offsets_.begin()) -
         1;
}

// Unmerged graphs sample by edge type (an untyped spec: its fanout for every
// relation); a merged one (one relation) samples its rows as an untyped graph.
Status TypedInMemoryGraph::SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec,
                                           SampledNeighbors* out) {
  if (!spec.weight_name.empty())
    return Status::InvalidArgument("weighted sampling ('" + spec.weight_name + "') on an in-memory graph, which has no edge weights");
  SampleSpec by_type = spec;
  if (!merged_ && !spec.typed()) by_type.etype_fanouts.assign(relations_.size(), spec.fanout);
  const bool typed = by_type.typed();
  out->indptr.assign(1, 0);
  out->sources.clear();
  out->etypes.clear();
  std::vector<int64_t> pos;
  for (int64_t gid : seeds) {
    if (gid < 0 || gid >= num_nodes())
      return Status::InvalidArgument("seed node " + std::to_string(gid) + " out of range");
    const int64_t begin = indptr_[gid];
    pos.clear();
    SampleRow(by_type, gid, indptr_[gid + 1] - begin, nullptr, typed ? etypes_.data() + begin : nullptr, &pos);
    for (int64_t p : pos) out->sources.push_back(indices_[begin + p]);
    if (typed)
      for (int64_t p : pos) out->etypes.push_back(etypes_[begin + p]);
    out->indptr.push_back(static_cast<int64_t>(out->sources.size()));
  }
  return Status::OK();
}

Status TypedInMemoryGraph::NodeTypes(const std::vector<int64_t>& ids, std::vector<int64_t>* out) {
  out->resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= num_nodes()) return Status::InvalidArgument("node " + std::to_string(ids[i]) + " out of range");
    (*out)[i] = TypeOf(ids[i]);
  }
  return Status::OK();
}

Result<Array> TypedInMemoryGraph::Gather(const std::string& name, const std::vector<int64_t>& ids) {
  for (int64_t id : ids)
    if (id < 0 || id >= num_nodes())
      return Status::InvalidArgument("node array '" + name + "': row " + std::to_string(id) + " out of range [0, " +
                                     std::to_string(num_nodes()) + ")");
  const int64_t rows = static_cast<int64_t>(ids.size());
  if (name == "labels" || name == "split") {
    const Array& a = name == "labels" ? labels_ : split_;
    Array out = Array::Zeros(a.dtype, {rows});
    const size_t w = a.row_bytes();
    for (int64_t i = 0; i < rows; ++i)
      std::memcpy(static_cast<char*>(out.data) + i * w, static_cast<const char*>(a.data) + ids[i] * w, w);
    return out;
  }
  if (name != "features")
    return Status::NotFound("node array '" + name + "' not found (have: features, labels, split)");
  Array out = Array::Zeros(DType::kFloat32, {rows, max_feature_dim_});
  float* o = out.as<float>();
  for (int64_t i = 0; i < rows; ++i) {
    const int t = TypeOf(ids[i]);
    const int64_t f = feature_dims_[t];
    if (f == 0) continue;
    std::memcpy(o + i * max_feature_dim_, features_[t].as<float>() + (ids[i] - type_offsets_[t]) * f,
                f * sizeof(float));
  }
  return out;
}

}  // namespace dg
