#include "common/sampling/link_partition.h"

#include "common/io/npy.h"
#include "common/sampling/minibatch.h"
#include "common/storage/link_split.h"

namespace dg {
namespace {

Status LoadCsr(const PartitionConfig& pc, int p, Array* indptr, Array* indices) {
  DG_ASSIGN_OR_RETURN(*indptr, NpyLoad(pc.PartDir(p) + "/indptr.npy"));
  DG_ASSIGN_OR_RETURN(*indices, NpyLoad(pc.PartDir(p) + "/indices.npy"));
  const int64_t rows = pc.node_map[p + 1] - pc.node_map[p];
  if (indptr->dtype != DType::kInt64 || indptr->rows() != rows + 1 || indices->dtype != DType::kInt64)
    return Status::Corruption(pc.PartDir(p) + ": indptr.npy / indices.npy are not int64 CSR arrays of " +
                              std::to_string(rows) + " rows");
  return Status::OK();
}

}  // namespace

Status TrainEdgeShare(const PartitionConfig& pc, int world, int rank, EdgeTable* table, std::vector<int64_t>* ids) {
  std::vector<int64_t> all(static_cast<size_t>(pc.num_edges));
  for (int64_t i = 0; i < pc.num_edges; ++i) all[i] = i;
  *ids = NodeSplit(all, world, rank, /*even=*/true);
  if (ids->empty()) return Status::OK();
  const int64_t lo = ids->front(), hi = ids->back();
  for (int p = 0; p < pc.num_parts; ++p) {
    if (pc.edge_map[p + 1] <= lo || pc.edge_map[p] > hi) continue;
    Array indptr, indices;
    DG_RETURN_IF_ERROR(LoadCsr(pc, p, &indptr, &indices));
    table->AddCsr(pc.edge_map[p], pc.node_map[p], indptr.as<int64_t>(), indptr.rows() - 1, indices.as<int64_t>());
  }
  return Status::OK();
}

Result<std::vector<int64_t>> InDegrees(const PartitionConfig& pc) {
  std::vector<int64_t> deg(static_cast<size_t>(pc.num_nodes), 0);
  for (int p = 0; p < pc.num_parts; ++p) {
    DG_ASSIGN_OR_RETURN(Array indptr, NpyLoad(pc.PartDir(p) + "/indptr.npy"));
    const int64_t rows = pc.node_map[p + 1] - pc.node_map[p];
    if (indptr.dtype != DType::kInt64 || indptr.rows() != rows + 1)
      return Status::Corruption(pc.PartDir(p) + "/indptr.npy: expected int64 [" + std::to_string(rows + 1) + "]");
    const int64_t* ip = indptr.as<int64_t>();
    for (int64_t r = 0; r < rows; ++r) deg[pc.node_map[p] + r] = ip[r + 1] - ip[r];
  }
  return deg;
}

Result<PartitionTypedLink> TypedTrainEdgeShare(const PartitionConfig& pc, const LinkSplitInfo& info, int world,
                                               int rank, EdgeTable* table, std::vector<int64_t>* ids) {
  if (info.etype.empty())
    return Status::InvalidArgument(pc.base_dir + "/link_split.json names no edge type: partition the typed dataset "
                                   "with --edge-split and --link-etype src:relation:dst");
  std::vector<EdgeTypeNames> names;
  for (const auto& e : pc.edge_types) names.push_back({e.src, e.relation, e.dst});
  PartitionTypedLink out;
  DG_ASSIGN_OR_RETURN(out.etype, MatchEdgeType(names, info.etype, pc.base_dir + "/link_split.json: etype"));
  out.reverse_etype = MatchReverseEdgeType(names, out.etype);
  const int dst_type = pc.edge_types[out.etype].dst_type;
  std::vector<int64_t> range_start;  // index of each part's first destination node in range order
  for (int p = 0; p < pc.num_parts; ++p) {
    const int64_t first = pc.node_type_offsets[p][dst_type], count = pc.node_type_offsets[p][dst_type + 1] - first;
    range_start.push_back(out.dst_count);
    out.dst_ranges.emplace_back(first, count);
    out.dst_count += count;
  }
  out.dst_degrees.assign(static_cast<size_t>(out.dst_count), 0);
  std::vector<int64_t> src, dst;
  for (int p = 0; p < pc.num_parts; ++p) {
    Array indptr, indices;
    DG_RETURN_IF_ERROR(LoadCsr(pc, p, &indptr, &indices));
    const std::string et_path = pc.PartDir(p) + "/edge_types.npy";
    DG_ASSIGN_OR_RETURN(Array etypes, NpyLoad(et_path));
    if (etypes.dtype != pc.EdgeTypeDType() || etypes.rows() != indices.rows())
      return Status::Corruption(et_path + ": expected " + DTypeName(pc.EdgeTypeDType()) + " [" +
                                std::to_string(indices.rows()) + "]");
    auto type_of = [&](int64_t e) -> int64_t {
      return etypes.dtype == DType::kUInt8 ? etypes.as<uint8_t>()[e] : etypes.as<int32_t>()[e];
    };
    const int64_t* ip = indptr.as<int64_t>();
    const int64_t* ix = indices.as<int64_t>();
    for (int64_t r = 0; r + 1 < indptr.rows(); ++r)
      for (int64_t e = ip[r]; e < ip[r + 1]; ++e) {
        if (type_of(e) != out.etype) continue;
        const int64_t d = pc.node_map[p] + r;
        src.push_back(ix[e]);
        dst.push_back(d);
        ++out.dst_degrees[static_cast<size_t>(range_start[p] + d - out.dst_ranges[p].first)];
      }
  }
  if (src.empty())
    return Status::InvalidArgument(pc.path + ": no edges of type " + info.etype + " left for training");
  std::vector<int64_t> all(src.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  *ids = NodeSplit(all, world, rank, /*even=*/true);
  table->AddPairs(0, std::move(src), std::move(dst));
  return out;
}

Status SetTypedLinkBatchOptions(const PartitionTypedLink& link, NegativeDistribution distribution,
                                LinkBatchOptions* options) {
  DG_ASSIGN_OR_RETURN(options->sampler, NegativeSampler::Create(distribution, link.dst_count, link.dst_degrees,
                                                                "train.negative.distribution"));
  options->negative_ranges = link.dst_ranges;
  options->positive_etype = link.etype;
  options->reverse_etype = link.reverse_etype;
  options->exclude_reverse = link.reverse_etype >= 0;
  return Status::OK();
}

Status SetLinkBatchOptions(const PartitionConfig& pc, const LinkSplitInfo& info, NegativeDistribution distribution,
                           LinkBatchOptions* options) {
  std::vector<int64_t> degrees;
  if (distribution == NegativeDistribution::kDegree) {
    DG_ASSIGN_OR_RETURN(degrees, InDegrees(pc));
  }
  DG_ASSIGN_OR_RETURN(options->sampler,
                      NegativeSampler::Create(distribution, pc.num_nodes, degrees, "train.negative.distribution"));
  options->exclude_reverse = info.undirected;
  return Status::OK();
}

Status HeldOutShare(const PartitionConfig& pc, const std::string& which, int world, int rank, EdgeList* out) {
  EdgeList all;
  for (int p = 0; p < pc.num_parts; ++p) DG_RETURN_IF_ERROR(ReadHeldOutEdges(pc.PartDir(p), which, &all));
  const int64_t n = static_cast<int64_t>(all.src.size());
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) idx[i] = i;
  for (int64_t i : NodeSplit(idx, world, rank, /*even=*/false)) {
    out->src.push_back(all.src[i]);
    out->dst.push_back(all.dst[i]);
  }
  return Status::OK();
}

}  // namespace dg
