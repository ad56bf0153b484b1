#include "roles/partition/mpi/partition_over_mpi.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

#include "common/storage/ogb_dataset.h"
#include "common/storage/typed_dataset.h"
#include "roles/partition/mpi/output/edge_data.h"
#include "roles/partition/mpi/graph/edge_split.h"
#include "roles/partition/mpi/methods/assign.h"
#include "roles/partition/mpi/input/input.h"
#include "roles/partition/mpi/input/ogb_input.h"
#include "roles/partition/mpi/output/output.h"
#include "roles/partition/mpi/runtime/memory.h"
#include "roles/partition/mpi/runtime/stage.h"
#include "roles/partition/mpi/input/typed_input.h"
#include "roles/partition/mpi/runtime/progress_clock.h"
#include "roles/partition/out_of_core.h"
#include "roles/partition/partition_output.h"

namespace dg::mpi {
namespace {

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Log(const Rank& r, const char* fmt, double a = 0, double b = 0, double c = 0, double d = 0) {
  if (r.rank != 0) return;
  std::printf(fmt, a, b, c, d);
  std::fflush(stdout);
}

// Whether --dataset (in --format) is a typed graph.
bool IsTypedInput(const PartitionSpec& f) {
  return f.format == InputFormat::kOgb ? IsOgbHeterogeneous(f.dataset) : IsTypedDatasetDir(f.dataset);
}

// OGB's files (input/ogb_input.h), a typed dataset directory (input/typed_input.h)
// or a plain one (input/input.h).
Result<ShardInput> ReadInput(const Rank& r, const PartitionSpec& f, const std::string& scratch) {
  const bool typed = IsTypedInput(f);
  if (f.format == InputFormat::kOgb) return ReadOgbShard(r, f.dataset, f.undirected, scratch);
  if (!typed) return ReadShard(r, f.dataset, f.num_nodes, scratch);
  if (f.num_nodes >= 0)
    return Status::InvalidArgument("--num-nodes: " + f.dataset + " is a typed dataset; its meta.json gives the "
                                   "node count of each type");
  return ReadTypedShard(r, f.dataset, f.undirected, scratch);
}

// --edge-data and --edge-split take a homogeneous dataset, as on one machine.
Status CheckEdgeFlags(const PartitionSpec& f) {
  if (f.edge_files.empty() && !f.edge_split) return Status::OK();
  const bool typed = IsTypedInput(f);
  if (typed && !f.edge_files.empty()) return Status::InvalidArgument("--edge-data is not supported for a typed dataset");
  if (typed)
    return Status::InvalidArgument("--edge-split with --mpi splits a homogeneous dataset; split a typed one "
                                   "(--edge-split --link-etype) on one machine");
  return Status::OK();
}

// The edge arrays of --edge-data with the input row of each edge this rank
// holds, and the held-out edges of --edge-split.
struct EdgeExtras {
  std::map<std::string, Array> arrays;
  std::vector<int64_t> origins;
  LinkSplitOptions link;
  HeldOut held;
};

// Normalizes the shards (with the origins of --edge-data worked out beside)
// and takes out --edge-split's held-out edges; returns the graph's edge count.
Result<int64_t> Normalize(const Rank& r, const PartitionSpec& f, const VertexBlocks& blocks, const EdgeListOptions& norm,
                          ShardInput* in, EdgeExtras* x) {
  const int64_t input_edges = SumAll(r, static_cast<int64_t>(in->edges.size()));
  if (!f.edge_files.empty()) {
    Result<std::map<std::string, Array>> mapped = MapEdgeArrays(f.edge_files, input_edges);
    DG_RETURN_IF_ERROR(Agree(r, mapped.status()));
    x->arrays = std::move(*mapped);
    x->origins = NormalizedOrigins(r, blocks, norm, input_edges, f.batch_edges, in->edges);
  }
  // A typed graph's drops are per edge type (input/typed_input.h).
  const int64_t num_edges = in->types ? NormalizeTypedShards(r, blocks, norm, f.batch_edges, in)
                                      : NormalizeShards(r, blocks, norm, f.batch_edges, &in->edges);
  if (!f.edge_files.empty()) {  // a check of NormalizedOrigins against NormalizeShards
    Status st;
    if (x->origins.size() != in->edges.size())
      st = Status::Internal("--edge-data: " + std::to_string(x->origins.size()) + " origins for " +
                            std::to_string(in->edges.size()) + " normalized edges");
    DG_RETURN_IF_ERROR(Agree(r, st));
  }
  if (!f.edge_split) return num_edges;
  x->link = LinkSplitOptions{*f.edge_split, f.seed, f.undirected, in->num_nodes};
  x->held = SplitShards(r, x->link, f.batch_edges, &in->edges, f.edge_files.empty() ? nullptr : &x->origins);
  if (r.rank == 0)
    std::printf("  edge split: %lld train / %lld val / %lld test edges\n", static_cast<long long>(x->held.num_train),
                static_cast<long long>(x->held.num_val), static_cast<long long>(x->held.num_test));
  return x->held.num_train;
}

// What the balance measures count of each vertex of this rank's block.
BlockVertices Vertices(const Rank& r, const ShardInput& in, const VertexBlocks& blocks) {
  const int64_t first = blocks.First(r.rank), count = blocks.Count(r.rank);
  BlockVertices v;
  if (!in.types) {
    v.train = BlockTrainFlags(in.node_data, first, count);
    return v;
  }
  const TypeLayout& l = *in.types;
  v.train = BlockTypedTrainFlags(l, first, count);
  v.node_type = BlockNodeTypes(l, first, count);
  v.type_names = l.node_types;
  for (int t = 0; t < l.num_types(); ++t) v.type_counts.push_back(l.NumNodesOfType(t));
  return v;
}

// --method auto: which plan runs and why.
void LogPlan(const Rank& r, const ClusterReport& cr, int64_t num_edges) {
  const double arcs = static_cast<double>(cr.graph_arcs), limit = static_cast<double>(cr.max_arcs);
  if (cr.plan == ClusterPlan::kWholeGraph)
    Log(r, "  plan: the graph's %.0f arcs fit rank 0 (limit %.0f, --cluster-max-arcs): METIS on the whole graph on "
        "rank 0 in %.1f s, the single-machine METIS assignment\n", arcs, limit, cr.metis_seconds);
  else if (cr.over_metis_counts)
    Log(r, "  plan: the graph's %.0f arcs fit rank 0 (limit %.0f) but its %.0f edges pass METIS's 32-bit counts: "
        "clusters\n", arcs, limit, static_cast<double>(num_edges));
  else
    Log(r, "  plan: the graph's %.0f arcs are more than rank 0 partitions (limit %.0f, --cluster-max-arcs): "
        "clusters\n", arcs, limit);
}

// The cluster graph's size and who partitions it (--method auto past the
// limit, --method cluster): METIS, the stream, or PT-Scotch (on the graph, or
// on these clusters when the graph is past its limit: scotch_on_clusters).
void LogClusters(const Rank& r, const ClusterReport& cr, bool scotch_on_clusters) {
  if (cr.clusters == 0) return;
  const double clusters = static_cast<double>(cr.clusters), arcs = static_cast<double>(cr.cluster_arcs);
  if (cr.plan == ClusterPlan::kMetis)
    Log(r, "  clusters: %.0f clusters, %.0f arcs between them, partitioned by METIS on rank 0 in %.1f s\n", clusters,
        arcs, cr.metis_seconds);
  else if (cr.plan == ClusterPlan::kStream)
    Log(r, "  clusters: %.0f clusters, %.0f arcs between them (%.0f%% of the graph's): more than rank 0 partitions "
        "(%.0f, --cluster-max-arcs), and the graph hardly clusters: each rank streams its vertices into "
        "parts\n", clusters, arcs, 100.0 * arcs / static_cast<double>(std::max<int64_t>(1, cr.graph_arcs)),
        static_cast<double>(cr.max_arcs));
  else
    Log(r, (std::string("  clusters: %.0f clusters, %.0f arcs between them: more than rank 0 partitions (%.0f, "
                     "--cluster-max-arcs); PT-Scotch partitions ") +
            (scotch_on_clusters ? "them" : "the graph") + " instead\n").c_str(),
        clusters, arcs, static_cast<double>(cr.max_arcs));
}

// PT-Scotch on the cluster graph of a graph past its limit.
void LogCoarseScotch(const Rank& r, const CoarseScotchReport& cs) {
  if (cs.clusters == 0) return;
  Log(r, "  PT-Scotch: the graph's %.0f arcs are more than it takes (%.0f, a 32-bit SCOTCH_Num): it partitions the "
      "%.0f clusters (%.0f arcs between them), each vertex taking its cluster's part\n",
      static_cast<double>(cs.graph_arcs), static_cast<double>(cs.limit), static_cast<double>(cs.clusters),
      static_cast<double>(cs.cluster_arcs));
}

// What gave the first parts, which the repair and the refinement start from.
const char* FirstParts(PartitionMethod method, const Assignment& a) {
  const ClusterReport& cr = a.clusters;
  if (a.coarse_scotch.clusters > 0) return "PT-Scotch on the clusters";
  if (method == PartitionMethod::kScotch || cr.plan == ClusterPlan::kScotch) return "PT-Scotch";
  if (method == PartitionMethod::kStream || cr.plan == ClusterPlan::kStream) return "the stream";
  return "METIS on the clusters";
}

// The plan (--method auto), the clusters, the cuts and the balance of an assignment.
void LogAssignment(const Rank& r, const PartitionSpec& f, const Assignment& a, int64_t num_edges) {
  const bool by_graph = PartitionsByGraph(f.method, f.num_parts);
  if (f.method == PartitionMethod::kAuto && by_graph) LogPlan(r, a.clusters, num_edges);
  LogClusters(r, a.clusters, a.coarse_scotch.clusters > 0);
  LogCoarseScotch(r, a.coarse_scotch);
  if (by_graph && a.clusters.plan == ClusterPlan::kWholeGraph)
    Log(r, "  cut: %.0f edges from METIS on the whole graph, its parts kept (no repair, no refinement)\n",
        static_cast<double>(a.initial_cut));
  else if (by_graph)
    Log(r, (std::string("  cut: %.0f edges from ") + FirstParts(f.method, a) +
            ", %.0f after the repair, %.0f after the refinement (%.0f moves)\n").c_str(),
        static_cast<double>(a.initial_cut), static_cast<double>(a.refine.cut_before),
        static_cast<double>(a.refine.cut_after), static_cast<double>(a.refine.moved));
  for (size_t m = 0; m < a.balance.measure.size(); ++m)
    if (r.rank == 0)
      std::printf("  balance %s: largest part %.3f x the mean\n", a.balance.measure[m].c_str(),
                  a.balance.max_over_mean[m]);
}

// NAME.json's part_method: the method asked for; under --method auto the
// plan that ran, "metis" (the whole graph) or "cluster".
std::string PartMethodName(PartitionMethod method, bool whole_graph) {
  if (method != PartitionMethod::kAuto) return Name(method);
  return whole_graph ? Name(PartitionMethod::kMetis) : Name(PartitionMethod::kCluster);
}

// The largest rank's peak RSS in the stage that ends, in MB (collective).
double StagePeakMb(const Rank& r, StagePeaks* peaks) {
  return static_cast<double>(MaxAll(r, peaks->EndStage())) / 1048576.0;
}

}  // namespace

Status PartitionOverMpi(const Rank& r, const PartitionSpec& f) {
  const auto t0 = std::chrono::steady_clock::now();
  StagePeaks peaks;
  DG_RETURN_IF_ERROR(Agree(r, CheckEdgeFlags(f)));
  SharedStage stage;
  Progress("create the staging directory");
  DG_RETURN_IF_ERROR(stage.Create(r, f.out, f.force));
  // Scratch (gunzipped node arrays) inside the staging directory unless
  // --tmp-dir says otherwise: whoever removes the stage removes it too, even
  // for a rank that was killed. Removed before the commit.
  auto scratch = std::make_unique<ScratchDir>();
  DG_RETURN_IF_ERROR(Agree(r, scratch->Create(f.tmp_dir.empty() ? stage.path() : f.tmp_dir)));
  RemoveOnSignal(scratch->path());
  Progress("read input");
  Result<ShardInput> read = ReadInput(r, f, scratch->path());
  DG_RETURN_IF_ERROR(Agree(r, read.status()));
  ShardInput in = std::move(*read);
  LogShareParses(r, in.parsed);
  in.num_nodes = MaxAll(r, in.num_nodes);
  if (f.num_parts > in.num_nodes)
    return Agree(r, Status::InvalidArgument("--num-parts " + std::to_string(f.num_parts) + " exceeds the " +
                                            std::to_string(in.num_nodes) + " nodes of the graph"));
  const VertexBlocks blocks(in.num_nodes, r.size);
  EdgeListOptions norm;  // a typed graph's --undirected is its rev_ types, already read
  norm.undirected = f.undirected && !in.types;
  norm.drop_self_loops = f.drop_self_loops;
  norm.drop_duplicates = f.drop_duplicates;
  Progress("normalize");
  EdgeExtras extras;
  DG_ASSIGN_OR_RETURN(const int64_t num_edges, Normalize(r, f, blocks, norm, &in, &extras));
  Log(r, "partition (MPI, %.0f ranks): %.0f nodes, %.0f edges\n", r.size, static_cast<double>(in.num_nodes),
      static_cast<double>(num_edges));
  if (in.types)
    Log(r, "  typed: %.0f node types, %.0f edge types\n", in.types->num_types(),
        static_cast<double>(in.types->edge_types.size()));
  Log(r, "  read and normalize: %.2f s, largest rank's peak %.0f MB\n", Since(t0), StagePeakMb(r, &peaks));

  auto t = std::chrono::steady_clock::now();
  const AssignOptions ao{f, scratch->path()};
  Progress("assign");
  Result<Assignment> assigned = AssignBlock(r, blocks, &in.edges, Vertices(r, in, blocks), ao);
  DG_RETURN_IF_ERROR(Agree(r, assigned.status()));
  Log(r, "  assign: %.2f s, largest rank's peak %.0f MB\n", Since(t), StagePeakMb(r, &peaks));
  const bool whole = f.method == PartitionMethod::kAuto && assigned->clusters.plan == ClusterPlan::kWholeGraph;
  LogAssignment(r, f, *assigned, num_edges);

  t = std::chrono::steady_clock::now();
  GraphShards g;
  g.num_nodes = in.num_nodes;
  g.num_edges = num_edges;
  g.blocks = &blocks;
  g.edges = &in.edges;
  g.part = &assigned->part;
  g.node_data = &in.node_data;
  g.types = in.types.get();
  if (!f.edge_files.empty()) g.edge_data = &extras.arrays, g.origins = &extras.origins;
  if (f.edge_split) g.held = &extras.held;
  OutputOptions oo;
  oo.graph_name = f.name;
  oo.part_method = PartMethodName(f.method, whole);
  oo.num_parts = f.num_parts;
  oo.normalize_features = f.normalize_features;
  oo.batch = f.batch_edges;
  oo.link = extras.link;
  Progress("route and write");
  DG_ASSIGN_OR_RETURN(PartitionConfig cfg, WritePartition(r, &g, stage, oo));
  scratch.reset();
  Progress("commit");
  DG_RETURN_IF_ERROR(stage.Commit(r));
  Log(r, "  route and write: %.2f s, largest rank's peak %.0f MB\n", Since(t), StagePeakMb(r, &peaks));
  Progress("report");
  if (r.rank == 0) LogPartStats(stdout, cfg);
  const double rss = static_cast<double>(MaxAll(r, peaks.Peak())) / 1048576.0;
  Log(r, "  peak RSS (largest rank): %.1f MB\n", rss);
  Log(r, "  sent to other ranks: largest rank %.1f MB, all ranks %.1f MB\n",
      static_cast<double>(MaxAll(r, BytesSent())) / 1048576.0, static_cast<double>(SumAll(r, BytesSent())) / 1048576.0);
  const ProgressStats ps = GetProgressStats();
  auto max_s = [&](double s) { return static_cast<double>(MaxAll(r, static_cast<int64_t>(s * 1000))) / 1000.0; };
  Log(r, "  longest wait in MPI without progress: %.1f s, longest gap between progress marks: %.1f s (largest rank), "
         "%.0f completed MPI calls\n",
      max_s(ps.longest_wait_s), max_s(ps.longest_gap_s), static_cast<double>(SumAll(r, ps.mpi_marks)));
  Log(r, "done: %.0f parts in %.2f s\n", f.num_parts, Since(t0));
  return Status::OK();
}

}  // namespace dg::mpi
