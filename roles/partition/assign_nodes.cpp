#include "roles/partition/assign_nodes.h"

#include <chrono>
#include <cstdio>

#include "common/base/logging.h"
#include "roles/partition/node_assignment.h"
#include "roles/partition/progress_log.h"  // FormatBytes
#include "roles/partition/stream_assignment.h"
#include "roles/partition/progress_log.h"

namespace dg {

Result<std::vector<int32_t>> AssignNodes(int64_t num_nodes, const EdgeSource& edges, const TypeLayout* types,
                                         const std::vector<uint8_t>& is_train, const PartitionOptions& o,
                                         const StreamSpill& spill) {
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  const int K = o.spec.num_parts;
  std::FILE* log = o.log;
  if (o.spec.method == PartitionMethod::kMetis && K > 1) {
    MetisOptions mo;
    mo.type_offsets = types ? &types->type_offsets : nullptr;
    mo.num_parts = K;
    mo.seed = o.spec.seed;
    mo.is_train = (o.spec.balance.train && !is_train.empty()) ? &is_train : nullptr;
    mo.balance_edges = o.spec.balance.edges;
    mo.niter = o.spec.metis_niter;
    if (o.spec.balance.train && is_train.empty())
      PartitionLog(log, "partition: warning: --balance train but no 'split' or 'train_mask' node array\n");
    DG_ASSIGN_OR_RETURN(MetisResult mr, MetisAssignment(num_nodes, edges, mo));
    PartitionLog(log, "  build METIS graph: %.2f s (%lld adjacency entries)\n", mr.build_seconds,
        (long long)mr.adjacency_entries);
    PartitionLog(log, "  METIS:             %.2f s (METIS edge cut %lld undirected edges)\n", mr.metis_seconds,
        (long long)mr.objval);
    return std::move(mr.part);
  }
  if (o.spec.method == PartitionMethod::kStream && K > 1) {
    StreamOptions so;
    so.num_parts = K;
    so.passes = o.spec.stream_passes;
    so.is_train = &is_train;
    so.tmp_dir = spill.tmp_dir;
    so.sort_records = spill.sort_records;
    if (spill.merge_bytes) so.merge_bytes = spill.merge_bytes;
    so.log = log;
    DG_ASSIGN_OR_RETURN(StreamResult sr, StreamAssignment(num_nodes, edges, so));
    if (spill.tmp_dir.empty())
      PartitionLog(log, "  stream assignment: %.2f s\n", seconds());
    else
      PartitionLog(log, "  stream assignment: %.2f s (%zu sorted runs, %s spilled)\n", seconds(), sr.runs,
          FormatBytes(sr.spilled_bytes).c_str());
    return std::move(sr.part);
  }
  std::vector<int32_t> part =
      types ? TypedRandomAssignment(types->type_offsets, K, o.spec.seed) : RandomAssignment(num_nodes, K, o.spec.seed);
  PartitionLog(log, "  assign (%s):   %.2f s\n", K == 1 ? "single part" : "random", seconds());
  return part;
}

}  // namespace dg
