// distgnn partition: a user's graph -> partitions on disk (docs/formats.md).
//
//   distgnn partition --dataset DIR [--undirected] [--drop-self-loops] [--drop-duplicates] [--normalize-features]
//                     --num-parts K --method metis|random|stream [--balance train,edges]
//                     --name NAME --out DIR [--force] [--seed S]
//                     [--memory-budget SIZE [--tmp-dir DIR] [--run-size SIZE]] [--stream-passes P]
//   distgnn partition --edges FILE [--num-nodes N] [--node-data NAME=FILE.npy ...]
//                     [--edge-data NAME=FILE.npy ...] ...same partition flags...
//   distgnn partition --dataset DIR --format ogb ...same partition flags...   (OGB's CSV files;
//                     with --memory-budget streamed by ogb_input.h)
//
// Every user mistake is one line and a non-zero exit, and nothing is written:
// flags are checked before reading, input before partitioning, and the output
// appears only by a final rename.
//
// With --memory-budget (or without it when the in-memory path would need more
// than half of the RAM) the out-of-core partitioner runs (roles/partition/
// out_of_core.h): same output, byte for byte, in bounded memory.
#include <unistd.h>

#include <chrono>
#include <functional>
#include <optional>
#include <cstdio>
#include <filesystem>

#include "common/storage/link_split.h"
#include "roles/partition/edge_split.h"
#include "common/storage/dataset.h"
#include "common/base/logging.h"
#include "common/io/npy.h"
#include "roles/partition/merged_input.h"
#include "roles/partition/ogb_input.h"
#include "roles/partition/out_of_core_input.h"
#include "roles/partition/node_assignment.h"
#include "roles/partition/partitioner.h"
#include "roles/partition/partition_dataset.h"
#include "roles/partition/typed_input.h"
#include "common/storage/typed_dataset.h"
#include "common/storage/ogb_dataset.h"

