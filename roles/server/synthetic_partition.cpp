#include "roles/server/synthetic_partition.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <numeric>

#include "common/storage/neighbor_sampling.h"
#include "common/io/npy.h"
#include "common/storage/partition.h"
#include "common/storage/partition_checksum.h"

namespace dg {
namespace {

void FillNodeData(SyntheticGraph* g, int64_t feat_dim, uint64_t seed) {
  const int64_t n = g->num_nodes, m = static_cast<int64_t>(g->src.size());
  g->features = Array::Zeros(DType::kFloat32, {n, feat_dim});
  g->labels = Array::Zeros(DType::kInt64, {n});
  g->edge_weight = Array::Zeros(DType::kFloat32, {m});
  Rng rng(seed ^ 0xFEEDull);
  float* f = g->features.as<float>();
  for (int64_t i = 0; i < n * feat_dim; ++i) f[i] = static_cast<float>(rng.UniformDouble() * 2 - 1);
  for (int64_t i = 0; i < n; ++i) g->labels.as<int64_t>()[i] = static_cast<int64_t>(rng.Uniform(7));
  for (int64_t e = 0; e < m; ++e) g->edge_weight.as<float>()[e] = static_cast<float>(0.1 + rng.UniformDouble() * 4);
}

Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return Status::FromErrno("mkdir " + path, errno);
  return Status::OK();
}

}  // namespace

SyntheticGraph MakeRandomGraph(int64_t num_nodes, int64_t num_edges, int64_t feat_dim, uint64_t seed) {
  SyntheticGraph g;
  g.name = "random";
  g.num_nodes = num_nodes;
  Rng rng(seed);
  g.src.resize(num_edges);
  g.dst.resize(num_edges);
  for (int64_t e = 0; e < num_edges; ++e) {
    g.src[e] = static_cast<int64_t>(rng.Uniform(num_nodes));
    g.dst[e] = static_cast<int64_t>(rng.Uniform(num_nodes));
  }
  FillNodeData(&g, feat_dim, seed);
  return g;
}

SyntheticGraph MakePowerLawGraph(int64_t num_nodes, int64_t num_edges, int64_t feat_dim, uint64_t seed) {
  SyntheticGraph g;
  g.name = "powerlaw";
  g.num_nodes = num_nodes;
  Rng rng(seed);
  std::vector<int64_t> perm(num_nodes);
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t i = num_nodes - 1; i > 0; --i) std::swap(perm[i], perm[rng.Uniform(i + 1)]);
  g.src.resize(num_edges);
  g.dst.resize(num_edges);
  for (int64_t e = 0; e < num_edges; ++e) {
    // rank = N * u^3: density ~ rank^(-2/3), a heavy-tailed in-degree.
    double u = rng.UniformDouble();
    int64_t rank = std::min<int64_t>(num_nodes - 1, static_cast<int64_t>(num_nodes * u * u * u));
    g.dst[e] = perm[rank];
    g.src[e] = static_cast<int64_t>(rng.Uniform(num_nodes));
  }
  FillNodeData(&g, feat_dim, seed);
  return g;
}

