// A plain dataset directory, an edge list with node arrays, or OGB's
// homogeneous CSVs: in memory, or out of core with a budget or when in memory
// would need more than half the RAM.
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

namespace {

// The graph as read, its edges not normalized yet.
Result<GraphInput> ReadPlainGraph(const PartitionSpec& spec) {
  EdgeListOptions raw;  // read without normalizing: PartitionInMemory normalizes (with origins if needed)
  int64_t num_nodes = spec.num_nodes;
  GraphInput in;
  if (spec.format == InputFormat::kOgb) {
    DG_ASSIGN_OR_RETURN(Dataset ds, LoadOgbDataset(spec.dataset, raw));
    in.num_nodes = ds.num_nodes;
    in.edges = std::move(ds.edges);
    in.node_data = std::move(ds.node_data);
  } else if (!spec.dataset.empty()) {
    DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(spec.dataset, raw));
    in.num_nodes = ds.num_nodes;
    in.edges = std::move(ds.edges);
    in.node_data = std::move(ds.node_data);
  } else {
    for (const auto& [nm, path] : spec.node_files) {
      DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
      if (a.shape.empty())
        return Status::InvalidArgument(path + ": node array '" + nm + "' is 0-d; need one row per node");
      if (num_nodes < 0) num_nodes = a.shape[0];
      if (a.shape[0] != num_nodes)
        return Status::InvalidArgument(path + ": node array '" + nm + "' has " + std::to_string(a.shape[0]) +
                                       " rows, expected " + std::to_string(num_nodes) + " (one per node)");
      in.node_data[nm] = std::move(a);
    }
    DG_ASSIGN_OR_RETURN(in.edges, ReadEdgeListText(spec.edges_file, num_nodes));
    in.num_nodes = num_nodes >= 0 ? num_nodes : in.edges.max_id + 1;
  }
  return in;
}

}  // namespace

Status PartitionPlainDataset(PartitionOptions po) {
  const PartitionSpec& flags = po.spec;
  const std::string &dataset = flags.dataset, &edges_file = flags.edges_file;
  const bool ogb = flags.format == InputFormat::kOgb;
  const std::map<std::string, std::string>& edge_files = flags.edge_files;
  if (!flags.link_etype.empty())
    return Status::InvalidArgument("--link-etype: " + (dataset.empty() ? edges_file : dataset) +
                                   " is not a typed dataset (it has one edge type; --edge-split alone splits it)");
  if (flags.merge_types)
    return Status::InvalidArgument("--merge-types merges the node and edge types of a typed dataset; " +
                                   (dataset.empty() ? "--edges " + edges_file + " has one of each"
                                                    : dataset + " is not one (" +
                                                          (ogb ? "no raw/num-node-dict.csv.gz" : "no meta.json with node_types") +
                                                          ")"));

  EdgeListOptions eo;
  eo.undirected = flags.undirected;
  eo.drop_self_loops = flags.drop_self_loops;
  eo.drop_duplicates = flags.drop_duplicates;

  OutOfCoreSource ooc_src;
  ooc_src.dataset_dir = dataset;
  ooc_src.edges_file = edges_file;
  ooc_src.node_files = flags.node_files;
  ooc_src.num_nodes = flags.num_nodes;
  if (po.spec.memory_budget == 0 && !ogb) {
    // No budget: in memory, unless that would need more than half the RAM.
    DG_ASSIGN_OR_RETURN(int64_t e0, CountInputEdges(ooc_src));
    const uint64_t ram = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    const double edges = static_cast<double>(std::max<int64_t>(e0, 0)) * (eo.undirected ? 2 : 1);
    const uint64_t need =
        static_cast<uint64_t>(edges * 48) +
        (po.spec.method == PartitionMethod::kMetis ? MetisMemoryEstimate(0, static_cast<int64_t>(edges)) : 0);
    if (e0 > 0 && need > ram / 2) {
      po.spec.memory_budget = ram / 2;
      std::printf("partition: in memory this input needs about %s, more than half the RAM: out of core with --memory-budget %s\n",
                  FormatBytes(need).c_str(), FormatBytes(po.spec.memory_budget).c_str());
    }
  }
  if (flags.edge_split && po.spec.memory_budget > 0)
    return Status::InvalidArgument("--edge-split is not supported out of core (--memory-budget); partition in memory");
  if (po.spec.memory_budget > 0 && ogb) {
    if (!edge_files.empty())
      return Status::InvalidArgument("--edge-data is not supported with --memory-budget (edge arrays are gathered in memory)");
    return PartitionOgbOutOfCore(eo, po);
  }
  if (po.spec.memory_budget > 0) return PartitionOutOfCore(ooc_src, eo, edge_files, po);
  const auto t0 = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(GraphInput in, ReadPlainGraph(flags));
  return PartitionInMemory(po, std::move(in), t0);
}

}  // namespace dg
