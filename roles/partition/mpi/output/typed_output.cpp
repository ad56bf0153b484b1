#include "roles/partition/mpi/output/typed_output.h"

#include <algorithm>

#include "roles/partition/mpi/output/shared_column.h"
#include "roles/partition/partition_output.h"

namespace dg::mpi {

std::vector<std::vector<int64_t>> PartTypeOffsets(const Rank& r, const VertexBlocks& blocks, const TypeLayout& types,
                                                  const std::vector<int32_t>& part,
                                                  const std::vector<int64_t>& node_map) {
  const int K = static_cast<int>(node_map.size()) - 1, T = types.num_types();
  const int64_t first = blocks.First(r.rank);
  std::vector<int64_t> count(static_cast<size_t>(K) * T, 0);  // [p * T + t]
  int t = part.empty() ? 0 : types.NodeType(first);
  for (size_t v = 0; v < part.size(); ++v) {
    while (first + static_cast<int64_t>(v) >= types.type_offsets[t + 1]) ++t;
    ++count[static_cast<size_t>(part[v]) * T + t];
  }
  SumAll(r, &count);
  std::vector<std::vector<int64_t>> off(K, std::vector<int64_t>(T + 1));
  for (int p = 0; p < K; ++p) {
    off[p][0] = node_map[p];
    for (int u = 0; u < T; ++u) off[p][u + 1] = off[p][u] + count[static_cast<size_t>(p) * T + u];
  }
  return off;
}

std::vector<int64_t> TypeLocalIds(const TypeLayout& types, std::vector<int64_t> ids) {
  for (int64_t& id : ids) id -= types.type_offsets[types.NodeType(id)];
  return ids;
}

Status WriteTypeNids(const Rank& r, const SharedStage& stage, const VertexBlocks& blocks, const TypeLayout& types,
                     const std::vector<int64_t>& new_id) {
  const std::string dir = stage.path() + "/type_nids";
  Status st = stage.leader() ? MakeDir(dir) : Status::OK();
  DG_RETURN_IF_ERROR(Agree(r, st));
  const int64_t first = blocks.First(r.rank), last = first + blocks.Count(r.rank);
  for (int t = 0; t < types.num_types(); ++t) {
    const int64_t tb = types.type_offsets[t], te = types.type_offsets[t + 1];
    std::vector<ColumnPiece> pieces;  // block q's share of the type's range, in rank order
    for (int q = 0; q < r.size; ++q) {
      const int64_t lo = std::max(tb, blocks.First(q)), hi = std::min(te, blocks.First(q) + blocks.Count(q));
      pieces.push_back({q, std::max<int64_t>(0, hi - lo)});
    }
    const int64_t lo = std::max(tb, first), hi = std::min(te, last);
    std::vector<int64_t> mine;
    if (hi > lo) mine.assign(new_id.begin() + (lo - first), new_id.begin() + (hi - first));
    st = WriteSharedColumn(r, dir + "/" + types.node_types[t] + ".npy", stage.leader(), pieces, mine);
    DG_RETURN_IF_ERROR(Agree(r, st));
  }
  return Status::OK();
}

}  // namespace dg::mpi
