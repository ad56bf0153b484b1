#include "common/sampling/in_memory_graph.h"

#include <algorithm>
#include <cstring>

#include "common/storage/neighbor_sampling.h"

namespace dg {

Result<std::unique_ptr<InMemoryGraph>> InMemoryGraph::FromDataset(const Dataset& dataset) {
  return FromEdges(dataset.num_nodes, dataset.edges.src, dataset.edges.dst, dataset.node_data);
}

Result<std::unique_ptr<InMemoryGraph>> InMemoryGraph::FromEdges(
    int64_t num_nodes, const std::vector<int64_t>& src, const std::vector<int64_t>& dst,
    std::map<std::string, Array> node_data) {
  if (src.size() != dst.size())
    return Status::InvalidArgument("edge list: src and dst differ in length");
  for (const auto& [name, array] : node_data) {
    if (array.rows() != num_nodes)
      return Status::InvalidArgument("node array '" + name + "' has " +
                                     std::to_string(array.rows()) + " rows, graph has " +
                                     std::to_string(num_nodes) + " nodes");
  }
  auto g = std::unique_ptr<InMemoryGraph>(new InMemoryGraph());
  g->num_nodes_ = num_nodes;
  g->node_data_ = std::move(node_data);
  g->indptr_.assign(num_nodes + 1, 0);
  for (size_t e = 0; e < dst.size(); ++e) {
    if (src[e] < 0 || src[e] >= num_nodes || dst[e] < 0 || dst[e] >= num_nodes)
      return Status::InvalidArgument("edge " + std::to_string(e) + " (" + std::to_string(src[e]) +
                                     " -> " + std::to_string(dst[e]) + ") out of range [0, " +
                                     std::to_string(num_nodes) + ")");
    ++g->indptr_[dst[e] + 1];
  }
  for (int64_t i = 0; i < num_nodes; ++i) g->indptr_[i + 1] += g->indptr_[i];
  g->indices_.resize(src.size());
  std::vector<int64_t> fill(g->indptr_.begin(), g->indptr_.end() - 1);
  for (size_t e = 0; e < dst.size(); ++e) g->indices_[fill[dst[e]]++] = src[e];
  for (int64_t i = 0; i < num_nodes; ++i)
    std::sort(g->indices_.begin() + g->indptr_[i], g->indices_.begin() + g->indptr_[i + 1]);
  return g;
}

Result<Array> InMemoryGraph::NodeData(const std::string& name) const {
  auto it = node_data_.find(name);
  if (it == node_data_.end()) {
    std::string have;
    for (const auto& kv : node_data_) have += (have.empty() ? "" : ", ") + kv.first;
    return Status::NotFound("node array '" + name + "' not found (have: " +
                            (have.empty() ? "none" : have) + ")");
  }
  return it->second;
}

Status InMemoryGraph::SampleNeighbors(const std::vector<int64_t>& seeds, const SampleSpec& spec,
                                      SampledNeighbors* out) {
  if (spec.typed()) return Status::InvalidArgument("typed sampling on a graph without edge types");
  if (!spec.weight_name.empty())
    return Status::InvalidArgument("weighted sampling ('" + spec.weight_name + "') on an in-memory graph, which has no edge weights");
  out->indptr.clear();
  out->sources.clear();
  out->indptr.reserve(seeds.size() + 1);
  out->indptr.push_back(0);
  std::vector<int64_t> pos;
  for (int64_t gid : seeds) {
    if (gid < 0 || gid >= num_nodes_)
      return Status::InvalidArgument("seed node " + std::to_string(gid) + " out of range [0, " +
                                     std::to_string(num_nodes_) + ")");
    const int64_t begin = indptr_[gid], degree = indptr_[gid + 1] - begin;
    pos.clear();
    SampleRow(spec, gid, degree, nullptr, nullptr, &pos);
    for (int64_t p : pos) out->sources.push_back(indices_[begin + p]);
    out->indptr.push_back(static_cast<int64_t>(out->sources.size()));
  }
  return Status::OK();
}

Result<Array> InMemoryGraph::Gather(const std::string& name, const std::vector<int64_t>& ids) {
  DG_ASSIGN_OR_RETURN(Array array, NodeData(name));
  return GatherRows(array, ids, "node array '" + name + "'");
}

Result<Array> GatherRows(const Array& array, const std::vector<int64_t>& ids,
                         const std::string& what) {
  std::vector<int64_t> shape = array.shape;
  if (shape.empty()) return Status::InvalidArgument(what + ": is a scalar, not rows");
  shape[0] = static_cast<int64_t>(ids.size());
  const int64_t rows = array.rows();
  for (int64_t id : ids)
    if (id < 0 || id >= rows)
      return Status::InvalidArgument(what + ": row " + std::to_string(id) + " out of range [0, " +
                                     std::to_string(rows) + ")");
  DG_ASSIGN_OR_RETURN(Array out, Array::TryUninitialized(array.dtype, shape, what));
  GatherRowBytes(array.data, array.row_bytes(), ids.data(), ids.size(), 0, out.data, nullptr);
  return out;
}

}  // namespace dg