namespace dg {

namespace {

// Writes the input's intermediate files into the scratch directory and
// completes *src with them (--format ogb: ogb_input.h).
using StageInputFn = std::function<Status(const std::string& scratch_dir, OutOfCoreSource* src)>;

Status RunOutOfCore(OutOfCoreSource src, const EdgeListOptions& eo,
                    const std::map<std::string, std::string>& edge_files, bool normalize_features,
                    PartitionOptions po, const StageInputFn& stage = nullptr) {
  if (!edge_files.empty())
    return Status::InvalidArgument("--edge-data is not supported with --memory-budget (edge arrays are gathered in memory)");
  auto t0 = std::chrono::steady_clock::now();
  // Refuse early what cannot fit (METIS), before reading or writing anything.
  DG_ASSIGN_OR_RETURN(int64_t e0, CountInputEdges(src));
  if (e0 >= 0 && po.method == PartitionMethod::kMetis) {
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
  DG_RETURN_IF_ERROR(scratch.Create(po.tmp_dir.empty() ? DefaultTmpRoot(po) : po.tmp_dir));
  SpillOptions spill;
  spill.tmp_dir = scratch.path();
  if (po.run_bytes) spill.sort_bytes = po.run_bytes;
  else spill.sort_bytes = std::max<uint64_t>(po.memory_budget / 2, 1 << 20);
  spill.merge_bytes = 32 << 20;
  if (stage) DG_RETURN_IF_ERROR(stage(scratch.path(), &src));
  DG_ASSIGN_OR_RETURN(OutOfCoreInput in, OpenOutOfCoreInput(src, eo, spill, stdout));
  if (normalize_features) {
    auto it = in.node_data.find("features");
    if (it == in.node_data.end())
      return Status::InvalidArgument("--normalize-features: the input has no node array 'features'");
    if (it->second.dtype != DType::kFloat32 || it->second.shape.size() != 2)
      return Status::InvalidArgument("--normalize-features: node array 'features': row normalization needs a float32 [N, F] array, got " +
                                     std::string(DTypeName(it->second.dtype)) + " " + it->second.ShapeString());
    po.normalize_features = true;
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

// A typed dataset directory out of core (typed_input.h, merged_input.h), its
// intermediate files in scratch_dir.
Status RunTypedOutOfCore(const std::string& dir, const std::string& scratch_dir, const PartitionSpec& flags,
                         const PartitionOptions& o, std::chrono::steady_clock::time_point t0) {
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

// --format ogb under --memory-budget: OGB's files staged into the scratch
// directory (ogb_input.h), then the plain or typed out-of-core path. The node
// count is checked against the budget before anything is read.
Status RunOgbOutOfCore(const PartitionSpec& flags, const EdgeListOptions& eo, PartitionOptions po) {
  const std::string& dir = flags.dataset;
  auto t0 = std::chrono::steady_clock::now();
  if (IsOgbHeterogeneous(dir)) {
    DG_ASSIGN_OR_RETURN(TypedDataset meta, ReadOgbTypedMeta(dir));
    DG_RETURN_IF_ERROR(CheckMemoryBudget(meta.NumNodes(), 0, po));
    po.normalize_features = flags.normalize_features;  // 'features' of every type, row by row
    ScratchDir scratch;
    DG_RETURN_IF_ERROR(scratch.Create(po.tmp_dir.empty() ? DefaultTmpRoot(po) : po.tmp_dir));
    DG_ASSIGN_OR_RETURN(std::string staged, StageOgbTypedDataset(dir, scratch.path()));
    return NameOgbEdgeFiles(RunTypedOutOfCore(staged, scratch.path(), flags, po, t0), dir, staged);
  }
  DG_ASSIGN_OR_RETURN(OgbCounts counts, ReadOgbCounts(dir));
  if (counts.nodes >= 0)
    DG_RETURN_IF_ERROR(CheckMemoryBudget(counts.nodes, std::max<int64_t>(counts.edges, 0) * (eo.undirected ? 2 : 1), po));
  OutOfCoreSource src;
  src.edges_file = OgbCsvPath(dir + "/raw/edge");
  return RunOutOfCore(src, eo, {}, flags.normalize_features, po, [&](const std::string& scratch, OutOfCoreSource* s) {
    DG_ASSIGN_OR_RETURN(*s, StageOgbDataset(dir, scratch));
    return Status::OK();
  });
}

// A typed dataset directory (typed_input.h): in memory, or out of core with a budget.
Status RunTyped(const PartitionSpec& flags, const PartitionOptions& po) {
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
  o.normalize_features = flags.normalize_features;  // 'features' of every type, row by row
  if (o.memory_budget == 0 && !flags.drop_self_loops && !flags.drop_duplicates) {
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
    const bool metis = o.method == PartitionMethod::kMetis;
    const uint64_t need =
        static_cast<uint64_t>(edges * 64) + (metis ? MetisMemoryEstimate(0, static_cast<int64_t>(edges)) : 0);
    if (need > ram / 2) {
      o.memory_budget = ram / 2;
      std::printf("partition: in memory this input needs about %s, more than half the RAM: out of core with --memory-budget %s\n",
                  FormatBytes(need).c_str(), FormatBytes(o.memory_budget).c_str());
    }
  }
  if (o.memory_budget > 0 && edge_split)
    return Status::InvalidArgument("--edge-split is not supported out of core (--memory-budget); partition in memory");
  if (o.memory_budget > 0) {
    ScratchDir scratch;
    DG_RETURN_IF_ERROR(scratch.Create(o.tmp_dir.empty() ? DefaultTmpRoot(o) : o.tmp_dir));
    return RunTypedOutOfCore(flags.dataset, scratch.path(), flags, o, t0);
  }
  TypedLoadOptions lo;
  lo.undirected = flags.undirected;
  lo.drop_self_loops = flags.drop_self_loops;
  lo.drop_duplicates = flags.drop_duplicates;
  DG_ASSIGN_OR_RETURN(TypedDataset ds, LoadTypedDataset(flags.dataset, lo));
  if (flags.merge_types) return PartitionMergedInMemory(&ds, o, seconds());
  if (!edge_split) return PartitionTypedInMemory(&ds, o, seconds());
  DG_ASSIGN_OR_RETURN(TypedEdgeSplit split, HoldOutTypedDatasetEdges(&ds, flags.link_etype, *edge_split, o.seed));
  std::printf("  edge split:        %s: %lld train / %lld val / %lld test edges%s\n", split.etype.c_str(),
              (long long)split.num_train, (long long)split.held.val.src.size(), (long long)split.held.test.src.size(),
              split.reverse_etype.empty() ? "" : (", their " + split.reverse_etype + " copies held out too").c_str());
  PartitionConfig cfg;
  DG_RETURN_IF_ERROR(PartitionTypedInMemory(&ds, o, seconds(), &cfg));
  return WriteTypedLinkSplit(cfg, split, *edge_split, o.seed, flags.undirected);
}

}  // namespace

Status PartitionTypedInMemory(TypedDataset* ds, const PartitionOptions& o, double read_seconds, PartitionConfig* out) {
  auto t0 = std::chrono::steady_clock::now();
  const int T = static_cast<int>(ds->node_types.size());
  const size_t R = ds->edge_types.size();
  GraphInput in;
  in.types = std::make_shared<TypeLayout>(FlattenTypedDataset(ds, &in.edges));
  in.num_nodes = in.types->num_nodes();
  std::printf("  read input:        %.2f s (%lld nodes of %d types, %lld edges of %zu types)\n", read_seconds,
              (long long)in.num_nodes, T, (long long)in.edges.src.size(), R);
  std::fflush(stdout);
  DG_RETURN_IF_ERROR(ValidatePartitionRequest(in, o));
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraph(&in, o));
  const double total = read_seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("done: %s (%d parts, edge cut %lld) in %.2f s total, peak RSS %.1f MB\n", cfg.path.c_str(),
              cfg.num_parts, (long long)cfg.edge_cut, total, PeakRssBytes() / 1048576.0);
  if (out) *out = std::move(cfg);
  return Status::OK();
}

// The single-machine partitioner's options from the spec.
PartitionOptions PartitionOptionsOf(const PartitionSpec& s) {
  PartitionOptions o;
  o.graph_name = s.name;
  o.out_dir = s.out;
  o.method = s.method;
  o.num_parts = s.num_parts;
  o.force = s.force;
  o.seed = s.seed;
  o.log = stdout;
  o.balance_train = s.balance.train;
  o.balance_edges = s.balance.edges;
  o.stream_passes = s.stream_passes;
  o.metis_niter = s.metis_niter;
  o.memory_budget = s.memory_budget;
  o.run_bytes = s.run_bytes;
  o.tmp_dir = s.tmp_dir;
  return o;
}

Status PartitionDataset(const PartitionSpec& flags) {
  const PartitionMethod method = flags.method;
  const std::string &dataset = flags.dataset, &edges_file = flags.edges_file, &out = flags.out;
  int64_t num_nodes = flags.num_nodes;
  const uint64_t seed = flags.seed;
  const std::map<std::string, std::string> &node_files = flags.node_files, &edge_files = flags.edge_files;
  PartitionOptions po_ = PartitionOptionsOf(flags);
  std::error_code ec;
  if (std::filesystem::exists(out, ec) && !po_.force)
    return Status::AlreadyExists("output " + out + " exists (use --force to replace it)");

  const bool ogb = flags.format == InputFormat::kOgb;
  if (ogb && IsOgbHeterogeneous(dataset)) {
    if (!edge_files.empty() || flags.edge_split)
      return Status::InvalidArgument("--edge-data and --edge-split are not supported for an OGB typed dataset");
    if (po_.memory_budget > 0) return RunOgbOutOfCore(flags, EdgeListOptions{}, po_);
    auto t0 = std::chrono::steady_clock::now();
    TypedLoadOptions lo;
    lo.undirected = flags.undirected;
    lo.drop_self_loops = flags.drop_self_loops;
    lo.drop_duplicates = flags.drop_duplicates;
    DG_ASSIGN_OR_RETURN(TypedDataset ds, LoadOgbTypedDataset(dataset, lo));
    PartitionOptions o = po_;
    o.normalize_features = flags.normalize_features;
    const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (flags.merge_types) return PartitionMergedInMemory(&ds, o, read_s);
    return PartitionTypedInMemory(&ds, o, read_s);
  }
  if (!ogb && !dataset.empty() && IsTypedDatasetDir(dataset)) return RunTyped(flags, po_);
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
  ooc_src.node_files = node_files;
  ooc_src.num_nodes = num_nodes;
  if (po_.memory_budget == 0 && !ogb) {
    // No budget: in memory, unless that would need more than half the RAM.
    DG_ASSIGN_OR_RETURN(int64_t e0, CountInputEdges(ooc_src));
    const uint64_t ram = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
    const double edges = static_cast<double>(std::max<int64_t>(e0, 0)) * (eo.undirected ? 2 : 1);
    const uint64_t need =
        static_cast<uint64_t>(edges * 48) +
        (method == PartitionMethod::kMetis ? MetisMemoryEstimate(0, static_cast<int64_t>(edges)) : 0);
    if (e0 > 0 && need > ram / 2) {
      po_.memory_budget = ram / 2;
      std::printf("partition: in memory this input needs about %s, more than half the RAM: out of core with --memory-budget %s\n",
                  FormatBytes(need).c_str(), FormatBytes(po_.memory_budget).c_str());
    }
  }
  std::optional<EdgeSplitFractions> edge_split = flags.edge_split;  // common/storage/link_split.h
  if (edge_split && po_.memory_budget > 0)
    return Status::InvalidArgument("--edge-split is not supported out of core (--memory-budget); partition in memory");
  if (po_.memory_budget > 0 && ogb) {
    if (!edge_files.empty())
      return Status::InvalidArgument("--edge-data is not supported with --memory-budget (edge arrays are gathered in memory)");
    return RunOgbOutOfCore(flags, eo, po_);
  }
  if (po_.memory_budget > 0) return RunOutOfCore(ooc_src, eo, edge_files, flags.normalize_features, po_);
  EdgeListOptions raw = eo;  // read without normalizing; we normalize below (with origins if needed)
  raw.undirected = raw.drop_self_loops = raw.drop_duplicates = false;

  auto t0 = std::chrono::steady_clock::now();
  GraphInput in;
  if (ogb) {
    DG_ASSIGN_OR_RETURN(Dataset ds, LoadOgbDataset(dataset, raw));
    in.num_nodes = ds.num_nodes;
    in.edges = std::move(ds.edges);
    in.node_data = std::move(ds.node_data);
  } else if (!dataset.empty()) {
    DG_ASSIGN_OR_RETURN(Dataset ds, LoadDataset(dataset, raw));
    in.num_nodes = ds.num_nodes;
    in.edges = std::move(ds.edges);
    in.node_data = std::move(ds.node_data);
  } else {
    for (const auto& [nm, path] : node_files) {
      DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
      if (a.shape.empty())
        return Status::InvalidArgument(path + ": node array '" + nm + "' is 0-d; need one row per node");
      if (num_nodes < 0) num_nodes = a.shape[0];
      if (a.shape[0] != num_nodes)
        return Status::InvalidArgument(path + ": node array '" + nm + "' has " + std::to_string(a.shape[0]) +
                                       " rows, expected " + std::to_string(num_nodes) + " (one per node)");
      in.node_data[nm] = std::move(a);
    }
    DG_ASSIGN_OR_RETURN(in.edges, ReadEdgeListText(edges_file, num_nodes));
    in.num_nodes = num_nodes >= 0 ? num_nodes : in.edges.max_id + 1;
  }
  const int64_t input_edges = static_cast<int64_t>(in.edges.src.size());
  for (const auto& [nm, path] : edge_files) {
    DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
    if (a.shape.empty() || a.shape[0] != input_edges)
      return Status::InvalidArgument(path + ": edge array '" + nm + "' has " +
                                     (a.shape.empty() ? std::string("no") : std::to_string(a.shape[0])) +
                                     " rows, expected " + std::to_string(input_edges) + " (one per input edge)");
    in.edge_data[nm] = std::move(a);
  }
  // A dataset's own edge_split.npy (one int8 per input edge) unless --edge-split is given.
  bool input_split_present = false;
  Array input_split;
  if (!dataset.empty() && !ogb && !edge_split) {
    DG_RETURN_IF_ERROR(LoadInputEdgeSplit(dataset, input_edges, &input_split_present, &input_split));
    if (input_split_present) {
      edge_split = EdgeSplitFractions{-1, -1, -1};  // recorded as "from edge_split.npy"
      std::printf("  edge split:        from %s/edge_split.npy\n", dataset.c_str());
    }
  }
  NormalizeEdges(&in.edges, eo, in.edge_data.empty() && !input_split_present ? nullptr : &in.edge_origin);
  HeldOutEdges held;
  if (edge_split) {
    std::vector<int8_t> split;
    if (input_split_present) {
      DG_ASSIGN_OR_RETURN(split, SplitFromInput(input_split, in.edges, in.edge_origin, eo.undirected));
    } else {
      split = AssignEdgeSplit(in.edges, *edge_split, seed, eo.undirected);
    }
    DG_ASSIGN_OR_RETURN(held, SplitEdgeList(&in.edges, &in.edge_origin, split));
    std::printf("  edge split:        %lld train / %lld val / %lld test edges\n", (long long)in.edges.src.size(),
                (long long)held.val.src.size(), (long long)held.test.src.size());
  }
  if (flags.normalize_features) {
    auto it = in.node_data.find("features");
    if (it == in.node_data.end())
      return Status::InvalidArgument("--normalize-features: the input has no node array 'features'");
    DG_RETURN_IF_ERROR(RowNormalize(&it->second, "--normalize-features: node array 'features'"));
  }
  double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  read input:        %.2f s (%lld nodes, %lld input edges -> %lld after normalization)\n",
              read_s, (long long)in.num_nodes, (long long)input_edges, (long long)in.edges.src.size());
  std::fflush(stdout);

  DG_RETURN_IF_ERROR(ValidatePartitionRequest(in, po_));
  auto t1 = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraph(&in, po_));
  if (edge_split)
    DG_RETURN_IF_ERROR(WriteLinkSplit(cfg, held, *edge_split, seed, eo.undirected,
                                      static_cast<int64_t>(cfg.num_edges)));
  double part_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::printf("done: %s (%d parts, edge cut %lld) in %.2f s total, peak RSS %.1f MB\n", cfg.path.c_str(),
              cfg.num_parts, (long long)cfg.edge_cut, read_s + part_s, PeakRssBytes() / 1048576.0);
  return Status::OK();
}


}  // namespace dg
