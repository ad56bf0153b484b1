#include "roles/partition/mpi/methods/whole_graph.h"

#include <metis.h>

#include <limits>

#include "roles/partition/edge_source.h"
#include "roles/partition/node_assignment.h"

namespace dg::mpi {
namespace {

// The graph's edges on rank 0 as src and dst columns in edge id order (empty
// elsewhere; collective). Edge ids are the positions of the single-machine
// edge list: [0, E), each once.
Status GatherEdges(const Rank& r, const std::vector<Edge>& edges, int64_t num_edges, std::vector<int64_t>* src,
                   std::vector<int64_t>* dst) {
  std::vector<int64_t> mine(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) mine[i] = edges[i].id;
  const std::vector<int64_t> ids = GatherOnZero(r, mine, MPI_INT64_T);
  Status st;
  for (std::vector<int64_t>* column : {src, dst}) {
    for (size_t i = 0; i < edges.size(); ++i) mine[i] = column == src ? edges[i].src : edges[i].dst;
    const std::vector<int64_t> all = GatherOnZero(r, mine, MPI_INT64_T);
    if (r.rank != 0) continue;
    column->assign(static_cast<size_t>(num_edges), -1);
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] < 0 || ids[k] >= num_edges || (*column)[ids[k]] >= 0) {
        st = Status::Internal("gathering the graph: edge id " + std::to_string(ids[k]) + " out of [0, " +
                              std::to_string(num_edges) + ") or repeated");
        break;
      }
      (*column)[ids[k]] = all[k];
    }
  }
  return st;
}

}  // namespace

bool MetisTakes(int64_t num_nodes, int64_t num_edges) {
  constexpr int64_t kIdxMax = std::numeric_limits<idx_t>::max();
  return num_nodes <= kIdxMax && 2 * num_edges <= kIdxMax;
}

Result<std::vector<int32_t>> WholeGraphParts(const Rank& r, const VertexBlocks& blocks, const std::vector<Edge>& edges,
                                             const BlockVertices& v, const AssignOptions& o, double* seconds) {
  const int64_t num_nodes = blocks.First(r.size), num_edges = SumAll(r, static_cast<int64_t>(edges.size()));
  std::vector<int64_t> src, dst;
  const Status gathered = GatherEdges(r, edges, num_edges, &src, &dst);
  // The train flags of every node (none when the dataset has no split), as TrainFlags reads them.
  std::vector<uint8_t> train = GatherOnZero(r, v.train, MPI_UINT8_T);
  if (static_cast<int64_t>(train.size()) != num_nodes) train.clear();
  std::vector<int64_t> type_offsets(1, 0);  // node ids are type-major
  for (int64_t count : v.type_counts) type_offsets.push_back(type_offsets.back() + count);
  MetisOptions mo;
  mo.num_parts = o.spec.num_parts;
  mo.seed = o.spec.seed;
  mo.is_train = o.spec.balance.train && !train.empty() ? &train : nullptr;
  mo.balance_edges = o.spec.balance.edges;
  mo.type_offsets = v.type_counts.empty() ? nullptr : &type_offsets;
  return PartsOnZero(r, blocks.Count(r.rank), [&]() -> Result<std::vector<int32_t>> {
    DG_RETURN_IF_ERROR(gathered);
    DG_ASSIGN_OR_RETURN(MetisResult mr, MetisAssignment(num_nodes, EdgeSource::FromVectors(src, dst), mo));
    return std::move(mr.part);
  }, seconds);
}

}  // namespace dg::mpi
