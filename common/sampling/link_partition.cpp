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