Result<std::string> WriteContiguousPartition(const SyntheticGraph& g, int num_parts, const std::string& out_dir) {
  const int64_t n = g.num_nodes, m = static_cast<int64_t>(g.src.size());
  DG_RETURN_IF_ERROR(MakeDir(out_dir));
  PartitionConfig c;
  c.graph_name = g.name;
  c.part_method = "contiguous";
  c.num_nodes = n;
  c.num_edges = m;
  c.num_parts = num_parts;
  for (int p = 0; p <= num_parts; ++p) c.node_map.push_back(n * p / num_parts);
  const int64_t feat_dim = g.features.row_elems();
  c.node_data["features"] = ArrayInfo{DType::kFloat32, {n, feat_dim}};
  c.node_data["labels"] = ArrayInfo{DType::kInt64, {n}};
  c.edge_data["weight"] = ArrayInfo{DType::kFloat32, {m}};
  const bool typed = !g.edge_types.empty();
  if (typed) {
    if (static_cast<int64_t>(g.edge_types.size()) != m)
      return Status::InvalidArgument("synthetic graph: edge_types has " + std::to_string(g.edge_types.size()) +
                                     " entries for " + std::to_string(m) + " edges");
    c.edge_data["edge_types"] = ArrayInfo{DType::kUInt8, {m}};
  }
  c.orig_nids = "orig_nids.npy";
  c.orig_eids = "orig_eids.npy";

  // Stable order of edges by destination = CSR order of the in-edges.
  std::vector<int64_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (g.dst[a] != g.dst[b]) return g.dst[a] < g.dst[b];
    return typed && g.edge_types[a] < g.edge_types[b];
  });
  PartitionBook book(c.node_map);
  c.edge_map.assign(num_parts + 1, 0);
  for (int64_t e = 0; e < m; ++e) c.edge_map[book.Owner(g.dst[e]) + 1]++;
  for (int p = 0; p < num_parts; ++p) c.edge_map[p + 1] += c.edge_map[p];

  Array orig_nids = Array::Zeros(DType::kInt64, {n});
  std::iota(orig_nids.as<int64_t>(), orig_nids.as<int64_t>() + n, 0);
  Array orig_eids = Array::Zeros(DType::kInt64, {m});
  std::copy(order.begin(), order.end(), orig_eids.as<int64_t>());
  DG_RETURN_IF_ERROR(NpyWrite(out_dir + "/orig_nids.npy", orig_nids));
  DG_RETURN_IF_ERROR(NpyWrite(out_dir + "/orig_eids.npy", orig_eids));

  const size_t frb = g.features.row_bytes();
  for (int p = 0; p < num_parts; ++p) {
    const int64_t nb = c.node_map[p], ne = c.node_map[p + 1], eb = c.edge_map[p], ee = c.edge_map[p + 1];
    std::string dir = out_dir + "/part" + std::to_string(p);
    DG_RETURN_IF_ERROR(MakeDir(dir));
    DG_RETURN_IF_ERROR(MakeDir(dir + "/node_data"));
    DG_RETURN_IF_ERROR(MakeDir(dir + "/edge_data"));
    Array indptr = Array::Zeros(DType::kInt64, {ne - nb + 1});
    Array indices = Array::Zeros(DType::kInt64, {ee - eb});
    Array weight = Array::Zeros(DType::kFloat32, {ee - eb});
    Array etypes = Array::Zeros(DType::kUInt8, {typed ? ee - eb : 0});
    for (int64_t k = eb; k < ee; ++k) {
      int64_t e = order[k];
      indptr.as<int64_t>()[g.dst[e] - nb + 1]++;
      indices.as<int64_t>()[k - eb] = g.src[e];
      weight.as<float>()[k - eb] = g.edge_weight.as<float>()[e];
      if (typed) etypes.as<uint8_t>()[k - eb] = g.edge_types[e];
    }
    for (int64_t i = 0; i < ne - nb; ++i) indptr.as<int64_t>()[i + 1] += indptr.as<int64_t>()[i];
    Array feats = Array::Zeros(DType::kFloat32, {ne - nb, feat_dim});
    std::memcpy(feats.data, static_cast<const uint8_t*>(g.features.data) + nb * frb, (ne - nb) * frb);
    Array labels = Array::Zeros(DType::kInt64, {ne - nb});
    std::copy(g.labels.as<int64_t>() + nb, g.labels.as<int64_t>() + ne, labels.as<int64_t>());
    DG_RETURN_IF_ERROR(NpyWrite(dir + "/indptr.npy", indptr));
    DG_RETURN_IF_ERROR(NpyWrite(dir + "/indices.npy", indices));
    DG_RETURN_IF_ERROR(NpyWrite(dir + "/node_data/features.npy", feats));
    DG_RETURN_IF_ERROR(NpyWrite(dir + "/node_data/labels.npy", labels));
    DG_RETURN_IF_ERROR(NpyWrite(dir + "/edge_data/weight.npy", weight));
    if (typed) DG_RETURN_IF_ERROR(NpyWrite(dir + "/edge_data/edge_types.npy", etypes));
    PartInfo info;
    info.dir = "part" + std::to_string(p);
    info.num_nodes = ne - nb;
    info.num_edges = ee - eb;
    c.parts.push_back(info);
  }
  DG_RETURN_IF_ERROR(RecordChecksums(out_dir, g.name + ".json", &c));
  std::string json = out_dir + "/" + g.name + ".json";
  std::ofstream out(json);
  out << PartitionConfigToJson(c);
  out.close();
  if (!out) return Status::IOError("write " + json + " failed");
  return json;
}

}  // namespace dg
