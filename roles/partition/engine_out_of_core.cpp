#include "roles/partition/engines.h"

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

namespace dg {

Status PartitionOutOfCore(OutOfCoreSource src, const EdgeListOptions& eo,
                          const std::map<std::string, std::string>& edge_files, PartitionOptions po,
                          const StageInputFn& stage) {
  if (!edge_files.empty())
    return Status::InvalidArgument("--edge-data is not supported with --memory-budget (edge arrays are gathered in memory)");
  auto t0 = std::chrono::steady_clock::now();
  // Refuse early what cannot fit (METIS), before reading or writing anything.
  DG_ASSIGN_OR_RETURN(int64_t e0, CountInputEdges(src));
  if (e0 >= 0 && po.spec.method == PartitionMethod::kMetis) {
    int64_t n_hint = src.num_nodes;
    if (n_hint < 0 && !src.dataset_dir.empty()) {
      DG_ASSIGN_OR_RETURN(DatasetFiles df, ListDataset(src.dataset_dir));
      for (const auto& [nm, path] : df.node_files) {
        auto a = NpyMap(path);  // headers only; .npy.gz ones are skipped here
        if (a.ok() && !a->shape.empty()) {
          n_hint = a->shape[0];
          break;
        }
      }
    }
    DG_RETURN_IF_ERROR(CheckMemoryBudget(std::max<int64_t>(n_hint, 0), e0 * (eo.undirected ? 2 : 1), po));
  }
  ScratchDir scratch;
  DG_RETURN_IF_ERROR(scratch.Create(po.spec.tmp_dir.empty() ? DefaultTmpRoot(po) : po.spec.tmp_dir));
  SpillOptions spill;
  spill.tmp_dir = scratch.path();
  if (po.spec.run_bytes) spill.sort_bytes = po.spec.run_bytes;
  else spill.sort_bytes = std::max<uint64_t>(po.spec.memory_budget / 2, 1 << 20);
  spill.merge_bytes = 32 << 20;
  if (stage) DG_RETURN_IF_ERROR(stage(scratch.path(), &src));
  DG_ASSIGN_OR_RETURN(OutOfCoreInput in, OpenOutOfCoreInput(src, eo, spill, stdout));
  if (po.spec.normalize_features) {
    auto it = in.node_data.find("features");
    if (it == in.node_data.end())
      return Status::InvalidArgument("--normalize-features: the input has no node array 'features'");
    if (it->second.dtype != DType::kFloat32 || it->second.shape.size() != 2)
      return Status::InvalidArgument("--normalize-features: node array 'features': row normalization needs a float32 [N, F] array, got " +
                                     std::string(DTypeName(it->second.dtype)) + " " + it->second.ShapeString());
    po.normalize_rows = true;
  }
  double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  open input:        %.2f s (%lld nodes, %lld edges after normalization)\n", read_s,
              (long long)in.num_nodes, (long long)in.edges.size());
  GraphInput check;  // validation of names, K and output against the node arrays
  check.num_nodes = in.num_nodes;
  check.node_data = in.node_data;
  DG_RETURN_IF_ERROR(ValidatePartitionRequest(check, po));
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraphOutOfCore(&in, po));
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("done: %s (%d parts, edge cut %lld) in %.2f s total, peak RSS %.1f MB\n", cfg.path.c_str(),
              cfg.num_parts, (long long)cfg.edge_cut, total, PeakRssBytes() / 1048576.0);
  return Status::OK();
}

Status PartitionTypedOutOfCore(const std::string& dir, const std::string& scratch_dir, const PartitionOptions& o,
                               std::chrono::steady_clock::time_point t0) {
  const PartitionSpec& flags = o.spec;
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (flags.drop_self_loops || flags.drop_duplicates)
    return Status::InvalidArgument("--drop-self-loops and --drop-duplicates are not supported for a typed dataset "
                                   "out of core (--memory-budget); partition in memory");
  if (flags.merge_types) return PartitionMergedOutOfCore(dir, flags.undirected, scratch_dir, o);
  OutOfCoreInput in;
  std::string src, dst;
  DG_ASSIGN_OR_RETURN(TypeLayout layout, OpenTypedOutOfCore(dir, flags.undirected, scratch_dir, &src, &dst));
  in.num_nodes = layout.num_nodes();
  DG_ASSIGN_OR_RETURN(in.edges, EdgeSource::Map(src, dst));
  in.types = std::make_shared<TypeLayout>(std::move(layout));
  std::printf("  open input:        %.2f s (%lld nodes of %d types, %lld edges of %zu types)\n", seconds(),
              (long long)in.num_nodes, in.types->num_types(), (long long)in.edges.size(), in.types->edge_types.size());
  GraphInput check;
  check.num_nodes = in.num_nodes;
  DG_RETURN_IF_ERROR(ValidatePartitionRequest(check, o));
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraphOutOfCore(&in, o));
  std::printf("done: %s (%d parts, edge cut %lld) in %.2f s total, peak RSS %.1f MB\n", cfg.path.c_str(),
              cfg.num_parts, (long long)cfg.edge_cut, seconds(), PeakRssBytes() / 1048576.0);
  return Status::OK();
}

}  // namespace dg
