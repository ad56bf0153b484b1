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

namespace {

// --edge-data's arrays (one row per input edge) into in->edge_data.
Status LoadEdgeArrays(const std::map<std::string, std::string>& edge_files, GraphInput* in) {
  const int64_t input_edges = static_cast<int64_t>(in->edges.src.size());
  for (const auto& [nm, path] : edge_files) {
    DG_ASSIGN_OR_RETURN(Array a, NpyLoad(path));
    if (a.shape.empty() || a.shape[0] != input_edges)
      return Status::InvalidArgument(path + ": edge array '" + nm + "' has " +
                                     (a.shape.empty() ? std::string("no") : std::to_string(a.shape[0])) +
                                     " rows, expected " + std::to_string(input_edges) + " (one per input edge)");
    in->edge_data[nm] = std::move(a);
  }
  return Status::OK();
}

// Normalizes the edges (with origins when edge rows must follow them) and
// holds out --edge-split's edges, or those of the dataset's edge_split.npy
// (one int8 per input edge) when no --edge-split is given.
Status NormalizeAndSplit(const PartitionSpec& spec, const EdgeListOptions& eo, GraphInput* in,
                         std::optional<EdgeSplitFractions>* edge_split, HeldOutEdges* held) {
  const int64_t input_edges = static_cast<int64_t>(in->edges.src.size());
  bool input_split_present = false;
  Array input_split;
  if (!spec.dataset.empty() && spec.format != InputFormat::kOgb && !*edge_split) {
    DG_RETURN_IF_ERROR(LoadInputEdgeSplit(spec.dataset, input_edges, &input_split_present, &input_split));
    if (input_split_present) {
      *edge_split = EdgeSplitFractions{-1, -1, -1};  // recorded as "from edge_split.npy"
      std::printf("  edge split:        from %s/edge_split.npy\n", spec.dataset.c_str());
    }
  }
  NormalizeEdges(&in->edges, eo, in->edge_data.empty() && !input_split_present ? nullptr : &in->edge_origin);
  if (!*edge_split) return Status::OK();
  std::vector<int8_t> split;
  if (input_split_present) {
    DG_ASSIGN_OR_RETURN(split, SplitFromInput(input_split, in->edges, in->edge_origin, eo.undirected));
  } else {
    split = AssignEdgeSplit(in->edges, **edge_split, spec.seed, eo.undirected);
  }
  DG_ASSIGN_OR_RETURN(*held, SplitEdgeList(&in->edges, &in->edge_origin, split));
  std::printf("  edge split:        %lld train / %lld val / %lld test edges\n", (long long)in->edges.src.size(),
              (long long)held->val.src.size(), (long long)held->test.src.size());
  return Status::OK();
}

}  // namespace

Status PartitionInMemory(const PartitionOptions& po, GraphInput in, std::chrono::steady_clock::time_point t0) {
  const PartitionSpec& spec = po.spec;
  EdgeListOptions eo;
  eo.undirected = spec.undirected;
  eo.drop_self_loops = spec.drop_self_loops;
  eo.drop_duplicates = spec.drop_duplicates;
  const int64_t input_edges = static_cast<int64_t>(in.edges.src.size());
  DG_RETURN_IF_ERROR(LoadEdgeArrays(spec.edge_files, &in));
  std::optional<EdgeSplitFractions> edge_split = spec.edge_split;
  HeldOutEdges held;
  DG_RETURN_IF_ERROR(NormalizeAndSplit(spec, eo, &in, &edge_split, &held));
  if (spec.normalize_features) {
    auto it = in.node_data.find("features");
    if (it == in.node_data.end())
      return Status::InvalidArgument("--normalize-features: the input has no node array 'features'");
    DG_RETURN_IF_ERROR(RowNormalize(&it->second, "--normalize-features: node array 'features'"));
  }
  double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  read input:        %.2f s (%lld nodes, %lld input edges -> %lld after normalization)\n",
              read_s, (long long)in.num_nodes, (long long)input_edges, (long long)in.edges.src.size());
  std::fflush(stdout);

  DG_RETURN_IF_ERROR(ValidatePartitionRequest(in, po));
  auto t1 = std::chrono::steady_clock::now();
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, PartitionGraph(&in, po));
  if (edge_split)
    DG_RETURN_IF_ERROR(WriteLinkSplit(cfg, held, *edge_split, spec.seed, eo.undirected,
                                      static_cast<int64_t>(cfg.num_edges)));
  double part_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::printf("done: %s (%d parts, edge cut %lld) in %.2f s total, peak RSS %.1f MB\n", cfg.path.c_str(),
              cfg.num_parts, (long long)cfg.edge_cut, read_s + part_s, PeakRssBytes() / 1048576.0);
  return Status::OK();
}

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

}  // namespace dg
