// A typed dataset directory (typed_input.h): in memory, or out of core with a
// budget or when in memory would need more than half the RAM.
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

Status PartitionTypedDataset(const PartitionOptions& po) {
  const PartitionSpec& flags = po.spec;
  if (!flags.edge_files.empty()) return Status::InvalidArgument("--edge-data is not supported for a typed dataset");
  const std::optional<EdgeSplitFractions>& edge_split = flags.edge_split;  // link prediction on one edge type (edge_split.h)
  if (edge_split) {
    if (flags.link_etype.empty()) {
      DG_ASSIGN_OR_RETURN(TypedDataset meta, ReadTypedMeta(flags.dataset));
      std::string list;
      for (size_t t = 0; t < meta.edge_types.size(); ++t) {
        const EdgeTypeData& e = meta.edge_types[t];
        list += (t ? ", " : "") + e.src_type + ":" + e.relation + ":" + e.dst_type;
      }
      return Status::InvalidArgument(flags.dataset + " is a typed dataset: --edge-split needs --link-etype "
                                     "src:relation:dst, the edge type to split (edge types: " + list + ")");
    }
  } else if (!flags.link_etype.empty()) {
    return Status::InvalidArgument("--link-etype goes with --edge-split (the fractions of that edge type to hold out)");
  }
  if (edge_split && flags.merge_types)
    return Status::InvalidArgument("--edge-split and --merge-types: a merged partition has no edge types to split "
                                   "one of; partition the typed graph with --edge-split --link-etype");
  auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  PartitionOptions o = po;
  o.normalize_rows = flags.normalize_features;  // 'features' of every type, row by row
  if (o.spec.memory_budget == 0 && !flags.drop_self_loops && !flags.drop_duplicates) {
    // As for one type: out of core when in memory would need more than half the
    // RAM. Edge counts from the .npy headers (text edge files are not counted).
    DG_ASSIGN_OR_RETURN(TypedDataset meta, ReadTypedMeta(flags.dataset));
    double edges = 0;
    for (const EdgeTypeData& et : meta.edge_types) {
      auto path = TypedEdgeFile(flags.dataset, et);
      if (!path.ok() || path->size() < 4 || path->compare(path->size() - 4, 4, ".npy") != 0) continue;
      auto a = NpyMap(*path);
      if (a.ok() && !a->shape.empty()) edges += static_cast<double>(a->shape[0]);
    }
    edges *= flags.undirected ? 2 : 1;
    const uint64_t ram = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    const bool metis = o.spec.method == PartitionMethod::kMetis;
    const uint64_t need =
        static_cast<uint64_t>(edges * 64) + (metis ? MetisMemoryEstimate(0, static_cast<int64_t>(edges)) : 0);
    if (need > ram / 2) {
      o.spec.memory_budget = ram / 2;
      std::printf("partition: in memory this input needs about %s, more than half the RAM: out of core with --memory-budget %s\n",
                  FormatBytes(need).c_str(), FormatBytes(o.spec.memory_budget).c_str());
    }
  }
  if (o.spec.memory_budget > 0 && edge_split)
    return Status::InvalidArgument("--edge-split is not supported out of core (--memory-budget); partition in memory");
  if (o.spec.memory_budget > 0) {
    ScratchDir scratch;
    DG_RETURN_IF_ERROR(scratch.Create(o.spec.tmp_dir.empty() ? DefaultTmpRoot(o) : o.spec.tmp_dir));
    return PartitionTypedOutOfCore(flags.dataset, scratch.path(), o, t0);
  }
  TypedLoadOptions lo;
  lo.undirected = flags.undirected;
  lo.drop_self_loops = flags.drop_self_loops;
  lo.drop_duplicates = flags.drop_duplicates;
  DG_ASSIGN_OR_RETURN(TypedDataset ds, LoadTypedDataset(flags.dataset, lo));
  if (flags.merge_types) return PartitionMergedInMemory(&ds, o, seconds());
  if (!edge_split) return PartitionTypedInMemory(&ds, o, seconds());
  DG_ASSIGN_OR_RETURN(TypedEdgeSplit split, HoldOutTypedDatasetEdges(&ds, flags.link_etype, *edge_split, o.spec.seed));
  std::printf("  edge split:        %s: %lld train / %lld val / %lld test edges%s\n", split.etype.c_str(),
              (long long)split.num_train, (long long)split.held.val.src.size(), (long long)split.held.test.src.size(),
              split.reverse_etype.empty() ? "" : (", their " + split.reverse_etype + " copies held out too").c_str());
  PartitionConfig cfg;
  DG_RETURN_IF_ERROR(PartitionTypedInMemory(&ds, o, seconds(), &cfg));
  return WriteTypedLinkSplit(cfg, split, *edge_split, o.spec.seed, flags.undirected);
}

}  // namespace dg
