// OGB's CSV files (ogb_input.h): the typed layout in memory or out of core,
// the homogeneous one out of core (in memory it is a plain input).
#include "roles/partition/dataset_kinds.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>

#include "common/base/logging.h"
#include "common/io/npy.h"
#include "common/storage/dataset.h"
#include "common/storage/link_split.h"
#include "common/storage/ogb_dataset.h"
#include "common/storage/typed_dataset.h"
#include "roles/partition/edge_split.h"
#include "roles/partition/merged_input.h"
#include "roles/partition/node_assignment.h"
#include "roles/partition/ogb_input.h"
#include "roles/partition/out_of_core.h"
#include "roles/partition/out_of_core_input.h"
#include "roles/partition/partitioner.h"
#include "roles/partition/progress_log.h"
#include "roles/partition/typed_input.h"
#include "roles/partition/engines.h"

namespace dg {

Status PartitionOgbTypedDataset(const PartitionOptions& po) {
  const PartitionSpec& flags = po.spec;
  if (!flags.edge_files.empty() || flags.edge_split)
    return Status::InvalidArgument("--edge-data and --edge-split are not supported for an OGB typed dataset");
  if (po.spec.memory_budget > 0) return PartitionOgbOutOfCore(EdgeListOptions{}, po);
  auto t0 = std::chrono::steady_clock::now();
  TypedLoadOptions lo;
  lo.undirected = flags.undirected;
  lo.drop_self_loops = flags.drop_self_loops;
  lo.drop_duplicates = flags.drop_duplicates;
  DG_ASSIGN_OR_RETURN(TypedDataset ds, LoadOgbTypedDataset(flags.dataset, lo));
  PartitionOptions o = po;
  o.normalize_rows = flags.normalize_features;
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (flags.merge_types) return PartitionMergedInMemory(&ds, o, read_s);
  return PartitionTypedInMemory(&ds, o, read_s);
}

// --format ogb under --memory-budget: OGB's files staged into the scratch
// directory (ogb_input.h), then the plain or typed out-of-core path. The node
// count is checked against the budget before anything is read.
Status PartitionOgbOutOfCore(const EdgeListOptions& eo, PartitionOptions po) {
  const PartitionSpec& flags = po.spec;
  const std::string& dir = flags.dataset;
  auto t0 = std::chrono::steady_clock::now();
  if (IsOgbHeterogeneous(dir)) {
    DG_ASSIGN_OR_RETURN(TypedDataset meta, ReadOgbTypedMeta(dir));
    DG_RETURN_IF_ERROR(CheckMemoryBudget(meta.NumNodes(), 0, po));
    po.normalize_rows = flags.normalize_features;  // 'features' of every type, row by row
    ScratchDir scratch;
    DG_RETURN_IF_ERROR(scratch.Create(po.spec.tmp_dir.empty() ? DefaultTmpRoot(po) : po.spec.tmp_dir));
    DG_ASSIGN_OR_RETURN(std::string staged, StageOgbTypedDataset(dir, scratch.path()));
    return NameOgbEdgeFiles(PartitionTypedOutOfCore(staged, scratch.path(), po, t0), dir, staged);
  }
  DG_ASSIGN_OR_RETURN(OgbCounts counts, ReadOgbCounts(dir));
  if (counts.nodes >= 0)
    DG_RETURN_IF_ERROR(CheckMemoryBudget(counts.nodes, std::max<int64_t>(counts.edges, 0) * (eo.undirected ? 2 : 1), po));
  OutOfCoreSource src;
  src.edges_file = OgbCsvPath(dir + "/raw/edge");
  return PartitionOutOfCore(src, eo, {}, po, [&](const std::string& scratch, OutOfCoreSource* s) {
    DG_ASSIGN_OR_RETURN(*s, StageOgbDataset(dir, scratch));
    return Status::OK();
  });
}

}  // namespace dg
